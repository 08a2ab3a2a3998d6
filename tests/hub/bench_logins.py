"""Benchmark (not a test): N students log in at once and wait for a usable JupyterLab.

    sudo python -m tests.hub.bench_logins --students 30

Starts ``course hub`` as tests/hub/test_hub.py does, then N headless browser
sessions sign in together. Prints, as JSON: seconds from pressing Sign in to
JupyterLab's launcher (median, worst), each user's server memory (the
cgroup's resident memory, kernels included: none run), the hub's and the
proxy's resident memory, and the machine's load average before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import time

from tests.browser.lab import chromium_path
from tests.browser.test_jupyterlab import CHROMIUM_ARGS
from tests.hub.harness import running_hub


async def _log_in(browser, hub, user: str, timeout_ms: int) -> float:
    context = await browser.new_context(viewport={"width": 1200, "height": 700})
    page = await context.new_page()
    await page.goto(f"{hub.base}/hub/login")
    await page.fill("#username_input", user)
    await page.fill("#password_input", hub.password(user))
    start = time.monotonic()
    await page.click("#login_submit")
    await page.locator(".jp-LauncherCard").first.wait_for(timeout=timeout_ms)
    return time.monotonic() - start


async def _all(hub, users: list[str], timeout_ms: int) -> list[float]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            return list(await asyncio.gather(*(_log_in(browser, hub, u, timeout_ms) for u in users),
                                             return_exceptions=True))
        finally:
            await browser.close()


def _rss_mb(pattern: str) -> float:
    """Resident memory of the processes whose command line contains ``pattern`` (MB)."""
    found = subprocess.run(["ps", "-eo", "rss=,args="], capture_output=True, text=True).stdout.splitlines()
    return sum(int(line.split(None, 1)[0]) for line in found if pattern in line) / 1024


def _cgroup_rss_mb(user: str) -> float:
    stat = dict(line.split() for line in open(f"/sys/fs/cgroup/memory/course-hub/{user}/memory.stat"))
    return int(stat["total_rss"]) / 2**20


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
        seconds = [s for s in outcomes if isinstance(s, float)]
        failed = [f"{u}: {type(o).__name__}" for u, o in zip(users, outcomes) if not isinstance(o, float)]
        per_user = [_cgroup_rss_mb(u) for u, o in zip(users, outcomes) if isinstance(o, float)]
        report = {
            "students": args.students,
            "failed": failed,
            "cores": os.cpu_count(),
            "load_before": [round(x, 1) for x in load_before],
            "load_after": [round(x, 1) for x in os.getloadavg()],
            "to_usable_lab_s": {"median": round(statistics.median(seconds), 1), "worst": round(max(seconds), 1),
                                "best": round(min(seconds), 1), "all_done_s": round(wall, 1)},
            "server_rss_mb": {"median": round(statistics.median(per_user)), "max": round(max(per_user))},
            "hub_rss_mb": round(_rss_mb("-m jupyterhub -f")),
            "proxy_rss_mb": round(_rss_mb("configurable-http-proxy")),
        }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
