"""A class on one JupyterHub, in a real browser: `course hub` as an instructor starts it.

Two students and an instructor log in with the Unix passwords ``course hub``
gave them. A student fetches 01_rnn from the Assignments tab, types an answer
into its ``generate_batch`` cell, saves, presses Validate and submits it;
the other student cannot read the first's files, the exchange's submissions or
the course directory; students are refused the formgrader and the hub's admin
API; the instructor's own server has the formgrader; ``nbgrader collect`` and
``course grade`` grade the submission, and the feedback released appears in
the student's Assignments tab. Ctrl-C then stops the hub and every server.
Screenshots: ``tests/browser/screenshots/hub-*.png``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from instructor.paths import REPO_ROOT
from tests.browser.test_jupyterlab import OPEN_TIMEOUT_MS, SCREENSHOTS, chromium  # noqa: F401  (fixture)
from tests.hub.harness import INSTRUCTOR, PEOPLE, STUDENTS, processes_of, running_hub
from tests.system import missing, require_sandbox

pytestmark = [pytest.mark.browser]

AMY, BOB = STUDENTS
ASSIGNMENT = "01_rnn"
#: Validate runs the whole notebook in the student's server (quick training under nbgrader's validate mode)
VALIDATE_TIMEOUT_MS = 600_000


@pytest.fixture(scope="module")
def hub():
    if os.geteuid() != 0:
        missing("root (course hub makes Unix accounts and starts servers as their users)")
    for tool in ("configurable-http-proxy", "unshare", "nsenter", "useradd"):
        if not shutil.which(tool):
            missing(tool)
    from instructor.cli import main

    with running_hub() as h:
        assert main(["release-to-exchange", ASSIGNMENT, "--course-dir", str(h.course_dir)]) == 0
        yield h


def log_in(browser, hub, user):
    """A browser of its own for ``user``, logged in, with JupyterLab open; returns (context, page)."""
    context = browser.new_context(viewport={"width": 1400, "height": 800})
    page = context.new_page()
    page.goto(f"{hub.base}/hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", hub.password(user))
    page.click("#login_submit")
    page.locator(".jp-LauncherCard").first.wait_for(timeout=OPEN_TIMEOUT_MS)
    return context, page


def open_assignments(page):
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
    page.locator("#released_assignments_list").wait_for(timeout=OPEN_TIMEOUT_MS)


def shot(page, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"hub-{name}.png"))


def status(page, url) -> int:
    return page.request.get(url, max_redirects=5).status


def answer(task: str = "generate_batch") -> str:
    """The reference answer of 01's ``task`` cell, as a student would type it (no solution markers)."""
    nb = json.loads((REPO_ROOT / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == task)
    lines = "".join(cell["source"]).splitlines()
    return "\n".join(line for line in lines if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))


def saved_cell(hub, task: str) -> str:
    """The source of ``task``'s cell in amy's saved copy of the notebook, read as amy ("" while it is being written)."""
    saved = hub.as_user(AMY, ["cat", f"/home/{AMY}/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"]).stdout
    try:
        cells = json.loads(saved)["cells"]
    except json.JSONDecodeError:  # read while JupyterLab was writing it (a fresh CI run read it empty once)
        return ""
    return "".join(next(c for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == task)["source"])


def nbgrader(hub, *args):
    """An nbgrader command in the course directory, as root (the instructor's `sudo`)."""
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=hub.course_dir,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_wrong_password_is_refused(chromium, hub):  # noqa: F811
    page = chromium.new_page()
    try:
        page.goto(f"{hub.base}/hub/login")
        page.fill("#username_input", AMY)
        page.fill("#password_input", hub.password(AMY) + "x")
        page.click("#login_submit")
        page.locator(".login_error, #login_main .alert").first.wait_for(timeout=30_000)
        assert "/hub/login" in page.url
        assert status(page, f"{hub.base}/hub/api/user") == 403
    finally:
        page.close()


