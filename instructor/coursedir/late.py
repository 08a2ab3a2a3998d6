"""The course's late-submission rule, as an nbgrader plugin.

nbgrader offers "no penalty" or "zero"; a course usually wants something in
between. :class:`PercentPerDay` takes ``percent_per_day`` of the notebook's
**autograded points** for every day (or part of a day) past the student's
due date (an extension included), never more than those points. ``course
init --late-penalty P`` writes it into the course directory's settings
(``nbgrader_config.json``), so ``course grade``, ``course extend`` and
nbgrader's own ``autograde`` apply the same rule.

The base is the points the autograder gave the test cells, nothing a person
gives: hand grades of written answers and a grader's override of a test cell
are typed into the formgrader, where no penalty is computed again, so a base
that counted them would depend on whether the hand grade came before or
after the last regrade or extension change. With this base the penalty is
one function of (autograded points, days late), whatever the order.
"""

from __future__ import annotations

import math

from nbgrader.plugins import BasePlugin
from traitlets import Float


def days_late(total_seconds_late: float) -> int:
    """Days started after the due date (0 when on time)."""
    return math.ceil(total_seconds_late / 86400) if total_seconds_late > 0 else 0


def penalty(autograded_points: float, total_seconds_late: float, percent_per_day: float) -> float:
    """The rule: ``percent_per_day`` % of the autograded points per day started, at most all of them."""
    return min(autograded_points, autograded_points * percent_per_day / 100 * days_late(total_seconds_late))


def autograded_points(notebook) -> float:
    """The points the autograder gave a submitted notebook's test cells (overrides and hand grades left out)."""
    return float(sum(g.auto_score or 0.0 for g in notebook.grades if g.auto_score is not None))


class PercentPerDay(BasePlugin):
    """Penalty = ``percent_per_day`` % of the autograded points per day started after the due date."""

    percent_per_day = Float(
        10.0,
        min=0.0,
        help="Percent of the autograded points taken per day (or part of a day) late; 100 gives 0 after one second.",
    ).tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float | None:
        if total_seconds_late <= 0 or self.percent_per_day == 0:
            return None
        return penalty(self._base(score), total_seconds_late, self.percent_per_day)

    def _base(self, score: float) -> float:
        """The autograded points of the notebook nbgrader's ``AssignLatePenalties`` (the parent) is working on.

        nbgrader hands the plugin the notebook's whole score (hand points
        included); the parent holds the open gradebook and the notebook's ids.
        Called without such a parent, ``score`` is taken as it is.
        """
        parent = self.parent
        gb = getattr(parent, "gradebook", None)
        if gb is None or not hasattr(parent, "notebook_id"):
            return score
        notebook = gb.find_submission_notebook(parent.notebook_id, parent.assignment_id, parent.student_id)
        return autograded_points(notebook)
