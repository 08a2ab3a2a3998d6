"""nbgrader preprocessors of the course, one small class per module.

Grading (sandbox, tampering, cheats) and feedback safety: see
:mod:`course.nbgrader_settings` for the chains and their order.

Feedback (registered in :mod:`course.nbgrader_settings`, so that nbgrader's
own ``generate_feedback`` uses them too):

* :class:`ClearRubrics` removes the graders' mark scheme (model answers and
  rubrics) from the feedback;
* :class:`MarkPendingGrades` flags written answers nobody has graded yet, so
  the feedback says "waiting for a grader" instead of a score of 0;
* :class:`NameGradedCells` gives every graded cell a readable title from its
  ``grade_id`` ("attend: hand computed") for the feedback's summary.
"""

from course.preprocessors.clear_rubrics import ClearRubrics
from course.preprocessors.mark_pending import MarkPendingGrades, pending_points
from course.preprocessors.name_cells import NameGradedCells, title_of

__all__ = ["ClearRubrics", "MarkPendingGrades", "NameGradedCells", "pending_points", "title_of"]
