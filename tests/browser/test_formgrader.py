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


#: a written answer that tries to run script in the reader's browser, beside honest math and code
HOSTILE_ANSWER = """Because $a<b$ implies $b>a$, and `<S>` is a token.
<img src=x onerror="window.pwned='markdown img'; document.title='pwned'; fetch('/api/contents')">
<script>window.pwned = 'markdown script'; fetch('/api/kernels', {method: 'POST'})</script>
<svg onload="window.pwned='svg'"><circle r="5"/></svg>
<iframe src="/api/contents"></iframe>
[a link](javascript:window.pwned='link')
"""
#: code that displays markup and JavaScript as its output
HOSTILE_OUTPUT = """
from IPython.display import HTML, Javascript, display
display(HTML("<img src=y onerror=\\"window.pwned='html output'; fetch('/api/terminals', {method: 'POST'})\\">"))
display(Javascript("window.pwned = 'javascript output'"))
"""


@pytest.fixture(scope="module")
def hostile_course_dir(tmp_path_factory):
    """A course directory in which `course grade` graded eve, whose notebook holds script in every place
    a student can write: her written answer (markdown) and her code's outputs (HTML, JavaScript)."""
    require_sandbox()
    import nbformat

    from instructor.cli import main
    from tests.factories import make_course

    tmp = tmp_path_factory.mktemp("hostile-formgrader")
    repo = make_course(tmp / "repo")
    assert main(["release", "--root", str(repo)]) == 0
    target = tmp / "subs" / "eve" / "01_toy"
    target.mkdir(parents=True)
    nb = nbformat.read(str(repo / "notebooks/01_toy/01_toy.ipynb"), as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id == "why":
            cell.source = HOSTILE_ANSWER
        elif grade_id == "add":
            cell.source = "def add(a, b):\n    return a + b\n" + HOSTILE_OUTPUT
        elif grade_id == "add__values":
            cell.source += "\n# I only added this comment"  # flags the submission: the grader sees why
    nbformat.write(nb, str(target / "01_toy.ipynb"))
    course_dir = tmp / "course-dir"
    assert main(["init", str(course_dir)]) == 0
    assert main(["grade", str(tmp / "subs"), "--course-dir", str(course_dir), "--root", str(repo)]) == 0
    return course_dir


def test_no_script_of_a_submission_runs_in_the_formgrader(chromium, hostile_course_dir, tmp_path):  # noqa: F811
    """Opened in the formgrader, does eve's submission run none of its scripts (title, globals, no call to
    the server's contents, kernels or terminals APIs, nothing fetched from elsewhere), while the course's
    math shows as MathML and the formgrader's own scripts still save a hand grade?"""
    import json
    import urllib.request

    from nbgrader.api import Gradebook

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with jupyter_lab(hostile_course_dir, tmp_path) as lab:
        request = urllib.request.Request(f"http://127.0.0.1:{lab.port}/formgrader/api/submitted_notebooks/01_toy/01_toy",
                                         headers={"Authorization": f"token {lab.token}"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            submission = json.load(reply)[0]["id"]
        context = chromium.new_context(viewport={"width": 1400, "height": 900},
                                       extra_http_headers={"Authorization": f"token {lab.token}"})
        page = context.new_page()
        requests, violations = [], []
        page.on("request", lambda r: requests.append((r.method, r.url)))
        page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
        try:
            page.goto(f"http://127.0.0.1:{lab.port}/formgrader/submissions/{submission}/")
            page.locator("math").first.wait_for(timeout=OPEN_TIMEOUT_MS)
            page.wait_for_timeout(1500)  # time for any injected handler or fetch to fire
            title, pwned = page.title(), page.evaluate("window.pwned")
            maths = page.locator("math").count()
            banner = page.locator("#course-grading").inner_text()
            page.screenshot(path=str(SCREENSHOTS / "formgrader-hostile.png"), full_page=True)
            # the formgrader's own scripts: a hand grade typed into the written answer's box is saved
            page.fill("input.score#why", "1")
            page.press("input.score#why", "Tab")
            page.wait_for_timeout(1500)
        finally:
            context.close()
    assert title == "01_toy" and pwned is None, (title, pwned)
    called = [(m, u) for m, u in requests if "/api/contents" in u or "/api/kernels" in u or "/api/terminals" in u]
    assert not called, called
    elsewhere = [u for _, u in requests if not u.startswith(("http://127.0.0.1", "data:"))]
    assert not elsewhere, elsewhere  # no CDN, no tracker
    assert maths >= 3, maths  # the course's two formulas and the student's
    assert "flagged for review: the test cell 'add__values' was edited (restored)" in banner, banner
    assert "course unflag eve 01_toy" in banner, banner
    with Gradebook(f"sqlite:///{hostile_course_dir / 'gradebook.db'}") as gb:
        assert gb.find_grade("why", "01_toy", "01_toy", "eve").manual_score == 1.0
