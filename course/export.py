"""The grade table as CSV, with the points that still wait for a grader.

nbgrader's own CSV export counts a written answer nobody has graded yet as 0
and says nothing about it. :class:`PendingCsvExportPlugin` writes nbgrader's
columns and two more:

* ``pending_points``: the points of answers still to be graded by hand;
* ``status``: ``complete``, ``waiting for a grader``, ``flagged for review``,
  ``not graded`` or ``not submitted``;
* ``reason``: for a flagged or not graded submission, why, in one sentence
  (from ``course grade``'s ``<workspace>/results/``).

It is an nbgrader export plugin, so ``nbgrader export --exporter
course.export.PendingCsvExportPlugin`` writes the same file as ``course export``.
"""

from __future__ import annotations

import csv
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin
from traitlets import Unicode

from course.gradebook import require as require_gradebook
from course.grading import outcomes
from course.preprocessors.mark_pending import pending_points

#: nbgrader's CSV columns (nbgrader.plugins.CsvExportPlugin), then the course's.
COLUMNS = [
    "assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
    "raw_score", "late_submission_penalty", "score", "max_score",
    "pending_points", "status", "reason",
]


def rows(gradebook: Gradebook, assignments=(), students=(), outcomes=None) -> list[dict]:
    """One row per assignment and student of the gradebook, as the CSV holds it.

    ``outcomes`` maps (student, assignment) to what ``course grade`` recorded
    (:func:`course.grading.outcomes`): it marks flagged submissions and adds a
    row for every submission that could not be graded.
    """
    outcomes = dict(outcomes or {})
    out = []
    for assignment in gradebook.assignments:
        if assignments and assignment.name not in assignments:
            continue
        for student in gradebook.students:
            if students and student.id not in students:
                continue
            row = {
                "assignment": assignment.name, "duedate": assignment.duedate or "",
                "student_id": student.id, "last_name": student.last_name or "",
                "first_name": student.first_name or "", "email": student.email or "",
                "max_score": assignment.max_score,
            }
            try:
                sub = gradebook.find_submission(assignment.name, student.id)
            except MissingEntry:
                row.update(timestamp="", raw_score=0.0, late_submission_penalty=0.0, score=0.0,
                           pending_points=0.0, status="not submitted", reason="")
            else:
                penalty = sub.late_submission_penalty or 0.0
                pending = pending_points(sub)
                row.update(
                    timestamp=sub.timestamp or "", raw_score=sub.score, late_submission_penalty=penalty,
                    score=sub.score - penalty, pending_points=pending,
                    status="waiting for a grader" if pending else "complete", reason="",
                )
            info = outcomes.pop((student.id, assignment.name), {})
            if info.get("status") in ("flagged", "not graded"):
                row.update(status="flagged for review" if info["status"] == "flagged" else "not graded",
                           reason=info.get("reason", ""))
            out.append(row)
    for (student, assignment), info in sorted(outcomes.items()):
        if info.get("status") == "not graded" and (not assignments or assignment in assignments) \
                and (not students or student in students):
            out.append({
                "assignment": assignment, "duedate": "", "timestamp": "", "student_id": student,
                "last_name": "", "first_name": "", "email": "", "raw_score": "", "late_submission_penalty": "",
                "score": "", "max_score": "", "pending_points": "", "status": "not graded",
                "reason": info.get("reason", ""),
            })
    return out


class PendingCsvExportPlugin(ExportPlugin):
    """nbgrader's CSV export plus ``pending_points``, ``status`` and ``reason`` columns."""

    results = Unicode("", help="course grade's results/ folder, for flagged and not graded submissions").tag(config=True)

    def export(self, gradebook: Gradebook) -> None:
        found = outcomes(Path(self.results).parent) if self.results else {}
        dest = self.to or "grades.csv"
        with open(dest, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS)
            writer.writeheader()
            writer.writerows(rows(gradebook, [str(a) for a in self.assignment], [str(s) for s in self.student], found))


def export_csv(workspace: Path, to: Path, db: str | None = None) -> Path:
    """Write the gradebook of a grading workspace (or the database ``db``) to ``to``."""
    db_url = require_gradebook(workspace, db)
    plugin = PendingCsvExportPlugin()
    plugin.to = str(to)
    plugin.results = str(workspace / "results")
    with Gradebook(db_url) as gb:
        plugin.export(gb)
    return to
