"""nbgrader's ClearHiddenTests, on the course's test cells only."""

from __future__ import annotations

from nbgrader.preprocessors import ClearHiddenTests
from nbgrader.utils import is_grade, is_locked


class ClearHiddenTestsOfTests(ClearHiddenTests):
    """Remove the hidden tests of test cells; leave every cell a student wrote as it is.

    nbgrader's own preprocessor reads marker lines in every cell: a student's
    comment that looks like ``### BEGIN HIDDEN TESTS`` (copied from the
    documentation, say) made it fail, and that student got no feedback page.
    Test cells are graded and locked, and restored from the release before
    grading, so only they can hold hidden tests.
    """

    def preprocess_cell(self, cell, resources, index):
        if not (is_grade(cell) and is_locked(cell)):
            return cell, resources
        return super().preprocess_cell(cell, resources, index)
