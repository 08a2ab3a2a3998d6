"""Flag the graded cells that still wait for a human grader."""

from __future__ import annotations

from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor


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


class MarkPendingGrades(NbGraderPreprocessor):
    """Set ``metadata.nbgrader.pending`` on every graded cell still to be graded by hand.

    Runs after ``GetGrades`` (which puts a score of 0 on such cells). Also
    sets ``resources["nbgrader"]["pending_points"]``, the points of this
    notebook that are not graded yet, for the feedback's heading.
    """

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            notebook = gb.find_submission_notebook(info["notebook"], info["assignment"], info["student"])
            pending = {g.name for g in notebook.grades if is_pending(g)}
            info["pending_points"] = pending_points(notebook)
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("grade") or meta.get("task"):
                meta["pending"] = meta.get("grade_id") in pending
        return nb, resources


__all__ = ["MarkPendingGrades", "is_pending", "pending_points"]
