"""Flag the graded cells that still wait for a human grader."""

from __future__ import annotations

from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor

from instructor.coursedir.gradebook import is_pending, pending_points


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
