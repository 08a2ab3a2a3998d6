"""The student bundle, set up as its README says, in a real browser: Validate, and nothing of the instructor's.

A bundle of 01 is built into a temporary folder; a fresh venv (``python -m
venv``) gets ``pip install ./helpers`` from the package registry (through
pip's cache), once per test session. That venv's JupyterLab serves the bundle
folder (:func:`tests.browser.lab.jupyter_lab`) and headless Chromium opens
``01_rnn/01_rnn.ipynb``. The test asserts that nbgrader's Validate button is
in the toolbar, that nothing of nbgrader's instructor interface is in the
menus, the command palette or the side bars, and that Validate reports on
the untouched notebook. The screenshot of its report is
``tests/browser/screenshots/bundle-validate.png``; the timings go to
``log.txt`` beside it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.browser import lab as lab_module
from tests.browser.test_jupyterlab import RUN_TIMEOUT_S, SCREENSHOTS, Page, chromium  # noqa: F401  (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.notebook]

NOTEBOOK = "01_rnn/01_rnn.ipynb"
#: What nbgrader's instructor interface (and the exchange's lists) would show a student.
INSTRUCTOR_LABELS = ("Formgrader", "Create Assignment", "Course List", "Assignment List")
INSTALL_TIMEOUT_S = 900


def _log(line: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with open(SCREENSHOTS / "log.txt", "a") as log:
        log.write(f"# bundle: {line}\n")


@pytest.fixture(scope="session")
def student_setup(tmp_path_factory):
    """A bundle of 01 and a fresh venv holding ``pip install ./helpers``, as the README says: (bundle, venv)."""
    from instructor.cli import main

    bundle = tmp_path_factory.mktemp("student") / "week1"
    assert main(["bundle", "01_rnn", "--to", str(bundle)]) == 0
    venv = bundle / ".venv"
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    install = subprocess.run(
        [str(venv / "bin/python"), "-m", "pip", "install", "./helpers"],
        cwd=bundle,
        check=False,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    assert install.returncode == 0, f"pip install ./helpers failed:\n{install.stdout[-3000:]}\n{install.stderr[-3000:]}"
    _log(f"python -m venv and pip install ./helpers took {time.monotonic() - start:.0f} s")
    return bundle, venv


@contextmanager
def _venv_lab(bundle: Path, venv: Path, scratch: Path):
    """:func:`tests.browser.lab.jupyter_lab` run by the student venv's Python, which sees only its own packages."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("PYTHONPATH", raising=False)  # the venv's own packages only
        with lab_module.jupyter_lab(bundle, scratch, python=venv / "bin" / "python") as server:
            yield server


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_server_extensions_of_the_venv(student_setup, tmp_path):
    """Does `jupyter server extension list` in the student venv show Validate on and the instructor's extensions off?"""
    _, venv = student_setup
    # a bare environment: the venv's scripts, and an empty user-level config folder
    env = {"PATH": str(venv / "bin"), "HOME": str(tmp_path), "JUPYTER_CONFIG_DIR": str(tmp_path)}
    listing = subprocess.run(
        [str(venv / "bin/jupyter"), "server", "extension", "list"],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    shown = _plain(listing.stdout + listing.stderr)
    states = dict(re.findall(r"^\s+(nbgrader\.server_extensions\.\w+) (enabled|disabled)", shown, re.MULTILINE))
    assert states == {
        "nbgrader.server_extensions.validate_assignment": "enabled",
        "nbgrader.server_extensions.formgrader": "disabled",
        "nbgrader.server_extensions.course_list": "disabled",
        "nbgrader.server_extensions.assignment_list": "disabled",
    }, shown


def _menu_labels(page) -> dict[str, list[str]]:
    """Every main menu's item labels, by menu."""
    found = {}
    for top in page.locator(".lm-MenuBar-itemLabel").all_inner_texts():
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{re.escape(top)}$")).click()
        found[top] = page.locator(".lm-Menu .lm-Menu-itemLabel").all_inner_texts()
        page.keyboard.press("Escape")
    return found


def _palette_labels(page) -> list[str]:
    """The command palette's categories and commands (opened with Ctrl+Shift+C from the notebook)."""
    page.locator(".jp-NotebookPanel .jp-Notebook").first.click()
    page.keyboard.press("Control+Shift+C")
    palette = page.locator(".lm-CommandPalette")
    palette.wait_for(state="visible", timeout=30_000)
    labels = palette.locator(".lm-CommandPalette-header, .lm-CommandPalette-itemLabel").all_inner_texts()
    page.keyboard.press("Escape")
    return labels


def _side_bar_titles(page) -> list[str]:
    """The titles of the left and right side bars' tabs."""
    tabs = page.locator(".jp-SideBar .lm-TabBar-tab")
    return [f"{tabs.nth(i).get_attribute('title') or ''} {tabs.nth(i).inner_text()}" for i in range(tabs.count())]


def test_student_lab_has_validate_and_nothing_of_the_instructor(chromium, student_setup, tmp_path):  # noqa: F811
    """In the bundle's JupyterLab, is Validate there, nbgrader's instructor interface nowhere, and does Validate
    report?"""
    bundle, venv = student_setup
    start = time.monotonic()
    with _venv_lab(bundle, venv, tmp_path) as server:
        nb = Page(chromium, server, NOTEBOOK)
        try:
            validate = nb.page.locator(".jp-NotebookPanel-toolbar [title='Validate Assignment']").first
            assert validate.is_visible() and validate.inner_text().strip() == "Validate"

            menus, palette, side_bars = _menu_labels(nb.page), _palette_labels(nb.page), _side_bar_titles(nb.page)
            assert "Run All Cells" in menus.get("Run", []) and len(palette) > 50, (
                "the menus or the palette were not read"
            )
            assert "Nbgrader" not in menus, menus.keys()
            assert "nbgrader" not in {label.strip().lower() for label in palette}, "an nbgrader category in the palette"
            shown = {
                "menus": [item for items in menus.values() for item in items],
                "palette": palette,
                "side bars": side_bars,
            }
            for where, labels in shown.items():
                for label in INSTRUCTOR_LABELS:
                    assert not [t for t in labels if label.lower() in t.lower()], f"{label!r} in the {where}"

            clicked = time.monotonic()
            validate.click()
            dialog = nb.page.locator(".jp-Dialog")
            dialog.get_by_text(re.compile("Success|failed|error", re.IGNORECASE)).first.wait_for(
                timeout=RUN_TIMEOUT_S * 1000
            )
            validated = time.monotonic() - clicked
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            nb.shot("bundle-validate")
            report = dialog.inner_text()
            nb.assert_console_clean()
        finally:
            nb.close()
    _log(f"Validate answered in {validated:.0f} s; the browser test took {time.monotonic() - start:.0f} s")
    failed = report.split("The following cell failed")[1:]
    _log(
        f"Validate showed {report.splitlines()[0]!r} with {len(failed)} failed cells, "
        f"{sum('NotImplementedError' in cell for cell in failed)} of them raising NotImplementedError"
    )
    # the untouched notebook: every answer still raises NotImplementedError
    assert failed and "NotImplementedError" in failed[0] and "Success" not in report, report[:2000]
