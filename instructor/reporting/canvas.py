"""The grades as a file Canvas's gradebook import accepts (``course export --format canvas``).

The layout is the one Canvas's own gradebook export writes, so Grades > Import
reads it back::

    Student,ID,SIS User ID,SIS Login ID,Section,<one column per assignment>
    Points Possible,,,,,<each assignment's points>
    "Adams, Amy",,amy,amy@example.org,,3
    ...

* one row per student of the gradebook (the roster, once ``course roster
  import`` ran), sorted by id, which is the roster's order;
* one column per assignment of the gradebook, in its order (due date, then
  name), or only those asked for. Its header is the assignment's name:
  Canvas puts it in the assignment of exactly that name (or one named
  ``Name (<canvas id>)`` in the header), and otherwise asks, on import,
  which assignment it is, or creates a new one with the Points Possible;
* ``Student`` is "Last, First" (Canvas's sortable name), or whichever name
  the roster has, else the id;
* ``ID`` (Canvas's own number for the student, which only Canvas knows) and
  ``Section`` are left empty.

Which roster field goes where (:data:`MATCHING`): Canvas finds the student of
a row by ``ID``, else by ``SIS User ID`` = the roster's ``id``, else by
``SIS Login ID`` = the roster's ``email``, else by the ``Student`` name.
``SIS User ID`` is the student number an institution's student information
system gave Canvas (universities whose Canvas enrolments come from their
SIS); ``SIS Login ID`` is what a student signs in to Canvas with: an email
address where students sign in with email, else a username. A roster without
emails is still matched by id. To see which your Canvas holds, compare its
own export (Grades > Export: those two columns) with the roster. Where the
logins are usernames, not emails, the roster's ``email`` column may hold
them: nothing but the formgrader, the CSV and this file read it.

What each cell holds (:data:`CELL_RULE`): a number only when it is the
final grade. ``complete``: the ``score`` of ``course export``'s CSV (raw
score minus the late penalty); ``not submitted``: 0, once the student's due
date has passed; ``not due`` (nothing collected and the due date still to
come, no due date set, or the assignment never released to the course's
exchange), ``waiting for a grader``, ``flagged for review``, ``not graded`` (and any other status):
empty, so no score that may still change is uploaded. Canvas treats an empty
cell as "no grade": where Canvas has no grade yet, nothing changes; where it
already holds one (an earlier upload), the import removes it, and the review
page highlights that before anything is saved. :func:`summary` says how many
cells were left empty and why, so an instructor knows before uploading.

Text cells (names, emails, assignment names) that would start a spreadsheet
formula get a leading ``'`` (:func:`~instructor.reporting.export.inert_cell`).

Not-graded submissions of someone not in the gradebook (not on the roster)
have no row to go in: they are left out, and :func:`summary` lists them.

Importing it (:data:`IMPORT_STEPS`, which ``course export --help`` prints, and which ends this
docstring)::

"""

from __future__ import annotations

import csv
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.api import Gradebook

from instructor.coursedir import journal
from instructor.coursedir.course_dir import CANVAS_CSV, CourseDir
from instructor.errors import CourseError, first_line
from instructor.grading.record import read_results
from instructor.reporting.export import inert_cell, released_in, rows, student_due

