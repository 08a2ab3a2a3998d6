"""A class on one JupyterHub, in a real browser: `course hub` as an instructor starts it.

Two students, an instructor and a grader log in with the Unix passwords
``course hub`` gave them, and run the term as docs/hub.md gives it, the staff
from their own JupyterLab terminals and formgraders, never as root: the
instructor releases, a student fetches 01_rnn, answers ``generate_batch``,
validates and submits; the other student can read and change nothing of hers,
of the exchange or of the course directory, and sudo refuses him the staff's
privileged path; the grader collects, grades (terminal and the formgrader's
Autograde) and hand grades; the instructor writes and releases feedback and
exports; the student fetches her feedback. Each staff step's
time is printed and written to ``tests/browser/screenshots/hub-staff-term.json``.
Ctrl-C then stops the hub and every server.
Screenshots: ``tests/browser/screenshots/hub-*.png``.
"""

from __future__ import annotations

import json
import os
import re
import time

import pytest

from instructor.paths import REPO_ROOT
from tests.browser.test_jupyterlab import OPEN_TIMEOUT_MS, SCREENSHOTS, chromium  # noqa: F401  (fixture)
from tests.hub.harness import GRADER, INSTRUCTOR, PEOPLE, STUDENTS, processes_of, running_hub
from tests.system import require_root, require_sandbox, require_tools

pytestmark = [pytest.mark.browser]

AMY, BOB = STUDENTS
ASSIGNMENT = "01_rnn"
#: Validate runs the whole notebook in the student's server (quick training under nbgrader's validate mode)
VALIDATE_TIMEOUT_MS = 600_000


@pytest.fixture(scope="module")
def hub():
    require_root("course hub makes Unix accounts and starts servers as their users")
    require_tools("configurable-http-proxy", "unshare", "nsenter", "useradd")
    with running_hub() as h:
        yield h


