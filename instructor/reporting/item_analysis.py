"""What one assignment's grades say about the class: scores, checks failed, the mistakes behind them.

Everything is read from what ``course grade`` and the graders left in the
course directory: the gradebook (points per cell, a grader's override
included), ``results/`` (flags, reasons a submission was not graded) and
``autograded/`` (the error output of each failed test cell). A failure is
the gradebook's verdict (a test cell scored below its points); the error
output only chooses which of the author's checks is named
(:mod:`instructor.reporting.failures`).

The rows are the CSV's (:func:`instructor.reporting.export.rows`), so the
report, the grade table and ``course export`` count a submission the same
way.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from nbgrader.api import Gradebook, MissingEntry

from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.grading.record import read_results
from instructor.reporting import export
from instructor.reporting.failures import NOT_ATTEMPTED, report_line

#: the statuses of a submission with points in the gradebook
WITH_POINTS = ("complete", "waiting for a grader", "flagged for review")


@dataclass
class CellStats:
    """One graded cell across the class."""

    grade_id: str
    points: float
    written: bool  # a written answer (graded by hand), else a test cell
    graded: int = 0  # submissions with a verdict on it
    failed: int = 0  # test cell: scored below its points; written: fewer points than its maximum
    pending: int = 0  # written answers nobody has graded yet
    mistakes: Counter = field(default_factory=Counter)  # the author's words of the failed check -> count

    @property
    def share_failed(self) -> float:
        return self.failed / self.graded if self.graded else 0.0


@dataclass
class ClassReport:
    """An assignment's class-wide figures (see the module doc)."""

    assignment: str
    max_score: float
    rows: list[dict]  # the CSV's rows of this assignment, one per student
    cells: list[CellStats]
    flags: Counter = field(default_factory=Counter)  # flag text -> submissions
    not_graded: Counter = field(default_factory=Counter)  # reason -> submissions

    @property
    def statuses(self) -> Counter:
        return Counter(r["status"] for r in self.rows)

    @property
    def scores(self) -> list[float]:
        """The final score (after the late penalty) of every submission with points."""
        return [float(r["score"]) for r in self.rows if r["status"] in WITH_POINTS]

    def top_mistakes(self, n: int = 10) -> list[tuple[CellStats, str, int]]:
        """The most frequent (graded cell, mistake, count) of the class, most first; tasks not attempted apart."""
        found = [(c, words, k) for c in self.cells for words, k in c.mistakes.items() if words != NOT_ATTEMPTED]
        return sorted(found, key=lambda t: (-t[2], t[0].grade_id))[:n]


def _source_cells(gb: Gradebook, assignment: str) -> tuple[list, dict[str, str]]:
    """(grade cells in notebook order, test cell name -> its source as released, hidden tests included)."""
    found = gb.find_assignment(assignment)
    cells, sources = [], {}
    for nb in found.notebooks:
        cells += list(nb.grade_cells)
        for src in nb.source_cells:
            sources[src.name] = src.source
    return cells, sources


def _outputs(course_dir: CourseDir, student: str, assignment: str) -> dict[str, list]:
    """grade_id -> outputs of each graded cell of a student's autograded notebook ({} if there is none)."""
    path = course_dir.autograded_notebook(student, assignment)
    try:
        nb = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    found = {}
    for cell in nb.get("cells", []):
        meta = (cell.get("metadata") or {}).get("nbgrader") or {}
        if meta.get("grade") and cell.get("cell_type") == "code":
            found[str(meta.get("grade_id"))] = cell.get("outputs") or []
    return found


def analyse(course_dir: CourseDir, assignment: str) -> ClassReport:
    """The class report of ``assignment`` in ``course_dir``."""
    url = course_dir.graded_gradebook()
    results = {k: v for k, v in read_results(course_dir).items() if k[1] == assignment}
    with Gradebook(url) as gb:
        try:
            grade_cells, sources = _source_cells(gb, assignment)
        except MissingEntry:
            raise CourseError(
                f"the gradebook has no assignment {assignment!r} (has `course grade` run on it?)."
            ) from None
        cells = [CellStats(c.name, float(c.max_score), c.cell_type == "markdown") for c in grade_cells]
        rows = export.rows(gb, [assignment], results=results)
        max_score = gb.find_assignment(assignment).max_score
    for row in rows:
        if row["status"] not in WITH_POINTS:
            continue
        outputs = None  # read once per student, only if one of their test cells failed
        for cell in cells:
            value = row.get(export.TASK_COLUMN.format(assignment=assignment, grade_id=cell.grade_id), "")
            if value == "":
                cell.pending += cell.written
                continue
            cell.graded += 1
            if float(value) < cell.points:
                cell.failed += 1
                if not cell.written:
                    if outputs is None:
                        outputs = _outputs(course_dir, row["student_id"], assignment)
                    # one line per check that failed (its message with each value named by its code, never a value)
                    cell.mistakes[report_line(sources.get(cell.grade_id, ""), outputs.get(cell.grade_id, []))] += 1
    report = ClassReport(assignment, float(max_score), rows, cells)
    for result in results.values():
        if result.status.shown == "flagged":
            report.flags.update(result.flags)
        elif not result.status.has_grade:
            report.not_graded[result.reason] += 1
    return report