#: the columns before the assignments, exactly as Canvas's own export names them
IDENTITY_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
#: the Student cell of the second row, which gives each assignment column's maximum
POINTS_POSSIBLE = "Points Possible"
#: Canvas column <- where its value comes from
MATCHING = {
    "Student": '"Last, First" from the roster (one of them if it has one, else the id)',
    "ID": "empty: Canvas's own number for the student, which only Canvas knows",
    "SIS User ID": "the roster's id",
    "SIS Login ID": "the roster's email (empty if it has none)",
    "Section": "empty",
}
#: the status of ``course export``'s CSV -> what the Canvas cell holds, and why
CELL_RULE = {
    "complete": "the score (raw score - late penalty): final",
    "not submitted": "0: nothing was collected, and the student's due date has passed",
    "not due": (
        "empty: the student's due date (an extension included) has not passed, none is set, "
        "or the assignment was never released to the exchange"
    ),
    "waiting for a grader": "empty: written answers still to grade by hand, the score would rise",
    "flagged for review": "empty: a person must look at it first",
    "not graded": "empty: there is no grade",
}
#: where ``course export --format canvas`` writes, in the course directory, unless told
DEFAULT_NAME = CANVAS_CSV  # <dir>/canvas.csv (CourseDir.canvas_csv)
#: empty cells listed one by one in the summary; more are counted only
LISTED = 20
#: what an instructor does with the file, step by step (``course export --help`` and the README print these)
IMPORT_STEPS = """\
1. course export --format canvas     (writes <dir>/canvas.csv, lists the cells left empty)
2. In Canvas, open the course: Grades > Import, choose the file, upload it.
3. If Canvas lists a student or an assignment it could not match: pick the Canvas
   student (or ignore the row); pick the Canvas assignment the column belongs to, or
   let Canvas create it as a new assignment (its points from the Points Possible row).
4. Review "Changes to scores": each changed cell shows the grade Canvas has and the
   new one; lowered and removed grades are highlighted. Then press Upload.
"""
__doc__ += textwrap.indent(IMPORT_STEPS, "    ")  # the steps are written once, above


@dataclass
class Sheet:
    """The Canvas file, before it is written, and what the summary reports."""

    assignments: list[str]
    points: list[float]  # each assignment's maximum, in column order
    rows: list[list[str]] = field(default_factory=list)  # one per student: identity cells, then a cell per assignment
    scores: int = 0  # cells holding a final score
    zeros: int = 0  # cells holding 0 for a submission never collected
    empty: list[tuple[str, str, str, str]] = field(default_factory=list)  # (student, assignment, status, why)
    left_out: list[tuple[str, str, str]] = field(default_factory=list)  # (student, assignment, reason)

    @property
    def header(self) -> list[str]:
        return IDENTITY_COLUMNS + [inert_cell(a) for a in self.assignments]

    @property
    def points_row(self) -> list[str]:
        return [POINTS_POSSIBLE] + [""] * (len(IDENTITY_COLUMNS) - 1) + [points_text(p) for p in self.points]


def points_text(value: float) -> str:
    """A number as Canvas's export writes it: at most two decimals, no trailing zeros (``1.8``, ``2``)."""
    text = f"{round(float(value), 2):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def student_name(last: str, first: str, student_id: str) -> str:
    """Canvas's sortable name, "Last, First"; a missing part is left out, and with no name the id stands in."""
    if last and first:
        return f"{last}, {first}"
    return last or first or student_id


def cell(row: dict) -> str:
    """The Canvas cell of one row of :func:`~instructor.reporting.export.rows`, by :data:`CELL_RULE`.

    Any status not named there (a new one included) leaves the cell empty:
    only a grade known to be final is uploaded.
    """
    if row["status"] == "complete":
        return points_text(row["score"])
    if row["status"] == "not submitted":
        return "0"
    return ""


def why_empty(row: dict) -> str:
    """Why a row's cell is left empty, in words for the summary."""
    if row["status"] == "waiting for a grader":
        return f"{points_text(row['pending_points'])} point(s) still to grade by hand"
    return row.get("reason") or ""


def chosen_assignments(gradebook: Gradebook, names=()) -> list:
    """The gradebook's assignments, in its order; only ``names`` if given (each must be there)."""
    every = list(gradebook.assignments)
    known = [a.name for a in every]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise CourseError(
            f"the gradebook has no assignment {', '.join(map(repr, unknown))} (it has: {', '.join(known) or 'none'})."
        )
    chosen = [a for a in every if not names or a.name in names]
    if not chosen:
        raise CourseError("the gradebook has no assignment yet: run `course grade` first.")
    return chosen


