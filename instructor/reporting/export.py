"""The grade table as CSV, one row per rostered student and assignment.

nbgrader's own CSV export counts a written answer nobody has graded yet as 0,
says nothing about it, and has no per-task points. :class:`PendingCsvExportPlugin`
writes nbgrader's columns, then (see :data:`COLUMN_HELP`)

* ``auto_points``, ``hand_points``, ``hand_max``: points of the test cells,
  and of the written answers graded by hand so far, out of ``hand_max``;
* ``pending_points``: the points of answers still to be graded by hand;
* ``status``: ``complete``, ``waiting for a grader``, ``flagged for review``,
  ``not graded``, ``not submitted`` or ``not due`` (nothing collected, and
  the student's due date is still to come, or none is set, or the
  assignment never reached the course's exchange: no points, never a
  zero); ``reason``: why, in one sentence (from ``course grade``'s
  ``<dir>/results/``);
* ``overrides``: each override of a test cell, from what to what, by whom
  and when (:mod:`instructor.coursedir.overrides`);
* ``<assignment>:<grade_id>``: the points of each graded cell.

Nothing is written while a score of the gradebook is one no journal line
explains (:func:`instructor.coursedir.journal.require_explained`: written outside the
formgrader and the ``course`` commands, so nobody can say who wrote it).

No text cell starts a spreadsheet formula: student-chosen text (a folder
name in a reason) that begins with ``= + - @`` gets a leading ``'``.

It is an nbgrader export plugin, so ``nbgrader export --exporter
instructor.reporting.export.PendingCsvExportPlugin`` writes the same file as ``course export``.
"""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin
from nbgrader.utils import parse_utc
from traitlets import Unicode

from instructor.coursedir import extensions, journal, overrides
from instructor.coursedir.course_dir import CourseDir
from instructor.coursedir.gradebook import is_pending, pending_points
from instructor.errors import CourseError, first_line
from instructor.grading.record import read_results
from instructor.grading.submission import Result
from instructor.reporting.table import status_words, taken_back

#: Every fixed column, in order, with what it holds (``course export --help`` and the README print these).
COLUMN_HELP = {
    "assignment": "the assignment",
    "duedate": "the student's due date (UTC), an extension included (`course extend`), if one is set",
    "timestamp": "when the graded submission was made (UTC)",
    "student_id": "the student",
    "last_name": "from the roster",
    "first_name": "from the roster",
    "email": "from the roster",
    "raw_score": "auto_points + hand_points",
    "late_submission_penalty": (
        "points taken for lateness: the late rule's percent per day started of the autograded points "
        "(hand points never change it)"
    ),
    "score": "raw_score - late_submission_penalty: the grade to upload",
    "max_score": "the assignment's points",
    "auto_points": "points of the test cells (a grader's override included)",
    "hand_points": "hand points of written answers so far (a person's grades)",
    "hand_max": "points of the written answers",
    "pending_points": "points of written answers nobody has graded yet (counted as 0 in score)",
    "status": (
        "complete, waiting for a grader, flagged for review, not graded, not submitted (0: the due date passed), "
        "or not due (no points: due later, no due date, or never released to the exchange)"
    ),
    "reason": (
        "why a submission is flagged, not graded, missing or not due; "
        "a hand grade taken back because its answer changed"
    ),
    "overrides": "each override of a test cell and each hand grade taken back: cell, from -> to points, who, when",
}
COLUMNS = list(COLUMN_HELP)
#: the columns a "not graded" row leaves empty
POINTS = ["raw_score", "late_submission_penalty", "score", "auto_points", "hand_points", "pending_points"]
#: a spreadsheet reads a cell that starts with one of these as a formula (OWASP: CSV injection)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: then one column per graded cell: ``<assignment>:<grade_id>`` = its points ("" while it waits for a grader)
TASK_COLUMN = "{assignment}:{grade_id}"
NOT_SUBMITTED = "no submission was collected"
#: the status of a row with nothing collected that owes nothing yet: due later, no due date, or not released
NOT_DUE = "not due"
#: the reasons of a ``not due`` row that has no due date to come
NO_DUE_DATE = "no due date is set"
NOT_RELEASED = "not released to the course's exchange"


def task_columns(gradebook: Gradebook, assignments=()) -> list[str]:
    """One column name per graded cell of the gradebook's assignments, in notebook order."""
    names = []
    for assignment in gradebook.assignments:
        if assignments and assignment.name not in assignments:
            continue
        for notebook in assignment.notebooks:
            names += [TASK_COLUMN.format(assignment=assignment.name, grade_id=c.name) for c in notebook.grade_cells]
    return names


