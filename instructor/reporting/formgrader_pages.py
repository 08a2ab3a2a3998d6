"""What the formgrader offers on the course directory: a Jupyter server extension that `course formgrader` loads.

nbgrader's formgrader is kept; four of its routes answer differently, and one of its steps is skipped:

- **Autograde refuses, on the page and on the server.** nbgrader's button runs
  ``nbgrader autograde --force`` as the user who runs the formgrader: it deletes
  ``autograded/<student>/<a>`` first, then the course's sandbox refuses to run
  student code without root, so a graded submission was lost (the page then
  answered HTTP 500). `course grade` is the one command that grades (sandbox,
  limits, flags, late penalty), so the button is gone from the Manage
  Submissions page, whose note says which command grades, and its API answers
  409 without touching a file, whoever calls it. On the hub a staff server
  has the course's privileged path (``$COURSE_PRIVILEGED``, docs/hub.md): there
  the API grades that one submission through it (``course grade`` as root, in
  the sandbox) and answers with its output.
- **"Flagged?" says what `course grade` flagged**: the list of a notebook's
  submissions (and a student's) marks a submission flagged when its results
  file says ``flagged`` (:mod:`instructor.grading.record`), as well as when
  someone flagged it in the formgrader; `course unflag` clears it.
- **Every grade saved names its grader**: nbgrader's grade API (a hand
  grade, an override, extra credit) writes, besides the gradebook, a line
  into the journal of the account this server runs as
  (:mod:`instructor.coursedir.journal`: opened and checked before nbgrader
  commits, so a journal that cannot be written refuses the save), which
  `course export` checks the gradebook with; an override of an autograded
  test cell also goes into ``<dir>/overrides.json``
  (:mod:`instructor.coursedir.overrides`), which `course export` and
  `course report` show.
- **The course directory stays off the server's path** under
  ``PYTHONSAFEPATH`` (staff servers on the hub): nbgrader's own
  ``init_syspath`` would put it first (:func:`nbgrader_honours_safe_path`).
- **No other course's settings**: ``/formgrader?path=DIR`` would run
  ``DIR/nbgrader_config.py`` in this server (a student's, through a link in
  her notebook); it answers 403 (:class:`CourseDirectoryOnly` in ``_handlers``).
- The submission view itself is the nbconvert template
  ``instructor/reporting/feedback/templates/formgrade/`` (escaped names, a
  policy hashed from the template's text, no one-click full credit).

The rules are put ahead of nbgrader's, so the order in which Jupyter loads the
two extensions does not matter.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PrefixLoader
from tornado import web

from instructor.coursedir import journal
from instructor.errors import CourseError, first_line

if TYPE_CHECKING:
    from instructor.coursedir.course_dir import CourseDir

#: where the .tpl pages the course changes are (nbgrader's own are looked up after them)
TEMPLATES = Path(__file__).resolve().parent / "templates"

#: what the refused Autograde answers
REFUSAL = (
    "The formgrader does not autograde: nbgrader's autograde would delete this student's graded notebook "
    "and then stop, because student code runs only in the course's sandbox. Grade with `course grade` "
    "(as root, e.g. `sudo course grade --course-dir <dir>`), then reload this page."
)


#: set in staff servers on the hub: the script that runs `course grade` as root (instructor.hub.privileged)
PRIVILEGED = "COURSE_PRIVILEGED"


async def grade_through_privileged_path(assignment_id: str, student_id: str) -> tuple[bool, str]:
    """``sudo -n $COURSE_PRIVILEGED grade`` for one submission; (it succeeded, its output).

    The script checks the names; nothing of them reaches a shell.
    """
    script = os.environ[PRIVILEGED]
    args = ["grade", f"--assignment={assignment_id}", f"--student={student_id}", "--force"]
    process = await asyncio.create_subprocess_exec(
        "sudo", "-n", script, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await process.communicate()
    return process.returncode == 0, out.decode(errors="replace")


def _jupyter_server_extension_points():
    # asked for when the server links its extensions, before it loads any: nbgrader's formgrader among them
    nbgrader_honours_safe_path()
    return [{"module": "instructor.reporting.formgrader_pages"}]


def nbgrader_honours_safe_path() -> None:
    """nbgrader puts its working folder first on ``sys.path`` in every app it initialises
    (``NbGrader.init_syspath``), the formgrader in a staff server among them, which runs in the course directory:
    a module there (any member of the staff group writes it) would then be imported by the server of whoever
    runs it (issue 58). Under ``PYTHONSAFEPATH`` (``-P``; staff servers on the hub, root's privileged steps) it
    is left off, as Python and IPython 9.7+ leave it off."""
    import sys

    from nbgrader.apps.baseapp import NbGrader

    original = NbGrader.init_syspath
    if getattr(original, "honours_safe_path", False):
        return

    def init_syspath(self) -> None:
        if not sys.flags.safe_path:
            original(self)

    init_syspath.honours_safe_path = True  # type: ignore[attr-defined]
    NbGrader.init_syspath = init_syspath


def _formgrader():
    """nbgrader's formgrader handlers, imported only when the server loads this extension."""
    from nbgrader.server_extensions.formgrader import apihandlers, handlers

    return handlers, apihandlers


def course_flagged(course_dir: CourseDir, student: str, assignment: str) -> bool:
    """True when `course grade`'s results file for ``student``'s ``assignment`` says ``flagged``."""
    from instructor.coursedir.store import Unreadable
    from instructor.grading.submission import Status, results_at

    try:
        result = results_at(course_dir.result(student, assignment)).read()
    except Unreadable:
        return False
    return result is not None and result.status is Status.FLAGGED


def record_override(course_dir: CourseDir, grade, by: str):
    """Write an override of an autograded cell (``grade``: nbgrader's Grade, just saved) into the overrides,
    unless it holds the same one already; returns the entry, or None if ``grade`` is no override."""
    from instructor.coursedir import overrides

    notebook = grade.notebook
    entry = overrides.override_of(
        course_dir, grade, notebook.student.id, notebook.assignment.name, by=by, seen_by="the formgrader"
    )
    if entry is not None:
        overrides.add(course_dir, entry)  # under the overrides file's lock; the same override is not added twice
    return entry


def grader() -> str:
    """Who saves a grade: the account that runs the formgrader (its uid, never ``$USER``). `course formgrader`
    runs as the instructor and the course hub starts each grader's server as their own account; Jupyter's user
    behind a shared token is a random "Anonymous" name, so it names no one."""
    return journal.account(os.geteuid())


def _handlers():
    from instructor.coursedir.course_dir import CourseDir

    handlers, apihandlers = _formgrader()
    check_xsrf, check_notebook_dir = handlers.check_xsrf, handlers.check_notebook_dir
    nbgrader_pages = FileSystemLoader(handlers.template_path)
    # a course page extends nbgrader's own as "nbgrader/<name>"
    env = Environment(
        loader=ChoiceLoader(
            [FileSystemLoader(str(TEMPLATES)), nbgrader_pages, PrefixLoader({"nbgrader": nbgrader_pages})]
        ),
        autoescape=False,
    )  # as nbgrader's: the course's templates escape what they show

    class CourseTemplates:
        """Render the course's version of a page when it has one, else nbgrader's."""

        def render(self, name, **ns):
            return env.get_template(name).render(**ns)

    class ManageSubmissions(CourseTemplates, handlers.ManageSubmissionsHandler):
        pass

    class CourseDirectoryOnly(handlers.FormgraderHandler):
        """nbgrader's ``/formgrader?path=DIR`` reloads the formgrader's settings from ``DIR/nbgrader_config.py``,
        run as Python in this server: a link in a student's notebook to her own submitted folder ran her file as
        the grader who clicked it (a GET: no XSRF token is asked for; issue 58). Here the formgrader serves the
        course directory it was started on, and a ``path`` is refused."""

        @web.authenticated
        def get(self):
            if self.get_argument("path", ""):
                raise web.HTTPError(403, "the formgrader serves the course directory only: no ?path=")
            super().get()

    class Autograde(apihandlers.BaseApiHandler):
        @web.authenticated
        @check_xsrf
        async def post(self, assignment_id, student_id):
            self.set_header("Content-Type", "application/json")
            if os.environ.get(PRIVILEGED):
                ok, log = await grade_through_privileged_path(assignment_id, student_id)
                if not ok:
                    self.set_status(409)
                self.finish(json.dumps({"success": ok, "error": "" if ok else log[-2000:], "log": log[-20000:]}))
                return
            self.set_status(409)
            self.finish(json.dumps({"success": False, "error": REFUSAL, "log": ""}))

    def flag_from_results(handler, rows, student=None):
        root = CourseDir.places_at(Path(handler.coursedir.root))
        for row in rows:
            who = student or row.get("student")
            if who and not row.get("flagged") and course_flagged(root, who, row.get("assignment") or ""):
                row["flagged"] = True
        return rows

    class Grade(apihandlers.GradeHandler):
        @web.authenticated
        @check_xsrf
        @check_notebook_dir
        def put(self, grade_id):
            course_dir = CourseDir.places_at(Path(self.coursedir.root))
            try:
                # this server's account's own journal, opened (and checked) before nbgrader commits anything
                with journal.writer(course_dir) as journalled:
                    super().put(grade_id)  # nbgrader saves the grade and answers with it
                    grade = self.gradebook.find_grade_by_id(grade_id)
                    journalled.write(journal.hand_line(grade))
            except CourseError as err:
                raise web.HTTPError(500, reason=first_line(err)) from None
            record_override(course_dir, grade, grader())

    class NotebookSubmissions(apihandlers.BaseApiHandler):
        @web.authenticated
        @check_xsrf
        @check_notebook_dir
        def get(self, assignment_id, notebook_id):
            rows = _of_assignment(self.api.get_notebook_submissions(assignment_id, notebook_id), assignment_id)
            self.write(json.dumps(flag_from_results(self, rows)))

    class StudentNotebookSubmissions(apihandlers.BaseApiHandler):
        @web.authenticated
        @check_xsrf
        @check_notebook_dir
        def get(self, student_id, assignment_id):
            rows = _of_assignment(self.api.get_student_notebook_submissions(student_id, assignment_id), assignment_id)
            self.write(json.dumps(flag_from_results(self, rows, student_id)))

    return [
        (r"/formgrader/?", CourseDirectoryOnly),
        (r"/formgrader/manage_submissions/([^/]+)/?", ManageSubmissions),
        (r"/formgrader/api/submission/([^/]+)/([^/]+)/autograde", Autograde),
        (r"/formgrader/api/grade/([^/]+)", Grade),
        (r"/formgrader/api/submitted_notebooks/([^/]+)/([^/]+)", NotebookSubmissions),
        (r"/formgrader/api/student_notebook_submissions/([^/]+)/([^/]+)", StudentNotebookSubmissions),
    ]


def _load_jupyter_server_extension(server_app):
    """Add the course's routes ahead of every other (nbgrader's formgrader among them)."""
    from jupyter_server.utils import url_path_join

    nbgrader_honours_safe_path()  # again, should a server load this without linking it first

    web_app = server_app.web_app
    base_url = web_app.settings.get("base_url", "/")
    rules = [(url_path_join(base_url, pattern.lstrip("/")), handler) for pattern, handler in _handlers()]
    before = list(web_app.default_router.rules)
    web_app.add_handlers(".*$", rules)
    added = [rule for rule in web_app.default_router.rules if rule not in before]
    for rule in added:
        web_app.default_router.rules.remove(rule)
    web_app.default_router.rules[0:0] = added
    server_app.log.info("course formgrader pages: Autograde refused (use `course grade`), flags from course grade")


def _of_assignment(rows: list[dict], assignment_id: str) -> list[dict]:
    """nbgrader's submission rows, each naming its assignment (the flags are looked up by it)."""
    for row in rows:
        row.setdefault("assignment", assignment_id)
    return rows
