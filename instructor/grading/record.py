"""Stage 5, record: only the coordinating process writes what grading found.

For each graded submission: what it changes is decided from it and the
class's state alone (:func:`decide`, no I/O); then, in a crash-safe order,
its results file is removed (so a kill from here on leaves a submission the
next run grades again), the gradebook commits (the
:data:`~instructor.grading.chains.RECORD` chain: scores, hand grades kept,
late penalty) and its scores go into the grading account's journal
(:mod:`instructor.coursedir.journal`), the autograded notebook and the log are written, and the new
results file appears last, atomically. The course directory is read and
written in one place (:mod:`instructor.coursedir.recorded`, which says why
the gradebook sits between its two writes, and names the three places);
everything here is worked out between them. nbgrader's unique constraints
(one submission per student and assignment, one grade per cell) make a
second record an update, never a doubled row.
"""

from __future__ import annotations

import hashlib
import traceback
from dataclasses import dataclass
from datetime import timedelta

import nbformat
from nbgrader.api import Gradebook
from nbgrader.utils import parse_utc

from instructor.coursedir import journal, overrides, recorded, reviews
from instructor.coursedir.course_dir import CourseDir
from instructor.coursedir.ids import is_student_id
from instructor.coursedir.recorded import ANSWERS, Seen
from instructor.coursedir.store import Unreadable
from instructor.errors import first_line
from instructor.grading.chains import RECORD, run_chain
from instructor.grading.class_state import ClassState
from instructor.grading.config import grading_config
from instructor.grading.submission import Result, Status, Submission, result_file, results_at

#: files of an exchange submission that nbgrader's feedback commands need beside the autograded notebook
EXCHANGE_FILES = ("timestamp.txt", "submission_secret.txt")


@dataclass(frozen=True)
class Recorded:
    """What recording one graded submission changes, decided from it and the class's state alone (no I/O)."""

    #: the note of a person's clearing that covers this very submission's flags: it ends graded ("" if none)
    cleared: str = ""
    #: its grade goes into the gradebook and autograded/ (False: an old grade there is removed)
    keeps_grade: bool = False
    #: what nbgrader adds to the class's due date for this student (None: no extension)
    extension: timedelta | None = None


def decide(sub: Submission, state: ClassState) -> Recorded:
    """What recording ``sub`` changes, given the class as the run read it (:class:`Recorded`); reads nothing.

    A flagged submission whose bytes and flags a person already cleared
    ends graded, with a note; one without a grade, or under a name that is
    no valid id, keeps none; the extension is the student's own, if any.
    Raises :class:`~instructor.coursedir.store.Unreadable` when a grade is to
    be kept and ``extensions.json`` could not be read (the penalty would be wrong).
    """
    cleared = ""
    if sub.status is Status.FLAGGED:
        entry = state.clearing(sub)
        cleared = reviews.note(entry) if entry is not None else ""
    status = Status.GRADED if cleared else sub.status
    keeps = status.has_grade and is_student_id(sub.student) and is_student_id(sub.assignment)
    if keeps and state.extensions_unreadable:
        raise Unreadable(state.extensions_unreadable)
    return Recorded(cleared, keeps, state.extension(sub.key) if keeps else None)


def record(course_dir: CourseDir, sub: Submission, state: ClassState) -> Result:
    """Record one graded submission in the documented order (see the module doc); returns what the results file holds.

    What changes is :func:`decide`'d first from ``state`` (the class as the run read it), without I/O.
    """
    change = decide(sub, state)
    if change.cleared:
        sub.note(change.cleared)
        sub.end(Status.GRADED)
    # The gradebook sits between two writes of the course directory: its commit must follow the removal of
    # the results file (a kill after it must not leave a results file that says the old grade is up to date),
    # and what is written after depends on it (the late penalty, the hand grades taken back). So:
    # 1. the results file removed, and what a grader saw read before the notebook is replaced
    seen = recorded.clear(course_dir, sub.student, sub.assignment)
    # 2. the gradebook commits (nbgrader's RECORD chain); what the directory will hold is worked out
    files = _with_grade(course_dir, sub, change, seen) if change.keeps_grade else recorded.Files("\n".join(sub.log))
    result, results = sub.result(), result_file(course_dir, sub.student, sub.assignment)
    # 3. the autograded notebook (or its removal) and the log; 4. the results file last
    recorded.write(course_dir, sub.student, sub.assignment, files, results, result)
    return result