def hand_grade(page, box, value: str):
    """Type ``value`` into the formgrader's score ``box`` and leave it; returns the response to its save (PUT).

    The formgrader saves on the box's change event, which its scripts bind after the page has drawn the box: on
    a loaded machine a first entry can come before them and nothing is saved (a full run at load 3-6 waited
    120 s for a PUT that never came). Until a save answers, the box is emptied and filled again.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    deadline = time.monotonic() + OPEN_TIMEOUT_MS / 1000
    attempt = 0
    while True:
        try:
            with page.expect_response(
                lambda r: "/formgrader/api/grade/" in r.url and r.request.method == "PUT", timeout=20_000
            ) as saved:
                if attempt:  # a change the scripts now see: empty, leave, then the value again
                    box.fill("")
                    box.press("Tab")
                box.fill(value)
                box.press("Tab")
            return saved.value
        except PlaywrightTimeout:
            attempt += 1
            if time.monotonic() > deadline:
                raise


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


#: dialogs a terminal step closed (printed with the term's times)
DIALOGS: list[str] = []


class Terminal:
    """A JupyterLab terminal in ``user``'s own server, typed into as they would; each command's output is
    sent to a file in their home, read back as them (the terminal draws on a canvas)."""

    def __init__(self, hub, page, user):
        self.hub, self.page, self.user, self.count = hub, page, user, 0
        page.goto(f"{hub.base}/user/{user}/lab")
        page.locator(".jp-LauncherCard").get_by_text("Terminal", exact=True).first.click()
        page.locator(".jp-Terminal").first.wait_for(timeout=OPEN_TIMEOUT_MS)
        page.wait_for_timeout(2000)  # the shell's prompt

    def run(self, command: str, timeout: float = 900) -> tuple[str, float]:
        """``command`` typed and run; returns (its output, seconds it took); fails if it exits non-zero."""
        self.count += 1
        log = f"/home/{self.user}/.term-{self.count}.log"
        # JupyterLab's file browser, refreshed while root's step had the course directory, may have raised a
        # "Directory not found" dialog over the terminal (seen twice at load 3-6): it is the browser's, not the
        # step's, so it is closed and named, and the command is typed as before
        for dialog in self.page.locator(".jp-Dialog").all():
            DIALOGS.append(f"{self.user}: {dialog.inner_text()[:200]}")
            self.page.keyboard.press("Escape")
        self.page.locator(".jp-Terminal").first.click()
        started = time.monotonic()
        self.page.keyboard.type(f'{command} > {log} 2>&1; echo "exit=$?" >> {log}\n')
        while time.monotonic() - started < timeout:
            output = self.hub.as_user(self.user, ["cat", log]).stdout
            if "exit=" in output:
                seconds = time.monotonic() - started
                text, _, status = output.rpartition("exit=")
                assert status.strip() == "0", f"{self.user}$ {command}\n{output[-3000:]}"
                TERM.append({"who": self.user, "step": command, "seconds": round(seconds, 1)})
                return text, seconds
            time.sleep(1)
        raise AssertionError(f"{self.user}$ {command} did not end within {timeout:.0f} s")


#: the formgrader's own call of its Autograde API (POST with the page's XSRF cookie), from the page
AUTOGRADE = """async (url) => {
  const xsrf = (document.cookie.match(/_xsrf=([^;]+)/) || [])[1] || "";
  const reply = await fetch(url, {method: "POST", headers: {"X-XSRFToken": decodeURIComponent(xsrf)}});
  return [reply.status, await reply.text()];
}"""

#: the staff's term as the test walked it: who ran which command, how long it took
TERM: list[dict] = []


def test_a_term_on_the_hub(chromium, hub):  # noqa: F811
    """The term as staff live it: the instructor and the grader, not root, each from their own server."""
    require_sandbox()  # course grade, through the privileged path

    amy, amy_page = log_in(chromium, hub, AMY)
    bob, bob_page = log_in(chromium, hub, BOB)
    teach, teach_page = log_in(chromium, hub, INSTRUCTOR)
    grader, grader_page = log_in(chromium, hub, GRADER)
    try:
        # the instructor releases from her terminal: `course` reaches root through the privileged path
        teach_term = Terminal(hub, teach_page, INSTRUCTOR)
        out, _ = teach_term.run(f"course release-to-exchange {ASSIGNMENT}")
        assert "through the course's privileged path" in out, out
        release = hub.exchange / "seqmodels" / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        assert os.lstat(release).st_uid == 0 and "HIDDEN TESTS" not in release.read_text()

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
            timeout=OPEN_TIMEOUT_MS
        )
        notebook = f"/home/{AMY}/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
        assert hub.as_user(AMY, ["test", "-s", notebook]).returncode == 0

        # bob: neither amy's files, nor the exchange's submissions, nor the course directory
        for path in (notebook, f"/home/{AMY}"):
            denied = hub.as_user(BOB, ["ls", path])
            assert denied.returncode != 0 and "Permission denied" in denied.stderr, denied
        course = hub.exchange / "seqmodels"
        inbound = hub.as_user(BOB, ["ls", str(course / "inbound")])
        assert inbound.returncode != 0 and "Permission denied" in inbound.stderr, inbound
        course_dir = hub.as_user(BOB, ["ls", str(hub.course_dir)])
        assert course_dir.returncode != 0 and "Permission denied" in course_dir.stderr, course_dir
        # ... nor take the exchange over (issue 42.1), nor use the staff's way to root
        for attack in (["mv", str(course), f"{hub.exchange}/old"], ["mkdir", f"{course}/outbound/planted"]):
            denied = hub.as_user(BOB, attack)
            assert denied.returncode != 0 and "Permission denied" in denied.stderr, denied
        print(hub.as_user(BOB, ["ls", "-la", str(hub.exchange), str(course), str(course / "outbound")]).stdout)
        sudo = hub.as_user(BOB, ["sudo", "-n", str(hub.hub_dir / "bin" / "course-privileged"), "collect", ASSIGNMENT])
        assert sudo.returncode != 0 and "password is required" in sudo.stderr, sudo
        # ... nor through the hub: amy's server, the formgrader, the admin API
        assert status(bob_page, f"{hub.base}/user/{AMY}/api/contents/{ASSIGNMENT}") == 403
        assert status(bob_page, f"{hub.base}/user/{INSTRUCTOR}/formgrader") == 403
        assert status(bob_page, f"{hub.base}/user/{BOB}/formgrader") == 404
        assert status(bob_page, f"{hub.base}/hub/api/users") == 403
        assert status(bob_page, f"{hub.base}/hub/admin") == 403

        # the grader collects and grades from his terminal (root's steps through the privileged path)
        grader_term = Terminal(hub, grader_page, GRADER)
        grader_term.run(f"sudo $COURSE_PRIVILEGED collect {ASSIGNMENT}")
        assert (hub.course_dir / "submitted" / AMY / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file()
        grader_term.run("course grade")
        result = json.loads((hub.course_dir / "results" / AMY / f"{ASSIGNMENT}.json").read_text())
        assert result["status"] == "graded" and result["score"] > 0, result  # her typed answer earned points

        # ... and hand grades her written answer in his formgrader (its own tab: JupyterHub >= 4.1 refuses frames)
        started = time.monotonic()
        grader_page.goto(f"{hub.base}/user/{GRADER}/formgrader/gradebook/{ASSIGNMENT}/{ASSIGNMENT}")
        # the formgrader's Autograde (its API) grades through the privileged path too
        url = f"{hub.base}/user/{GRADER}/formgrader/api/submission/{ASSIGNMENT}/{AMY}/autograde"
        code, body = grader_page.evaluate(AUTOGRADE, url)
        assert code == 200 and json.loads(body)["success"], (code, body[-3000:])
        TERM.append(
            {"who": GRADER, "step": f"formgrader: Autograde {AMY}", "seconds": round(time.monotonic() - started, 1)}
        )
        started = time.monotonic()
        grader_page.goto(f"{hub.base}/user/{GRADER}/formgrader/gradebook/{ASSIGNMENT}/{ASSIGNMENT}")
        rows = grader_page.locator("tbody tr")
        rows.filter(has_text="Submission #").first.wait_for(timeout=OPEN_TIMEOUT_MS)
        grader_page.click("#toggle_names")
        rows.filter(has_text="Amy").first.wait_for(timeout=OPEN_TIMEOUT_MS)  # the roster's name, once shown
        shot(grader_page, "grader-formgrader")
        link = rows.filter(has_text="Amy").first.locator("a", has_text="Submission #").first.get_attribute("href")
        grader_page.goto(f"{hub.base}{link}")
        box = grader_page.locator("input.score#why_rnn_fails")
        box.wait_for(timeout=OPEN_TIMEOUT_MS)
        saved = hand_grade(grader_page, box, "1")
        assert saved.status == 200, (saved.status, saved.text()[-2000:])
        shot(grader_page, "grader-hand-grade")
        TERM.append(
            {
                "who": GRADER,
                "step": "formgrader: hand grade why_rnn_fails = 1",
                "seconds": round(time.monotonic() - started, 1),
            }
        )
        from nbgrader.api import Gradebook

        for _ in range(60):  # a retried save: the last PUT may land a moment after the first answered
            with Gradebook(f"sqlite:///{hub.course_dir / 'gradebook.db'}") as gb:
                if gb.find_grade("why_rnn_fails", ASSIGNMENT, ASSIGNMENT, AMY).manual_score == 1.0:
                    break
            time.sleep(1)
        else:
            raise AssertionError("the formgrader's hand grade of why_rnn_fails never reached the gradebook")

        # the instructor: feedback, released to the exchange, and the export, from her terminal
        teach_term.run("course feedback")
        teach_term.run(f"sudo $COURSE_PRIVILEGED release-feedback {ASSIGNMENT}")
        teach_term.run("course export")
        assert AMY in (hub.course_dir / "grades.csv").read_text()
        assert status(teach_page, f"{hub.base}/hub/api/users") == 200

        # amy reads it in her Assignments tab
        amy_page.reload()
        amy_page.locator(".jp-LauncherCard, .jp-NotebookPanel, #released_assignments_list").first.wait_for(
            timeout=OPEN_TIMEOUT_MS
        )
        open_assignments(amy_page)
        submitted = amy_page.locator("#submitted_assignments_list .list_item", has_text=ASSIGNMENT).first
        submitted.locator("button", has_text="Fetch Feedback").click()
        view = amy_page.locator("#submitted_assignments_list a", has_text="view feedback").first
        view.wait_for(timeout=OPEN_TIMEOUT_MS)
        view.click()
        amy_page.wait_for_timeout(3000)
        shot(amy_page, "student-feedback")
        feedback = hub.as_user(AMY, ["find", f"/home/{AMY}/{ASSIGNMENT}/feedback", "-name", "*.html"])
        assert feedback.stdout.strip(), feedback
    finally:
        for context in (amy, bob, teach, grader):
            context.close()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        (SCREENSHOTS / "hub-staff-term.json").write_text(json.dumps(TERM, indent=1) + "\n")
        print(json.dumps(TERM, indent=1))
        print("dialogs closed:", DIALOGS or "none")


def test_ctrl_c_stops_the_hub_and_every_server(hub):
    assert processes_of(), "the servers started above should still run"
    started = time.monotonic()
    assert hub.stop() == 0, hub.log.read_text()[-3000:]
    print(f"Ctrl-C to the end of course hub: {time.monotonic() - started:.1f} s")  # measured, not asserted
    assert processes_of() == []
    assert not any(PEOPLE[0] in line for line in processes_of())
