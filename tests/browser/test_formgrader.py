"""The formgrader of a course directory shows the grades `course grade` wrote, in a real browser.

A toy course is graded with ``course grade`` into a course directory made by
``course init``; JupyterLab is started there (as ``course formgrader`` does:
the course directory is its folder, so nbgrader reads its nbgrader_config.py)
and headless Chromium opens the formgrader's list of the graded submissions.
The screenshot is ``tests/browser/screenshots/formgrader.png``.
"""

from __future__ import annotations

import shutil

import pytest

from tests.browser.lab import jupyter_lab
from tests.browser.test_jupyterlab import OPEN_TIMEOUT_MS, SCREENSHOTS, chromium  # noqa: F401  (fixture)
from tests.system import require_sandbox

pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def graded_course_dir(tmp_path_factory):
    """A course directory in which `course grade` graded ref (full marks) and blank (nothing) on 01_toy."""
    require_sandbox()
    from instructor.cli import main
    from tests.factories import make_course

    tmp = tmp_path_factory.mktemp("formgrader")
    repo = make_course(tmp / "repo")
    assert main(["release", "--root", str(repo)]) == 0
    for student, folder in (("ref", "solutions"), ("blank", "notebooks")):
        target = tmp / "subs" / student / "01_toy"
        target.mkdir(parents=True)
        shutil.copy(repo / folder / "01_toy/01_toy.ipynb", target)
    course_dir = tmp / "course-dir"
    assert main(["init", str(course_dir)]) == 0
    assert main(["grade", str(tmp / "subs"), "--course-dir", str(course_dir), "--root", str(repo)]) == 0
    return course_dir


def test_formgrader_lists_the_submissions_course_grade_graded(chromium, graded_course_dir, tmp_path):  # noqa: F811
    """Does the formgrader, started in the course directory, list both graded submissions with their scores?"""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with jupyter_lab(graded_course_dir, tmp_path) as lab:
        # the formgrader's own API calls carry no token: send it as a header on every request
        context = chromium.new_context(viewport={"width": 1400, "height": 800},
                                       extra_http_headers={"Authorization": f"token {lab.token}"})
        page = context.new_page()
        try:
            page.goto(f"http://127.0.0.1:{lab.port}/formgrader/gradebook/01_toy/01_toy")
            rows = page.locator("tbody tr")
            rows.filter(has_text="Submission #").first.wait_for(timeout=OPEN_TIMEOUT_MS)
            page.click("#toggle_names")  # the formgrader hides student ids by default
            rows.filter(has_text="blank").first.wait_for(timeout=OPEN_TIMEOUT_MS)
            page.screenshot(path=str(SCREENSHOTS / "formgrader.png"))
            text = {cells[1].strip(): cells for cells in (r.inner_text().split("\t") for r in rows.all())}
        finally:
            context.close()
    assert set(text) == {"ref", "blank"}, text
    # overall, code (autograded) and written scores, as `course grade` recorded them
    assert [c.strip() for c in text["ref"][2:5]] == ["2 / 3", "2 / 2", "0 / 1"], text
    assert [c.strip() for c in text["blank"][2:5]] == ["0 / 3", "0 / 2", "0 / 1"], text