def _with_grade(course_dir: CourseDir, sub: Submission, change: Recorded, seen: Seen) -> recorded.Files:
    """The gradebook entry of ``sub`` committed; what it leaves in the course directory (its notebook scored)."""
    if sub.notebook is None:
        raise ValueError(f"{sub.student}'s {sub.assignment} has a grade but no graded notebook")
    sub.notebook.metadata[ANSWERS] = answers(sub.notebook)
    penalty = _into_gradebook(course_dir, sub, change.extension, seen)
    sub.notebook.metadata[SUMMARY] = grader_brief(sub.result(), penalty)
    return recorded.Files("\n".join(sub.log), nbformat.writes(sub.notebook), _exchange_files(sub))


def record_failure(course_dir: CourseDir, sub: Submission, err: Exception, state: ClassState) -> Result:
    """Record ``sub`` as ``grader failed`` after :func:`record` raised ``err`` (retried by the next run).

    Nothing it half wrote counts: the gradebook entry and the autograded copy are removed.
    """
    sub.log.append(traceback.format_exc())
    sub.flags, sub.notebook = [], None
    sub.end(Status.GRADER_FAILED, f"the grader could not record this submission ({first_line(err)})")
    return record(course_dir, sub, state)


#: the autograded notebook's record of how grading ended, for the grader who opens it (the formgrader shows it)
SUMMARY = "course_grading"


def grader_brief(result: Result, late_penalty: float) -> dict:
    """What a grader should know before reading the submission: status, flags, notes, late penalty."""
    return {
        "status": result.status.shown,
        "flags": list(result.flags) if result.status is Status.FLAGGED else [],
        "notes": list(result.notes),
        "late_penalty": late_penalty,
        "timestamp": result.timestamp,
    }


#: how the note of a hand grade taken back starts (the grade table and the CSV show it)
ANSWER_CHANGED = "written answer changed since it was graded by hand"
#: how the note of an override taken back starts: the answer its test cell checks changed since
OVERRIDE_CHANGED = "answer changed since a grader overrode its check"


def answers(nb) -> dict[str, str]:
    """grade_id -> sha256 of the source of each answer a person grades (a graded cell the student writes)."""
    return {
        c.metadata["nbgrader"]["grade_id"]: hashlib.sha256(c.source.encode()).hexdigest()
        for c in nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade")
        and c.metadata["nbgrader"].get("solution")
        and c.metadata["nbgrader"].get("grade_id")
    }