def rows(
    gradebook: Gradebook,
    assignments=(),
    students=(),
    results: dict[tuple[str, str], Result] | None = None,
    now: datetime | None = None,
    due_of=None,
    overrides_of=None,
    released=None,
) -> list[dict]:
    """One row per assignment and student of the gradebook (rostered or graded), as the CSV holds it.

    ``results`` maps (student, assignment) to what ``course grade`` recorded
    (:func:`instructor.grading.record.read_results`): it marks flagged
    submissions and adds a row for every submission that could not be graded.
    Nothing collected before the student's due date (``due_of(student,
    assignment, class due date)``, the class's by default) passed ``now``
    (naive UTC) is ``not due``, without points; so is one with no due date,
    and one of an assignment that ``released(assignment)`` says students
    never received (:func:`released_in`). ``overrides_of(student,
    assignment)`` gives the override entries to list (:mod:`instructor.coursedir.overrides`).
    """
    results = dict(results or {})
    now = now or datetime.now(UTC).replace(tzinfo=None)
    due_of = due_of or (lambda student, assignment, duedate: duedate)
    out = []
    for assignment in gradebook.assignments:
        if assignments and assignment.name not in assignments:
            continue
        tasks = [
            (TASK_COLUMN.format(assignment=assignment.name, grade_id=c.name), c.name)
            for nb in assignment.notebooks
            for c in nb.grade_cells
        ]
        for student in gradebook.students:
            if students and student.id not in students:
                continue
            row = {
                "assignment": assignment.name,
                "duedate": assignment.duedate or "",
                "student_id": student.id,
                "last_name": student.last_name or "",
                "first_name": student.first_name or "",
                "email": student.email or "",
                "max_score": assignment.max_score,
                "hand_max": assignment.max_written_score,
            }
            try:
                sub = gradebook.find_submission(assignment.name, student.id)
            except MissingEntry:
                due = due_of(student.id, assignment.name, assignment.duedate)
                owed = _owes_nothing(due, now, released is None or released(assignment.name))
                if owed:  # nothing is missing yet: no points, not a zero
                    row.update(duedate=due or "", timestamp="", status=NOT_DUE, reason=owed)
                    row.update({k: "" for k in POINTS + [column for column, _ in tasks]})
                else:
                    row.update(
                        timestamp="",
                        raw_score=0.0,
                        late_submission_penalty=0.0,
                        score=0.0,
                        auto_points=0.0,
                        hand_points=0.0,
                        pending_points=0.0,
                        status="not submitted",
                        reason=NOT_SUBMITTED,
                    )
                    row.update({column: 0.0 for column, _ in tasks})
            else:
                penalty = sub.late_submission_penalty or 0.0
                pending = pending_points(sub)
                row.update(
                    duedate=sub.duedate or "",  # the assignment's, plus the student's extension if any
                    timestamp=sub.timestamp or "",
                    raw_score=sub.score,
                    late_submission_penalty=penalty,
                    score=sub.score - penalty,
                    auto_points=sub.code_score,
                    hand_points=sub.written_score,
                    pending_points=pending,
                    status=status_words("graded", pending),
                    reason="",
                )
                given = {g.name: g for nb in sub.notebooks for g in nb.grades}
                for column, name in tasks:
                    grade = given.get(name)
                    row[column] = "" if grade is None or is_pending(grade) else grade.score
            result = results.pop((student.id, assignment.name), None)
            if overrides_of is not None:
                row["overrides"] = "; ".join(overrides.words(e) for e in overrides_of(student.id, assignment.name))
            if result is not None and taken_back(result):
                row["reason"] = "; ".join(taken_back(result))
            if result is not None and not result.status.has_grade:
                # points nbgrader's own autograde left in the gradebook do not count: course grade refused it
                row.update({k: "" for k in POINTS + [column for column, _ in tasks]})
            if result is not None and result.status.shown in ("flagged", "not graded"):
                row.update(status=status_words(result.status.shown, 0.0), reason=result.reason)
            out.append(row)
    for (student, assignment), result in sorted(results.items()):
        if (
            not result.status.has_grade
            and (not assignments or assignment in assignments)
            and (not students or student in students)
        ):
            out.append(
                {
                    "assignment": assignment,
                    "duedate": "",
                    "timestamp": "",
                    "student_id": student,
                    "last_name": "",
                    "first_name": "",
                    "email": "",
                    "raw_score": "",
                    "late_submission_penalty": "",
                    "score": "",
                    "max_score": "",
                    "auto_points": "",
                    "hand_points": "",
                    "hand_max": "",
                    "pending_points": "",
                    "status": "not graded",
                    "reason": result.reason,
                }
            )
    return out


