"""A person clears the flags of a graded submission after looking at it (``course unflag``).

The clearing is recorded (:mod:`instructor.coursedir.reviews`), the results
file says ``graded`` with a note of who cleared what and why, and the
gradebook's "needs manual grade" marks that the flag set are taken back
(a written answer nobody has graded keeps its mark). A later regrade of the
same bytes that finds no new flag keeps the clearing (:func:`instructor.grading.record.record`).
"""

from __future__ import annotations

import dataclasses
import getpass
from datetime import UTC, datetime

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from instructor.coursedir import reviews
from instructor.coursedir.atomic import write_atomic
from instructor.coursedir.course_dir import CourseDir
from instructor.coursedir.store import Unreadable
from instructor.errors import CourseError
from instructor.grading.record import SUMMARY, grader_brief
from instructor.grading.submission import Result, Status, result_file


def unflag(course_dir: CourseDir, student: str, assignment: str, because: str, by: str | None = None) -> Result:
    """Clear every flag of ``student``'s ``assignment``; returns the new result. Raises CourseError if none."""
    if not because.strip():
        raise CourseError("say why the flags are cleared (--because TEXT): the reason is kept with the grade.")
    results = result_file(course_dir, student, assignment)
    autograded = course_dir.autograded(student, assignment)
    try:
        result = results.read()
    except Unreadable:
        result = None
    if result is None:
        missing = f"{student}/{assignment} has no recorded grade in {course_dir.path}: run `course grade` first."
        raise CourseError(missing) from None
    if result.status is not Status.FLAGGED:
        raise CourseError(f"{student}/{assignment} is not flagged (it is {result.status.shown}); nothing to clear.")
    entry = reviews.Clearing(
        flags=list(result.flags),
        submission_sha256=result.fingerprint.get("submission_sha256", ""),
        by=by or getpass.getuser(),
        at=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        because=" ".join(because.split())[:300],
    )
    reviews.add(course_dir, student, assignment, entry)
    _unmark(course_dir.gradebook_url, student, assignment)
    cleared = dataclasses.replace(result, status=Status.GRADED, reason="", notes=[*result.notes, reviews.note(entry)])
    notebook = autograded / f"{assignment}.ipynb" if autograded else None
    if notebook is not None and notebook.is_file():  # what the formgrader shows above the submission
        nb = nbformat.read(str(notebook), as_version=4)
        nb.metadata[SUMMARY] = grader_brief(cleared, nb.metadata.get(SUMMARY, {}).get("late_penalty", 0.0))
        write_atomic(notebook, nbformat.writes(nb))
    results.write(cleared)
    return cleared


def _unmark(db_url: str, student: str, assignment: str) -> None:
    """Take back "needs manual grade" where only the flag put it: cells with an autograde and no hand grade."""
    with Gradebook(db_url) as gb:
        try:
            graded = gb.find_submission_notebook(assignment, assignment, student)
        except MissingEntry:
            return
        for grade in graded.grades:
            if grade.manual_score is None and grade.auto_score is not None:
                grade.needs_manual_grade = False
        gb.db.commit()
