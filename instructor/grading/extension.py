"""An extension granted or taken back after grading: the gradebook and the graded notebook follow.

``course extend`` keeps the extension in the course directory
(:mod:`instructor.coursedir.extensions`). For a submission already in the
gradebook, :func:`apply_extension` sets its ``extension`` (nbgrader adds it to
the assignment's due date) and has nbgrader's own ``AssignLatePenalties``
compute each notebook's late penalty again, with the course directory's
late rule; the autograded notebook's summary (what the formgrader shows)
gets the new penalty. A submission not graded yet needs nothing: ``course
grade`` reads the extension when it records the grade
(:func:`instructor.grading.record.record`).

:func:`extend` and :func:`remove_extension` are ``course extend``: the extension
kept, then the gradebook brought in line.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import nbformat
from nbformat.v4 import new_notebook
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import AssignLatePenalties

from instructor.coursedir import extensions, gradebook, journal
from instructor.coursedir.atomic import write_atomic
from instructor.coursedir.course_dir import CourseDir
from instructor.coursedir.extensions import Extension
from instructor.coursedir.roster import roster
from instructor.errors import CourseError
from instructor.grading.chains import run_chain
from instructor.grading.config import grading_config
from instructor.grading.record import SUMMARY


@dataclass(frozen=True)
class PenaltyChange:
    """The late penalty of a graded submission before and after its due date changed."""

    before: float
    after: float


@dataclass(frozen=True)
class Extended:
    """What ``course extend`` did to one student's assignment."""

    extension: Extension  # granted, or taken back
    earlier: Extension | None  # the extension a grant replaced
    change: PenaltyChange | None  # None: not graded yet (`course grade` will use it)
    class_due: datetime | None  # the class's due date (None if it is unset)
    on_roster: bool  # False: someone the roster does not list (the extension is kept all the same)


def extend(
    course_dir: CourseDir,
    student: str,
    assignment: str,
    *,
    until: str | None = None,
    days: str | float | None = None,
    because: str = "",
) -> Extended:
    """Give ``student`` a later due date for ``assignment`` (replacing an earlier one); the grade follows."""
    earlier = extensions.find(course_dir, student, assignment)
    ext = extensions.grant(course_dir, student, assignment, until=until, days=days, because=because)
    listed = roster(course_dir)
    change = apply_extension(course_dir, ext.student, ext.assignment)
    return Extended(ext, earlier, change, due_or_none(course_dir, assignment), listed is None or student in listed)


def remove_extension(course_dir: CourseDir, student: str, assignment: str) -> Extended:
    """Remove ``student``'s extension of ``assignment``; the grade follows the class's due date again."""
    gone = extensions.remove(course_dir, student, assignment)
    change = apply_extension(course_dir, student, assignment)
    return Extended(gone, None, change, due_or_none(course_dir, assignment), True)


def due_or_none(course_dir: CourseDir, assignment: str) -> datetime | None:
    """The class's due date, or None if it was unset since (a removal or a listing still works)."""
    try:
        return extensions.class_due(course_dir, assignment)
    except CourseError:
        return None


def apply_extension(course_dir: CourseDir, student: str, assignment: str) -> PenaltyChange | None:
    """Bring a graded submission in line with ``extensions.json``; None if the gradebook has no such submission."""
    cfg = grading_config(course_dir)
    db_url, course_id = course_dir.gradebook_url, course_dir.course_id
    if not gradebook.exists(db_url):
        return None
    with Gradebook(db_url, course_id) as gb:
        try:
            sub = gb.find_submission(assignment, student)
        except MissingEntry:
            return None
        before = sub.late_submission_penalty or 0.0
        # None when the extension was removed: nbgrader then counts from the class's due date again
        sub.extension = extensions.extension_for(course_dir, student, assignment, sub.assignment.duedate)
        gb.db.commit()
        notebooks = [nb.notebook.name for nb in sub.notebooks]
    for name in notebooks:
        resources = {"nbgrader": {"db_url": db_url, "assignment": assignment, "notebook": name, "student": student}}
        # the penalty is read from and written to the gradebook only: the notebook's cells play no part
        run_chain([AssignLatePenalties], new_notebook(), resources, cfg)
    with Gradebook(db_url, course_id) as gb:
        submission = gb.find_submission(assignment, student)
        after = submission.late_submission_penalty or 0.0
        journal.record(course_dir, *journal.penalty_lines(submission))  # who moved the penalty, and when
    _show_in_notebook(course_dir, student, assignment, after)
    return PenaltyChange(before, after)


def _show_in_notebook(course_dir: CourseDir, student: str, assignment: str, penalty: float) -> None:
    """Write the new penalty into the autograded notebook's summary (the formgrader's banner), if it has one."""
    path = course_dir.autograded_notebook(student, assignment) if course_dir.autograded(student, assignment) else None
    if path is None or not path.is_file():
        return
    nb = nbformat.read(str(path), as_version=4)
    if SUMMARY not in nb.metadata:  # graded by nbgrader's own autograde: no banner to update
        return
    nb.metadata[SUMMARY]["late_penalty"] = penalty
    write_atomic(path, nbformat.writes(nb))
