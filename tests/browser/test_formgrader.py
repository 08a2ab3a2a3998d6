"""The formgrader of a course directory shows the grades `course grade` wrote, in a real browser.

A toy course is graded with ``course grade`` into a course directory made by
``course init``; JupyterLab is started there as ``course formgrader`` starts it
(the course directory is its folder, so nbgrader reads its nbgrader_config.py,
and the course's pages extension is loaded) and headless Chromium opens the
formgrader's pages. Screenshots are in ``tests/browser/screenshots/``.

A hostile course directory holds eve, whose notebook has script in every
place a student can write and whose roster names (from an LMS export) are
script and an ``<img onerror>``: nothing of hers runs, nothing is written, her
name reads as text; an autograded test cell offers no one-click full credit;
her edited test cell shows beside the release's; "Flagged?" says flagged; the
Autograde button is gone and its API refuses without deleting her grade; her
feedback page logs no error.
"""

from __future__ import annotations

import shutil

import pytest

from instructor.cli.formgrader import COURSE_PAGES
from instructor.coursedir.course_dir import CourseDir
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
    assert main(["generate", "--root", str(repo)]) == 0
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
    with jupyter_lab(graded_course_dir, tmp_path, extra=(COURSE_PAGES,)) as lab:
        # the formgrader's own API calls carry no token: send it as a header on every request
        context = chromium.new_context(
            viewport={"width": 1400, "height": 800}, extra_http_headers={"Authorization": f"token {lab.token}"}
        )
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


#: what a script of the student's would write through the server's contents API, were it to run
PWNED_FILES = ("pwned-name.txt", "pwned-img.txt", "pwned-last.txt")


def _put(name: str) -> str:
    """JavaScript that writes ``name`` into the served folder (the course directory) through the contents API."""
    return (
        f"fetch('/api/contents/{name}', {{method: 'PUT', headers: {{'Content-Type': 'application/json'}}, "
        f"body: JSON.stringify({{type: 'file', format: 'text', content: 'pwned'}})}})"
    )


#: eve's roster row, as an LMS export could hold it: her names are script and markup
HOSTILE_FIRST = f"<script>window.pwned = 'first name'; {_put('pwned-name.txt')}</script>"
HOSTILE_LAST = f"<img src=x onerror=\"window.pwned = 'last name'; {_put('pwned-img.txt')}\">"


@pytest.fixture(scope="module")
def hostile_course_dir(tmp_path_factory):
    """A course directory in which `course grade` graded eve, whose notebook holds script in every place
    a student can write (her written answer, her code's outputs), who edited a test cell (flagged), and
    whose roster names are script and an <img onerror>."""
    require_sandbox()
    import csv

    import nbformat

    from instructor.cli import main
    from tests.factories import make_course

    tmp = tmp_path_factory.mktemp("hostile-formgrader")
    repo = make_course(tmp / "repo")
    assert main(["generate", "--root", str(repo)]) == 0
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
    roster = tmp / "class.csv"
    with roster.open("w", newline="") as f:
        csv.writer(f).writerows(
            [["id", "first_name", "last_name", "email"], ["eve", HOSTILE_FIRST, HOSTILE_LAST, "eve@example.org"]]
        )
    assert main(["roster", "import", str(roster), "--course-dir", str(course_dir)]) == 0
    assert main(["grade", str(tmp / "subs"), "--course-dir", str(course_dir), "--root", str(repo)]) == 0
    return course_dir


def _browser_page(chromium, lab, **options):  # noqa: F811
    """A page whose every request carries the lab's token (the formgrader's own API calls carry none)."""
    context = chromium.new_context(
        viewport={"width": 1400, "height": 900}, extra_http_headers={"Authorization": f"token {lab.token}"}, **options
    )
    return context, context.new_page()


