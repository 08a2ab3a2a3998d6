"""Save the autograder's scores without undoing a grader's work.

nbgrader's ``SaveAutoGrades`` flags every cell that carries a hand grade as
"needs manual grade" again whenever it autogrades, so each regrade sends the
graders back to answers they already marked. :class:`KeepHandGrades` keeps a
hand grade (nbgrader never touches ``manual_score``) and its "done" state
when the autograder's score of that cell did not change; when it did change
the cell is flagged, and ``course grade``'s table counts it under "review".
"""

from __future__ import annotations

from nbgrader.preprocessors import SaveAutoGrades


class KeepHandGrades(SaveAutoGrades):
    """``SaveAutoGrades`` that re-flags a hand-graded cell only if its autograde score changed."""

    def _add_score(self, cell, resources) -> None:
        grade = self.gradebook.find_grade(
            cell.metadata["nbgrader"]["grade_id"], self.notebook_id, self.assignment_id, self.student_id
        )
        before = (grade.manual_score is not None, grade.auto_score, grade.needs_manual_grade)
        super()._add_score(cell, resources)
        hand_graded, old_auto, old_flag = before
        if hand_graded and grade.auto_score == old_auto:
            grade.needs_manual_grade = old_flag
            self.gradebook.db.commit()
