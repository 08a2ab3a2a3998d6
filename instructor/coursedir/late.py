"""The course's late-submission rule, as an nbgrader plugin.

nbgrader offers "no penalty" or "zero"; a course usually wants something in
between. :class:`PercentPerDay` takes ``percent_per_day`` of the notebook's
score for every day (or part of a day) past the due date, never more than
the score. ``course init --late-penalty P`` writes it into the course
directory's ``nbgrader_config.py``, so ``course grade`` and nbgrader's own
``autograde`` apply the same rule.
"""

from __future__ import annotations

import math

from nbgrader.plugins import BasePlugin
from traitlets import Float


class PercentPerDay(BasePlugin):
    """Penalty = ``percent_per_day`` % of the score per day started after the due date."""

    percent_per_day = Float(
        10.0, min=0.0, help="Percent of the score taken per day (or part of a day) late; 100 gives 0 after one second."
    ).tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float | None:
        if total_seconds_late <= 0 or self.percent_per_day == 0:
            return None
        days = math.ceil(total_seconds_late / 86400)
        return min(score, score * self.percent_per_day / 100 * days)
