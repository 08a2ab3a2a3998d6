"""Stage 4, score: outside the sandbox, judge what came back.

The :data:`~instructor.grading.chains.SCORE` chain checks that every test
cell really ran and caps outputs; nbgrader's own rule then gives each graded
code cell its points. A submission with flags is ``flagged`` (graded, for a
person to review), else ``graded``.
"""

from __future__ import annotations

from nbgrader.utils import determine_grade, is_grade

from instructor.grading.chains import SCORE, run_chain
from instructor.grading.submission import Status, Submission


def score(sub: Submission, nb, resources: dict, config, cell_timeout: float) -> None:
    """Score the executed notebook ``nb`` into ``sub`` (points, status, the scored notebook)."""
    nb, _ = run_chain(SCORE, nb, resources, config)
    if sub.execution is not None and sub.execution.timed_out:
        sub.note(f"{len(sub.execution.timed_out)} cell(s) ran past the {cell_timeout:g} s limit")
    graded = [determine_grade(c) for c in nb.cells if is_grade(c) and c.cell_type == "code"]
    sub.score = float(sum(g[0] or 0 for g in graded))
    sub.max_score = float(sum(g[1] or 0 for g in graded))
    sub.notebook = nb
    sub.end(Status.FLAGGED, "; ".join(sub.flags)) if sub.flags else sub.end(Status.GRADED)
