"""Where a course directory keeps its gradebook, and what the course asks of it.

The URL is worked out once, when a command opens the course directory
(:attr:`instructor.coursedir.course_dir.CourseDir.gradebook_url`: ``--db``,
else the directory's setting, else SQLite inside it), so that SQLite in the
course directory and a shared server (PostgreSQL) are one setting apart.
"""

from __future__ import annotations

import functools
import warnings
from datetime import datetime
from pathlib import Path

import nbgrader.api
from alembic.script import ScriptDirectory
from nbgrader.api import Gradebook, MissingEntry, SubmittedAssignment
from nbgrader.dbutil import ALEMBIC_DIR
from nbgrader.utils import is_grade, is_locked, is_solution, is_task
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SAWarning

from instructor.cells import grade_id
from instructor.errors import CourseError, first_line

# nbgrader 0.9 trips SQLAlchemy 2's autoflush warnings on every autograde; they say nothing to an instructor
warnings.filterwarnings("ignore", category=SAWarning, module="nbgrader")

#: the default: an SQLite file inside the course directory (nbgrader's own default name)
SQLITE_NAME = "gradebook.db"


@functools.cache
def schema_version() -> str:
    """The revision a new gradebook is stamped with: the head of nbgrader's migrations, as ``alembic heads`` says.

    nbgrader asks a new ``alembic heads`` process for it (``nbgrader.api.get_alembic_version``), which imports
    nbgrader again: 2.5 s of CPU for every new gradebook, as long as grading a submission. alembic's own API
    reads the same migration scripts in this process in 0.1 s, and once per process.
    """
    head = ScriptDirectory(ALEMBIC_DIR).get_current_head()
    if head is None:  # nbgrader ships its migrations: none would be a broken install, not a new gradebook
        raise CourseError(f"nbgrader's gradebook migrations were not found in {ALEMBIC_DIR}: reinstall nbgrader.")
    return head


# every new gradebook of this process, the course's and nbgrader's own (Gradebook() makes it), gets its version here
nbgrader.api.get_alembic_version = schema_version


def exists(db_url: str) -> bool:
    """False for an SQLite file not made yet (nothing graded); a server's database is taken as there."""
    return not db_url.startswith("sqlite:///") or Path(db_url[len("sqlite:///") :]).exists()


def require_server(db: str | None) -> None:
    """For ``--db URL``: one sentence if the database cannot be opened (nothing to check for SQLite)."""
    if not db:
        return
    try:
        shown = make_url(db).render_as_string(hide_password=True)
    except Exception:  # SQLAlchemy raises several types for a malformed URL
        raise CourseError(f"--db {db!r} is not a database URL (e.g. postgresql://user@host/seqmodels).") from None
    try:
        engine = create_engine(db)
        with engine.connect():
            pass
        engine.dispose()
    except Exception as err:  # driver errors come in many types; the first line says enough
        raise CourseError(f"cannot open the gradebook database {shown} ({first_line(err)}).") from None


# --------------------------------------------------------------------------- what the course reads


def is_pending(grade) -> bool:
    """True for a grade nobody has given yet: no autograde score, no manual score.

    Written answers are never autograded, so they stay pending until a grader
    scores them in the formgrader.
    """
    return grade.auto_score is None and grade.manual_score is None


def pending_points(notebook_or_submission) -> float:
    """The points of a submitted notebook (or assignment) that wait for a grader."""
    notebooks = getattr(notebook_or_submission, "notebooks", [notebook_or_submission])
    return float(sum(g.max_score for nb in notebooks for g in nb.grades if is_pending(g)))


def recorded_cells(db_url: str, assignment: str) -> tuple[set[str], dict[str, str]] | None:
    """What the gradebook holds of an assignment that already has submissions, else None.

    (every nbgrader cell's ``grade_id``, {``grade_id``: source} of the graded code cells).
    """
    if not exists(db_url):
        return None
    with Gradebook(db_url) as gb:
        try:
            notebook = gb.find_notebook(assignment, assignment)
        except MissingEntry:
            return None
        if not notebook.submissions:
            return None
        graded = {c.name for c in notebook.grade_cells if c.cell_type == "code"}
        return (
            {c.name for c in notebook.source_cells},
            {c.name: c.source for c in notebook.source_cells if c.name in graded},
        )


def refused_cells(assignment: str, recorded: tuple[set[str], dict[str, str]] | None, nb) -> str:
    """Why nbgrader would refuse the source notebook ``nb`` of ``assignment`` whose gradebook holds ``recorded``
    (:func:`recorded_cells`), in one sentence; "" if it would not.

    Once submissions are recorded, nbgrader cannot add or remove the cells it
    records (graded, solution, locked, task cells). Nothing is read here.
    """
    if recorded is None:
        return ""
    new = {
        gid for c in nb.cells if (gid := grade_id(c)) and (is_grade(c) or is_solution(c) or is_locked(c) or is_task(c))
    }
    old = recorded[0]
    if new == old:
        return ""
    removed, added = ", ".join(sorted(old - new)) or "none", ", ".join(sorted(new - old)) or "none"
    return (
        f"{assignment} cannot be regraded: its nbgrader cells changed after submissions were recorded "
        f"(removed: {removed}; added: {added}), which nbgrader refuses; put the cells back, "
        f"or grade in a new course directory (`course init DIR`)."
    )


def changed_tests(
    assignment: str, before: tuple[set[str], dict[str, str]] | None, after: tuple[set[str], dict[str, str]] | None
) -> list[str]:
    """One line per graded test cell of ``assignment`` whose code the gradebook holds changed from ``before``
    to ``after`` (each as :func:`recorded_cells` gives it); nothing is read here."""
    if before is None or after is None:
        return []
    old_tests, new_tests = before[1], after[1]
    changed = sorted(k for k, src in new_tests.items() if k in old_tests and old_tests[k] != src)
    return [
        f"{assignment}: test cell {k} changed since submissions were graded; they are graded "
        f"with the new code (hand grades kept; the cell as students received it is no edit)"
        for k in changed
    ]


def in_gradebook(db_url: str) -> set[tuple[str, str]]:
    """(student, assignment) of every submission the gradebook holds."""
    if not exists(db_url):
        return set()
    with Gradebook(db_url) as gb:
        return {(s.student.id, s.assignment.name) for s in gb.db.query(SubmittedAssignment).all()}


def due_dates(db_url: str) -> dict[str, datetime | None]:
    """{assignment: its due date (naive UTC), None without one} of every assignment the gradebook holds."""
    if not exists(db_url):
        return {}
    with Gradebook(db_url) as gb:
        return {a.name: a.duedate for a in gb.assignments}


def forget(db_url: str, student: str, assignment: str) -> bool:
    """Remove a student's submission of an assignment, if the gradebook has one; True if it had one."""
    if not exists(db_url):  # nothing was ever recorded: nothing to forget
        return False
    with Gradebook(db_url) as gb:
        try:
            gb.remove_submission(assignment, student)
        except MissingEntry:
            return False
        return True


def has_assignment(db_url: str, assignment: str) -> bool:
    """True if the gradebook records ``assignment`` (with or without submissions)."""
    if not exists(db_url):
        return False
    with Gradebook(db_url) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            return False
        return True


def forget_assignment(db_url: str, assignment: str) -> None:
    """Remove ``assignment`` from the gradebook if it is there and nobody has submitted it (a failed release)."""
    if not exists(db_url):
        return
    with Gradebook(db_url) as gb:
        try:
            found = gb.find_assignment(assignment)
        except MissingEntry:
            return
        if not found.submissions:
            gb.remove_assignment(assignment)
