"""Student markup is shown inert in feedback; the course's own text as the course wrote it."""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from instructor.grading.preprocessors.inert_student_content import course_text, make_inert
from instructor.grading.preprocessors.release_notebook import release_notebook


class EscapeStudentHTML(Preprocessor):
    """Sanitise every markdown or raw cell that is not the release's own text; keep plain outputs only.

    A ``<script>``, an ``onerror=`` attribute or a fake score banner in a
    written answer or a ``text/html`` output would otherwise reach the page
    as live markup. The graded notebook was made inert when it was scored
    (:mod:`instructor.grading.preprocessors.inert_student_content`); this
    second pass covers notebooks graded before that, and anything a grader
    added. The course's cells are not escaped, so ``<S>`` and math read once.
    """

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        course = course_text(release_notebook(self.config, resources))
        for cell in nb.cells:
            make_inert(cell, course)
        return nb, resources
