"""Benchmark (not a test): N students log in at once and wait for a usable JupyterLab.

    sudo python -m tests.hub.bench_logins --students 30

Starts ``course hub`` as tests/hub/test_hub.py does, then N headless browser
sessions sign in together. Each then opens a new notebook from the launcher
and runs 01_rnn's first code cell (its imports and plotting set-up, taken
from the released notebook) with Shift+Enter. Prints, as JSON: seconds from
pressing Sign in to JupyterLab's launcher, and from opening the notebook to
that cell's end (median, worst), each user's memory (the cgroup's resident
memory, with the kernel that ran the cell), the hub's and the proxy's
resident memory, and the machine's load average before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import time
from pathlib import Path

from instructor.paths import REPO_ROOT
from tests.browser.lab import chromium_path
from tests.browser.test_jupyterlab import CHROMIUM_ARGS
from tests.hub.harness import running_hub


def first_code_cell(assignment: str = "01_rnn") -> str:
    """The source of the student notebook's first code cell (01: imports and the plotting set-up)."""
    nb = json.loads((REPO_ROOT / "notebooks" / assignment / f"{assignment}.ipynb").read_text())
    return "".join(next(c for c in nb["cells"] if c["cell_type"] == "code")["source"])


async def _log_in_and_run(browser, hub, user: str, code: str, timeout_ms: int) -> tuple[float, float, str]:
    """(seconds from Sign in to the launcher, from opening a notebook to ``code`` having run, its stderr)."""
    context = await browser.new_context(viewport={"width": 1200, "height": 700})
    page = await context.new_page()
    await page.goto(f"{hub.base}/hub/login")
    await page.fill("#username_input", user)
    await page.fill("#password_input", hub.password(user))
    start = time.monotonic()
    await page.click("#login_submit")
    await page.locator(".jp-LauncherCard").first.wait_for(timeout=timeout_ms)
    to_lab = time.monotonic() - start
    start = time.monotonic()
    await page.locator('.jp-LauncherCard[data-category="Notebook"]').first.click()
    editor = page.locator(".jp-NotebookPanel .jp-Cell .cm-content").first
    await editor.wait_for(timeout=timeout_ms)
    # a cell run before the kernel is connected is dropped: wait for the status bar's "| Idle"
    await page.locator(".jp-StatusBar-Widget", has_text="| Idle").first.wait_for(timeout=timeout_ms)
    await editor.click()
    await page.keyboard.insert_text(code)
    await page.keyboard.press("Shift+Enter")
    # the cell's prompt reads [1]: once the kernel has started and run it to its end
    try:
        await page.locator(".jp-NotebookPanel .jp-InputArea-prompt", has_text="[1]").first.wait_for(timeout=timeout_ms)
    except Exception:
        await page.screenshot(path=f"/tmp/hub-bench-{user}.png")
        raise
    to_cell = time.monotonic() - start
    stderr = page.locator(".jp-NotebookPanel .jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']")
    return to_lab, to_cell, " ".join(await stderr.all_inner_texts())[:200]


async def _all(hub, users: list[str], timeout_ms: int) -> list:
    code = first_code_cell()
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            return list(
                await asyncio.gather(
                    *(_log_in_and_run(browser, hub, u, code, timeout_ms) for u in users), return_exceptions=True
                )
            )
        finally:
            await browser.close()


def _rss_mb(pattern: str) -> float:
    """Resident memory of the processes whose command line contains ``pattern`` (MB)."""
    found = subprocess.run(["ps", "-eo", "rss=,args="], capture_output=True, text=True).stdout.splitlines()
    return sum(int(line.split(None, 1)[0]) for line in found if pattern in line) / 1024


def _cgroup_rss_mb(user: str) -> float:
    [path] = Path("/sys/fs/cgroup/memory/course-hub").glob(f"*/{user}/memory.stat")  # course-hub/<hub>/<user> (v1)
    stat = dict(line.split() for line in open(path))
    return int(stat["total_rss"]) / 2**20


def _spread(seconds: list[float]) -> dict:
    if not seconds:
        return {}
    return {
        "median": round(statistics.median(seconds), 1),
        "worst": round(max(seconds), 1),
        "best": round(min(seconds), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--timeout", type=int, default=900, help="seconds a login may take")
    args = parser.parse_args()
    users = [f"hubb{i:03d}" for i in range(args.students)]
    load_before = os.getloadavg()
    with running_hub(students=users, timeout=300) as hub:
        wall = time.monotonic()
        outcomes = asyncio.run(_all(hub, users, args.timeout * 1000))
        wall = time.monotonic() - wall
        done = [o for o in outcomes if isinstance(o, tuple)]
        to_lab = [o[0] for o in done]
        to_cell = [o[1] for o in done]
        failed = [
            f"{u}: {type(o).__name__}: {o}"[:300]
            for u, o in zip(users, outcomes, strict=True)
            if not isinstance(o, tuple)
        ]
        stderr = sorted({o[2] for o in done if o[2]})
        per_user = [_cgroup_rss_mb(u) for u, o in zip(users, outcomes, strict=True) if isinstance(o, tuple)]
        report = {
            "students": args.students,
            "failed": failed,
            "cores": os.cpu_count(),
            "load_before": [round(x, 1) for x in load_before],
            "load_after": [round(x, 1) for x in os.getloadavg()],
            "to_usable_lab_s": _spread(to_lab),
            "first_cell_of_01_s": _spread(to_cell),
            "all_done_s": round(wall, 1),
            "first_cell_stderr": stderr,
            "user_rss_mb": {"median": round(statistics.median(per_user)), "max": round(max(per_user))}
            if per_user
            else {},
            "hub_rss_mb": round(_rss_mb("-m jupyterhub -f")),
            "proxy_rss_mb": round(_rss_mb("configurable-http-proxy")),
        }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