def _eve_submission(lab) -> str:
    import json
    import urllib.request

    request = urllib.request.Request(
        f"http://127.0.0.1:{lab.port}/formgrader/api/submitted_notebooks/01_toy/01_toy",
        headers={"Authorization": f"token {lab.token}"},
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.load(reply)[0]["id"]


def test_no_script_of_a_submission_runs_in_the_formgrader(chromium, hostile_course_dir, tmp_path):  # noqa: F811
    """Opened in the formgrader, does eve's submission run none of its scripts, from her notebook or her roster
    names (title, globals, no call to the server's contents, kernels or terminals APIs, no file written,
    nothing fetched from elsewhere), while her name reads as text, the course's math shows as MathML, her
    edited test cell shows beside the release's, no font is refused, and the formgrader's own scripts still
    save a hand grade?"""
    from nbgrader.api import Gradebook

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with jupyter_lab(hostile_course_dir, tmp_path, extra=(COURSE_PAGES,)) as lab:
        submission = _eve_submission(lab)
        context, page = _browser_page(chromium, lab)
        requests, console = [], []
        page.on("request", lambda r: requests.append((r.method, r.url)))
        page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
        try:
            page.goto(f"http://127.0.0.1:{lab.port}/formgrader/submissions/{submission}/")
            page.locator("math").first.wait_for(timeout=OPEN_TIMEOUT_MS)
            page.wait_for_timeout(1500)  # time for any injected handler or fetch to fire
            page.click("span.glyphicon-eye-open.name-hidden")  # show the student's name
            name = page.locator("a.name-shown").inner_text()
            page.wait_for_timeout(500)
            title, pwned = page.title(), page.evaluate("window.pwned")
            maths = page.locator("math").count()
            banner = page.locator("#course-grading").inner_text()
            diff = page.locator(".course-edit-diff").inner_text()
            page.screenshot(path=str(SCREENSHOTS / "formgrader-hostile.png"), full_page=True)
            # the formgrader's own scripts: a hand grade typed into the written answer's box is saved
            page.fill("input.score#why", "1")
            page.press("input.score#why", "Tab")
            page.wait_for_timeout(1500)
        finally:
            context.close()
    assert title == "01_toy" and pwned is None, (title, pwned)
    assert name.strip() == f"{HOSTILE_LAST}, {HOSTILE_FIRST}", name  # the markup as text, whole
    called = [(m, u) for m, u in requests if "/api/contents" in u or "/api/kernels" in u or "/api/terminals" in u]
    assert not called, called
    assert not [f for f in PWNED_FILES if (hostile_course_dir / f).exists()]
    elsewhere = [u for _, u in requests if not u.startswith(("http://127.0.0.1", "data:"))]
    assert not elsewhere, elsewhere  # no CDN, no tracker
    assert not [m for m in console if "font" in m.lower()], console  # no font the page cannot load
    assert maths >= 3, maths  # the course's two formulas and the student's
    assert "flagged for review: the test cell 'add__values' was edited (restored)" in banner, banner
    assert "course unflag eve 01_toy" in banner, banner
    assert "release" in diff and "# I only added this comment" in diff, diff
    with Gradebook(f"sqlite:///{hostile_course_dir / 'gradebook.db'}") as gb:
        assert gb.find_grade("why", "01_toy", "01_toy", "eve").manual_score == 1.0


def test_an_autograded_cell_is_overridden_only_deliberately(chromium, hostile_course_dir, tmp_path):  # noqa: F811
    """Does an autograded test cell offer no "Full credit" button (the written answer keeps its own), and is
    a score typed over its verdict saved only when the instructor confirms the override?"""
    from nbgrader.api import Gradebook

    def manual(grade_id):
        with Gradebook(f"sqlite:///{hostile_course_dir / 'gradebook.db'}") as gb:
            return gb.find_grade(grade_id, "01_toy", "01_toy", "eve").manual_score

    with jupyter_lab(hostile_course_dir, tmp_path, extra=(COURSE_PAGES,)) as lab:
        submission = _eve_submission(lab)
        context, page = _browser_page(chromium, lab)
        answers = []
        try:
            page.goto(f"http://127.0.0.1:{lab.port}/formgrader/submissions/{submission}/")
            box = page.locator("input.score#add__values")
            box.wait_for(timeout=OPEN_TIMEOUT_MS)
            page.wait_for_timeout(1500)  # the grades are loaded into the boxes
            cell = page.locator(".nbgrader_cell", has=box)
            buttons = cell.locator(".scoring-buttons button").all_inner_texts()
            written = page.locator(".nbgrader_cell", has=page.locator("input.score#why"))
            written_buttons = written.locator(".scoring-buttons button").all_inner_texts()
            before = manual("add__values")
            page.once("dialog", lambda d: (answers.append(d.message), d.dismiss()))
            box.fill("1")
            box.press("Tab")
            page.wait_for_timeout(1500)
            kept, shown = manual("add__values"), box.input_value()
            page.once("dialog", lambda d: (answers.append(d.message), d.accept()))
            box.fill("1")
            box.press("Tab")
            page.wait_for_timeout(1500)
        finally:
            context.close()
    assert "Full credit" not in buttons and "No credit" in buttons, buttons
    assert "Full credit" in written_buttons, written_buttons
    assert len(answers) == 2 and "Override the checks of 'add__values'" in answers[0], answers
    assert kept == before and shown != "1", (before, kept, shown)  # declined: nothing saved, the box put back
    assert manual("add__values") == 1.0  # confirmed: the override is saved
    import getpass

    from instructor.coursedir import overrides

    recorded = [
        e.shown() for e in overrides.entries(CourseDir.places_at(hostile_course_dir)) if e.cell == "add__values"
    ]
    assert [(e["student"], e["from"], e["to"], e["by"]) for e in recorded] == [("eve", 2.0, 1.0, getpass.getuser())]
    assert recorded[0]["at"]  # when, to the minute


def test_the_lists_flag_and_autograde_is_refused_without_loss(chromium, hostile_course_dir, tmp_path):  # noqa: F811
    """Does "Flagged?" mark eve's submission, which `course grade` flagged; is the Autograde button gone from
    Manage Submissions with a line naming `course grade`; and does the Autograde API refuse (409) while
    her graded notebook stays and her submission page still opens?"""
    import json
    import urllib.error
    import urllib.request

    graded = hostile_course_dir / "autograded" / "eve" / "01_toy" / "01_toy.ipynb"
    stamp = graded.read_bytes()
    with jupyter_lab(hostile_course_dir, tmp_path, extra=(COURSE_PAGES,)) as lab:
        base = f"http://127.0.0.1:{lab.port}"
        context, page = _browser_page(chromium, lab)
        try:
            page.goto(f"{base}/formgrader/gradebook/01_toy/01_toy")
            page.locator("tbody tr", has_text="Submission #").first.wait_for(timeout=OPEN_TIMEOUT_MS)
            flags = page.locator("tbody tr td.flagged span.glyphicon-flag").count()
            page.goto(f"{base}/formgrader/manage_submissions/01_toy")
            page.locator("tbody tr", has_text="eve").first.wait_for(timeout=OPEN_TIMEOUT_MS)
            headers = [h.inner_text().strip() for h in page.locator("thead th").all() if h.is_visible()]
            autograde_links = page.locator("td.autograde a").count()
            visible_links = sum(1 for a in page.locator("td.autograde a").all() if a.is_visible())
            note = page.locator("#course-grading-note").inner_text()
            page.screenshot(path=str(SCREENSHOTS / "formgrader-manage-submissions.png"))
            # the API itself, as the removed button called it (the page's XSRF cookie and header)
            refused = page.evaluate("""async () => {
                const xsrf = (document.cookie.match(/_xsrf=([^;]*)/) || [])[1] || "";
                const reply = await fetch(base_url + "/formgrader/api/submission/01_toy/eve/autograde",
                                          {method: "POST", headers: {"X-XSRFToken": decodeURIComponent(xsrf)}});
                return [reply.status, await reply.text()];
            }""")
        finally:
            context.close()
        submission = _eve_submission(lab)
        request = urllib.request.Request(
            f"{base}/formgrader/submissions/{submission}/", headers={"Authorization": f"token {lab.token}"}
        )
        with urllib.request.urlopen(request, timeout=60) as reply:
            opened = reply.status
    assert flags == 1, flags
    assert "Autograde" not in headers and autograde_links == 1 and visible_links == 0, (headers, visible_links)
    assert "course grade" in note, note
    assert refused[0] == 409 and "course grade" in json.loads(refused[1])["error"], refused
    assert graded.read_bytes() == stamp  # nothing deleted, nothing rewritten
    assert opened == 200


def test_feedback_page_logs_no_error(chromium, hostile_course_dir, tmp_path):  # noqa: F811
    """Does eve's feedback page, opened from disk, log no error in the browser console (no font or other
    file that its own policy refuses) and run none of her scripts?"""
    from instructor.cli import main

    assert main(["feedback", "--course-dir", str(hostile_course_dir)]) == 0
    html = hostile_course_dir / "feedback" / "eve" / "01_toy" / "01_toy.html"
    assert "@font-face" not in html.read_text()
    context = chromium.new_context()
    page = context.new_page()
    console = []
    page.on("console", lambda m: console.append(m.text) if m.type in ("error", "warning") else None)
    try:
        page.goto(html.as_uri())
        page.wait_for_timeout(1500)
        pwned = page.evaluate("window.pwned")
        page.screenshot(path=str(SCREENSHOTS / "feedback-hostile.png"), full_page=True)
    finally:
        context.close()
    assert pwned is None
    assert not console, console
