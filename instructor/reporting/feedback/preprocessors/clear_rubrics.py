"""Remove the graders' mark scheme from the feedback."""

from __future__ import annotations

from nbgrader.preprocessors import ClearMarkScheme
from traitlets import Bool


class ClearRubrics(ClearMarkScheme):
    """nbgrader's ClearMarkScheme, for any cell.

    The course keeps each written question's model answer and rubric in a
    ``### BEGIN MARK SCHEME`` / ``### END MARK SCHEME`` region of the locked
    question cell (see AUTHORING.md). Autograding restores locked cells from the
    gradebook, mark scheme included, so graders read it in the formgrader;
    the feedback is made from that same autograded notebook and must drop it.
    """

    # the question cell is a locked cell, not an nbgrader "task" cell
    enforce_metadata = Bool(False, help="Do not require a task cell around the mark scheme.").tag(config=True)
