"""The nbgrader preprocessor chain of the feedback pages, defined once.

``course feedback``, nbgrader's own ``generate_feedback`` and the
formgrader's Generate Feedback button all run it (:func:`add_feedback_chain`,
through :func:`instructor.settings.configure` for nbgrader's own).

A page shows the student's work and scores, never the hidden tests: not in a
cell, not quoted in a traceback (nbgrader #917, #1363), not in anything
printed while they ran; student markup is shown as text. Nor the graders'
mark scheme; unmarked written answers read "waiting for a grader", every
graded cell is named by its task and says passed, failed or waiting, and a
failed test says which check failed, in the words its author wrote for it.
The course's figures are carried in the page as data (its policy loads nothing).
"""

from __future__ import annotations

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import GetGrades
from traitlets.config import Config

from instructor.grading.preprocessors.cap_output_bytes import CapOutputBytes
from instructor.reporting.feedback.preprocessors.clear_hidden_tests import ClearHiddenTestsOfTests
from instructor.reporting.feedback.preprocessors.clear_rubrics import ClearRubrics
from instructor.reporting.feedback.preprocessors.escape_student_html import EscapeStudentHTML
from instructor.reporting.feedback.preprocessors.explain_verdicts import ExplainVerdicts
from instructor.reporting.feedback.preprocessors.hide_hidden_test_outputs import HideHiddenTestOutputs
from instructor.reporting.feedback.preprocessors.inline_figures import InlineFigures
from instructor.reporting.feedback.preprocessors.mark_pending import MarkPendingGrades
from instructor.reporting.feedback.preprocessors.name_cells import NameGradedCells
from instructor.reporting.feedback.preprocessors.shorten_tracebacks import ShortenTracebacks
from instructor.reporting.feedback.preprocessors.withhold_leaks import WithholdLeaks
from instructor.reporting.feedback.template import use_course_templates

#: ExplainVerdicts and HideHiddenTestOutputs must see the hidden tests (and ExplainVerdicts the
#: error outputs) before ClearHiddenTestsOfTests removes them; WithholdLeaks checks the final
#: outputs, so it comes last.
FEEDBACK = [
    GetGrades,
    MarkPendingGrades,
    NameGradedCells,
    ExplainVerdicts,
    HideHiddenTestOutputs,
    ClearHiddenTestsOfTests,
    ClearRubrics,
    ShortenTracebacks,
    EscapeStudentHTML,
    InlineFigures,
    CapOutputBytes,
    WithholdLeaks,
    CSSHTMLHeaderPreprocessor,
]


def add_feedback_chain(c: Config) -> Config:
    """The feedback chain and the course's page templates on ``c``."""
    c.GenerateFeedback.preprocessors = FEEDBACK
    return use_course_templates(c)