def test_a_term_on_the_hub(chromium, hub):  # noqa: F811
    require_sandbox()  # course grade
    from instructor.cli import main

    amy, amy_page = log_in(chromium, hub, AMY)
    bob, bob_page = log_in(chromium, hub, BOB)
    teach, teach_page = log_in(chromium, hub, INSTRUCTOR)
    try:
        # amy: the Assignments tab, nothing of the instructor's tools
        open_assignments(amy_page)
        menu = amy_page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader")
        menu.click()
        items = [t.strip() for t in amy_page.locator(".lm-Menu-itemLabel").all_inner_texts() if t.strip()]
        amy_page.keyboard.press("Escape")
        assert items == ["Assignment List"], items
        released = amy_page.locator("#released_assignments_list .list_item", has_text=ASSIGNMENT)
        released.locator("button", has_text="Fetch").click()
        fetched = amy_page.locator("#fetched_assignments_list .list_item", has_text=ASSIGNMENT).first
        fetched.wait_for(timeout=OPEN_TIMEOUT_MS)
        shot(amy_page, "student-fetched")

        # Validate, in the fetched notebook: nbgrader's button runs it in amy's server, as amy
        amy_page.goto(f"{hub.base}/user/{AMY}/lab/tree/{ASSIGNMENT}/{ASSIGNMENT}.ipynb?reset")
        amy_page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(timeout=OPEN_TIMEOUT_MS)
        # she answers generate_batch: its cell's text replaced by what she types, then saved
        editor = amy_page.locator(".jp-CodeCell", has_text="def generate_batch").first.locator(".cm-content")
        editor.click()
        amy_page.keyboard.press("Control+a")
        amy_page.keyboard.insert_text(answer())
        amy_page.keyboard.press("Escape")
        amy_page.keyboard.press("Control+s")
        for _ in range(60):  # the save reaches amy's home
            saved = saved_cell(hub, "generate_batch")
            if saved and "NotImplementedError" not in saved:
                break
            amy_page.wait_for_timeout(500)
        assert "np.random" in saved, saved
        shot(amy_page, "student-answered")
        amy_page.locator(".jp-NotebookPanel-toolbar [title='Validate Assignment']").first.click()
        dialog = amy_page.locator(".jp-Dialog")
        dialog.get_by_text(re.compile("Success|failed|error", re.I)).first.wait_for(timeout=VALIDATE_TIMEOUT_MS)
        shot(amy_page, "student-validate")
        report = dialog.inner_text()
        assert "The following cell failed" in report, report[:1000]  # the released notebook is not answered yet
        amy_page.keyboard.press("Escape")
        open_assignments(amy_page)
        fetched = amy_page.locator("#fetched_assignments_list .list_item", has_text=ASSIGNMENT).first
        fetched.locator("button", has_text="Submit").click()
        amy_page.locator("#submitted_assignments_list .list_item", has_text=ASSIGNMENT).first.wait_for(
            timeout=OPEN_TIMEOUT_MS)
        notebook = f"/home/{AMY}/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
        assert hub.as_user(AMY, ["test", "-s", notebook]).returncode == 0

        # bob: neither amy's files, nor the exchange's submissions, nor the course directory
        for path in (notebook, f"/home/{AMY}"):
            denied = hub.as_user(BOB, ["ls", path])
            assert denied.returncode != 0 and "Permission denied" in denied.stderr, denied
        inbound = hub.as_user(BOB, ["ls", str(hub.exchange / "seqmodels" / "inbound")])
        assert inbound.returncode != 0 and "Permission denied" in inbound.stderr, inbound
        course_dir = hub.as_user(BOB, ["ls", str(hub.course_dir)])
        assert course_dir.returncode != 0 and "Permission denied" in course_dir.stderr, course_dir
        release = hub.exchange / "seqmodels" / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        assert "HIDDEN TESTS" not in release.read_text()  # what the exchange hands out holds no hidden test
        # ... nor through the hub: amy's server, the formgrader, the admin API
        assert status(bob_page, f"{hub.base}/user/{AMY}/api/contents/{ASSIGNMENT}") == 403
        assert status(bob_page, f"{hub.base}/user/{INSTRUCTOR}/formgrader") == 403
        assert status(bob_page, f"{hub.base}/user/{BOB}/formgrader") == 404
        assert status(bob_page, f"{hub.base}/hub/api/users") == 403
        assert status(bob_page, f"{hub.base}/hub/admin") == 403

        # the instructor: the formgrader in a tab of its own (JupyterHub >= 4.1 refuses it in a frame)
        teach_page.goto(f"{hub.base}/user/{INSTRUCTOR}/formgrader")
        teach_page.locator("text=Manage Assignments").first.wait_for(timeout=OPEN_TIMEOUT_MS)
        assert status(teach_page, f"{hub.base}/hub/api/users") == 200

        # collect and grade (as root: `sudo` in the instructor's terminal), release feedback
        nbgrader(hub, "collect", ASSIGNMENT)
        assert main(["grade", "--course-dir", str(hub.course_dir), "--assignment", ASSIGNMENT]) == 0
        result = json.loads((hub.course_dir / "results" / AMY / f"{ASSIGNMENT}.json").read_text())
        assert result["status"] == "graded" and result["score"] > 0, result  # her typed answer earned points
        teach_page.goto(f"{hub.base}/user/{INSTRUCTOR}/formgrader/gradebook/{ASSIGNMENT}/{ASSIGNMENT}")
        rows = teach_page.locator("tbody tr")
        rows.filter(has_text="Submission #").first.wait_for(timeout=OPEN_TIMEOUT_MS)
        teach_page.click("#toggle_names")
        rows.filter(has_text="Amy").first.wait_for(timeout=OPEN_TIMEOUT_MS)  # the roster's name, once shown
        shot(teach_page, "instructor-formgrader")
        assert main(["feedback", "--course-dir", str(hub.course_dir)]) == 0
        nbgrader(hub, "release_feedback", ASSIGNMENT)

        # amy reads it in her Assignments tab
        amy_page.reload()
        amy_page.locator(".jp-LauncherCard, .jp-NotebookPanel, #released_assignments_list").first.wait_for(
            timeout=OPEN_TIMEOUT_MS)
        open_assignments(amy_page)
        submitted = amy_page.locator("#submitted_assignments_list .list_item", has_text=ASSIGNMENT).first
        submitted.locator("button", has_text="Fetch Feedback").click()
        amy_page.locator("#submitted_assignments_list a", has_text="view feedback").first.wait_for(
            timeout=OPEN_TIMEOUT_MS)
        shot(amy_page, "student-feedback")
        feedback = hub.as_user(AMY, ["find", f"/home/{AMY}/{ASSIGNMENT}/feedback", "-name", "*.html"])
        assert feedback.stdout.strip(), feedback
    finally:
        for context in (amy, bob, teach):
            context.close()


def test_ctrl_c_stops_the_hub_and_every_server(hub):
    assert processes_of(), "the servers started above should still run"
    assert hub.stop() == 0, hub.log.read_text()[-3000:]
    assert processes_of() == []
    assert not any(PEOPLE[0] in line for line in processes_of())