def _owes_nothing(due: datetime | None, now: datetime, released: bool) -> str:
    """Why a student with nothing collected owes nothing yet (a ``not due`` row), or "" once a 0 is earned."""
    if not released:
        return NOT_RELEASED
    if due is None:
        return NO_DUE_DATE
    return f"due {due:%Y-%m-%d %H:%M} UTC" if due > now else ""


def released_in(course_dir: CourseDir):
    """``released`` for :func:`rows`: whether students could fetch each assignment from the course's exchange.

    A course that releases through its exchange has assignment folders in
    ``<exchange>/<course>/outbound/``; an assignment without one there never
    reached the students (never released, or its release failed). A course
    whose ``outbound/`` holds nothing (or that has none: `course init` as
    root lays one out) hands out its notebooks some other way: every
    assignment counts as released.
    """
    outbound = course_dir.exchange / course_dir.course_id / "outbound"
    try:
        released = {p.name for p in outbound.iterdir() if p.is_dir()}
    except OSError:  # no exchange, or one this account cannot list
        return None
    return (lambda assignment: assignment in released) if released else None


def inert_cell(value):
    """A text cell that a spreadsheet would run as a formula gets a leading ``'`` (shown as text); numbers stay."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class PendingCsvExportPlugin(ExportPlugin):
    """nbgrader's CSV export plus the course's columns (:data:`COLUMN_HELP`) and one per graded cell."""

    results = Unicode("", help="course grade's results/ folder, for flagged and not graded submissions").tag(
        config=True
    )

    def export(self, gradebook: Gradebook) -> None:
        course_dir, released = None, None
        if self.results:
            try:
                course_dir = CourseDir.at(Path(self.results).parent)
                released = released_in(course_dir)
            except CourseError:  # results beside no course directory: no exchange to ask
                course_dir = CourseDir.places_at(Path(self.results).parent)
        if course_dir is not None:
            journal.require_explained(course_dir, gradebook)  # a score no tool wrote stops the export, before any file
        found = read_results(course_dir) if course_dir else {}
        by_cell: dict[tuple[str, str], list[overrides.Change]] = {}
        if course_dir is not None:
            current = {e.key() for e in overrides.observe(course_dir, gradebook, "export")}
            # oldest first: the overrides in force, and every grade taken back
            for entry in overrides.entries(course_dir):
                if entry.what != "override" or entry.key() in current:
                    by_cell.setdefault((entry.student, entry.assignment), []).append(entry)
        dest = self.to or "grades.csv"
        with open(dest, "w", newline="") as f:
            chosen = [str(a) for a in self.assignment]
            writer = csv.DictWriter(f, fieldnames=COLUMNS + task_columns(gradebook, chosen), restval="")
            writer.writeheader()
            writer.writerows(
                [
                    {k: inert_cell(v) for k, v in row.items()}
                    for row in rows(
                        gradebook,
                        chosen,
                        [str(s) for s in self.student],
                        found,
                        # the class's due dates as the configuration nbgrader (or `course export`) was given says
                        due_of=student_due(course_dir, self.config.DueDates.get("dates", {})) if course_dir else None,
                        overrides_of=lambda s, a: by_cell.get((s, a), []),
                        released=released,
                    )
                ]
            )


def student_due(course_dir: CourseDir, due: dict[str, str]):
    """``due_of`` for :func:`rows`: the class's due date moved by the student's extension (``course extend``).

    The class's date is the settings' (``course init --due``: ``due``), where
    it is written, else the gradebook's copy (which ``course grade`` refreshes).
    """
    granted = extensions.read(course_dir)
    written = {a: parse_utc(d) for a, d in due.items()}

    def due_of(student: str, assignment: str, duedate):
        duedate = written.get(assignment, duedate)
        extension = granted.get((student, assignment))
        return duedate if extension is None else extension.student_due(duedate)

    return due_of


def export_csv(course_dir: CourseDir, to: Path) -> Path:
    """Write the gradebook of a course directory to ``to``."""
    db_url = course_dir.graded_gradebook()
    plugin = PendingCsvExportPlugin(config=course_dir.config)
    plugin.to = str(to)
    plugin.results = str(course_dir.results)
    with Gradebook(db_url) as gb:
        try:
            plugin.export(gb)
        except OSError as err:  # a folder the user may not write to, a full disk
            raise CourseError(f"cannot write {to} ({err.strerror or first_line(err)}).") from None
    return to