def build(gradebook: Gradebook, assignments=(), results=None, due_of=None, now=None, released=None) -> Sheet:
    """The Canvas sheet of a gradebook: one row per student (sorted by id), one column per assignment.

    ``results`` is what ``course grade`` recorded
    (:func:`~instructor.grading.record.read_results`), so flagged and not
    graded submissions are known as such.
    """
    chosen = chosen_assignments(gradebook, assignments)
    names = [a.name for a in chosen]
    students = sorted(gradebook.students, key=lambda s: s.id)
    known = {s.id for s in students}
    by_cell = {}
    sheet = Sheet(assignments=names, points=[a.max_score for a in chosen])
    for row in rows(gradebook, names, (), results, now=now, due_of=due_of, released=released):
        if row["student_id"] in known:
            by_cell[row["student_id"], row["assignment"]] = row
        else:  # a not-graded submission of someone off the roster: no row for it in Canvas's file
            sheet.left_out.append((row["student_id"], row["assignment"], row["reason"]))
    for student in students:
        identity = [
            student_name(student.last_name or "", student.first_name or "", student.id),
            "",
            student.id,
            student.email or "",
            "",
        ]
        cells = []
        for name in names:
            row = by_cell[student.id, name]
            cells.append(cell(row))
            if row["status"] == "not submitted":
                sheet.zeros += 1
            elif cells[-1]:
                sheet.scores += 1
            else:
                sheet.empty.append((student.id, name, row["status"], why_empty(row)))
        sheet.rows.append([inert_cell(v) for v in identity] + cells)
    return sheet


def write(sheet: Sheet, to: Path) -> None:
    """Write the sheet as UTF-8 CSV, header and Points Possible row first."""
    with open(to, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(sheet.header)
        writer.writerow(sheet.points_row)
        writer.writerows(sheet.rows)


def upload_notes(sheet: Sheet) -> list[str]:
    """Lines to print before an instructor uploads: what the cells hold, each empty one and why, what was left out."""
    why = Counter(status for _, _, status, _ in sheet.empty)
    detail = f" ({', '.join(f'{n} {status}' for status, n in why.most_common())})" if why else ""
    counts = (
        f"canvas: {len(sheet.rows)} student(s) x {len(sheet.assignments)} assignment(s): "
        f"{sheet.scores} score(s), {sheet.zeros} zero(s) for nothing submitted, "
        f"{len(sheet.empty)} cell(s) left empty{detail}"
    )
    lines = [counts]
    if sheet.empty:
        lines.append("  empty cells upload no grade (Canvas removes one it already holds, highlighted in its review):")
        for student, assignment, status, reason in sheet.empty[:LISTED]:
            lines.append(f"    {student} {assignment}: {status}" + (f": {reason}" if reason else ""))
        if len(sheet.empty) > LISTED:
            lines.append(
                f"    ... and {len(sheet.empty) - LISTED} more (`course export` lists every status and reason)"
            )
    if sheet.left_out:
        lines.append(
            f"left out: {len(sheet.left_out)} not-graded submission(s) of someone not in the gradebook "
            "(not on the roster):"
        )
        lines += [f"    {student} {assignment}: {reason}" for student, assignment, reason in sheet.left_out]
    return lines


def export_canvas(course_dir: CourseDir, to: Path, assignments=()) -> Sheet:
    """Write the Canvas file of a course directory to ``to``; returns what it holds."""
    db_url = course_dir.graded_gradebook()
    with Gradebook(db_url) as gb:
        journal.require_explained(course_dir, gb)  # a score no tool wrote stops the export, before any file
        due_of = student_due(course_dir, course_dir.due)
        sheet = build(gb, assignments, read_results(course_dir), due_of=due_of, released=released_in(course_dir))
    try:
        write(sheet, to)
    except OSError as err:  # a folder the user may not write to, a full disk
        raise CourseError(f"cannot write {to} ({err.strerror or first_line(err)}).") from None
    return sheet