def _take_back_changed_answers(gb, sub: Submission, seen: Seen) -> list[overrides.Change]:
    """A hand grade given to an answer that this submission changed goes back to "needs grading" (and the overrides).

    ``seen``: the written answers' hashes a grader saw and, for each test cell, the hash of the answer
    it checks (:func:`~instructor.coursedir.overrides.credited_answers`), so that an override of a test
    cell is taken back too when the answer it credited changed: the cell keeps its autograded score and
    waits for a grader again. Returns the entries for overrides.json (the caller notes them right after).
    """
    now, credited = answers(sub.notebook), overrides.credited_answers(sub.notebook)
    changed = {gid for gid, digest in seen.answers.items() if gid in now and now[gid] != digest}
    moved = {gid for gid, digest in seen.credited.items() if gid in credited and credited[gid] != digest}
    if not changed and not moved:
        return []
    notebook = gb.find_submission_notebook(sub.assignment, sub.assignment, sub.student)
    taken, notes = [], []
    for grade in notebook.grades:
        if grade.manual_score is None:
            continue
        if grade.name in changed and grade.auto_score is None:
            what, answer = "hand grade reset", ""
            note = f"{ANSWER_CHANGED}: {grade.name} ({grade.manual_score:g} points taken back)"
        elif grade.name in moved and grade.auto_score is not None:
            what, answer = "override reset", seen.credited[grade.name]
            note = (
                f"{OVERRIDE_CHANGED}: {grade.name} ({grade.manual_score:g} points given by hand taken back, "
                f"{grade.auto_score:g} autograded)"
            )
        else:
            continue
        taken.append(
            overrides.Change(
                student=sub.student,
                assignment=sub.assignment,
                cell=grade.name,
                from_=grade.manual_score,
                to=None,
                by="course grade",
                at=overrides.now(),
                what=what,
                answer=answer,
            )
        )
        notes.append(note)
        grade.manual_score, grade.needs_manual_grade = None, True
    gb.db.commit()
    for note in notes:
        sub.note(f"{note} waits for a grader again")
    return taken


def _into_gradebook(course_dir: CourseDir, sub: Submission, extension: timedelta | None, seen: Seen) -> float:
    """Scores, hand grades kept (of unchanged answers only: ``seen``), late penalty; returns the penalty.

    The hand grades and overrides taken back are noted in overrides.json right after their commit."""
    cfg = grading_config(course_dir)
    db_url, course_id = course_dir.gradebook_url, course_dir.course_id
    with Gradebook(db_url, course_id) as gb:
        gb.update_or_create_student(sub.student)
        when = {"timestamp": parse_utc(sub.timestamp)} if sub.timestamp else {}
        # the student's own due date (course extend); None takes back an extension removed since
        gb.update_or_create_submission(sub.assignment, sub.student, extension=extension, **when)
    resources = {
        "nbgrader": {"db_url": db_url, "assignment": sub.assignment, "notebook": sub.assignment, "student": sub.student}
    }
    sub.notebook, _ = run_chain(RECORD, sub.notebook, resources, cfg)
    with Gradebook(db_url, course_id) as gb:
        taken = _take_back_changed_answers(gb, sub, seen)  # committed: noted before anything else can happen
        recorded.taken_back(course_dir, taken)
        if sub.status is Status.FLAGGED:
            # a flagged submission shows as "needs manual grade" in nbgrader's formgrader; a hand grade
            # already given stays done (KeepHandGrades re-flags it only if its autograde score changed)
            graded = gb.find_submission_notebook(sub.assignment, sub.assignment, sub.student)
            for grade in graded.grades:
                if grade.manual_score is None:
                    grade.needs_manual_grade = True
            gb.db.commit()
        submission = gb.find_submission(sub.assignment, sub.student)
        # who wrote these scores, and when: the grading account's journal (course export checks the gradebook with it)
        journal.record(course_dir, *journal.autograde_lines(submission, {c.cell for c in taken}))
        return submission.late_submission_penalty or 0.0


def _exchange_files(sub: Submission) -> dict[str, bytes]:
    """The submission's timestamp and secret, to keep beside its autograded notebook (as nbgrader's autograde does).

    ``nbgrader generate_feedback`` copies them into ``feedback/``, and
    ``release_feedback`` needs both to hand the page to the right student.
    """
    found = {}
    for name in EXCHANGE_FILES:
        source = sub.folder / name
        if source.is_file() and not source.is_symlink() and source.stat().st_size < 1000:
            found[name] = source.read_bytes()
    return found


def read_results(course_dir: CourseDir) -> dict[tuple[str, str], Result]:
    """Every recorded result of the course directory, by (student, assignment)."""
    found = {}
    for path in sorted(course_dir.results.glob("*/*.json")):
        result = results_at(path).read()
        if result is not None:
            found[result.key] = result
    return found
