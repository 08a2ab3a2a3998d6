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
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat.v4 import new_notebook
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import AssignLatePenalties

from instructor.coursedir import extensions, gradebook
from instructor.grading.chains import run_chain
from instructor.grading.config import grading_config
from instructor.grading.record import SUMMARY, places, write_atomic


@dataclass(frozen=True)
class PenaltyChange:
    """The late penalty of a graded submission before and after its due date changed."""

    before: float
    after: float


def apply_extension(folder: Path, student: str, assignment: str, db: str | None = None) -> PenaltyChange | None:
    """Bring a graded submission in line with ``extensions.json``; None if the gradebook has no such submission."""
    cfg = grading_config(folder, db)
    db_url, course_id = cfg.CourseDirectory.db_url, cfg.CourseDirectory.course_id
    if not gradebook.exists(db_url):
        return None
    with Gradebook(db_url, course_id) as gb:
        try:
            sub = gb.find_submission(assignment, student)
        except MissingEntry:
            return None
        before = sub.late_submission_penalty or 0.0
        # None when the extension was removed: nbgrader then counts from the class's due date again
        sub.extension = extensions.extension_for(folder, student, assignment, sub.assignment.duedate)
        gb.db.commit()
        notebooks = [nb.notebook.name for nb in sub.notebooks]
    for name in notebooks:
        resources = {"nbgrader": {"db_url": db_url, "assignment": assignment, "notebook": name, "student": student}}
        # the penalty is read from and written to the gradebook only: the notebook's cells play no part
        run_chain([AssignLatePenalties], new_notebook(), resources, cfg)
    with Gradebook(db_url, course_id) as gb:
        after = gb.find_submission(assignment, student).late_submission_penalty or 0.0
    _show_in_notebook(folder, student, assignment, after)
    return PenaltyChange(before, after)


def _show_in_notebook(folder: Path, student: str, assignment: str, penalty: float) -> None:
    """Write the new penalty into the autograded notebook's summary (the formgrader's banner), if it has one."""
    autograded = places(folder, student, assignment)[2]
    path = autograded / f"{assignment}.ipynb" if autograded else None
    if path is None or not path.is_file():
        return
    nb = nbformat.read(str(path), as_version=4)
    if SUMMARY not in nb.metadata:  # graded by nbgrader's own autograde: no banner to update
        return
    nb.metadata[SUMMARY]["late_penalty"] = penalty
    write_atomic(path, nbformat.writes(nb))
