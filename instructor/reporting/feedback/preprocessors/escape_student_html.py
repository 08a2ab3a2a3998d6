"""Student markup is shown inert in feedback; the course's own text as the course wrote it."""

from __future__ import annotations

from instructor.grading.preprocessors.inert_student_content import InertStudentContent


class EscapeStudentHTML(InertStudentContent):
    """The grading chain's sanitiser, run again on every feedback page.

    A ``<script>``, an ``onerror=`` attribute or a fake score banner in a
    written answer or a ``text/html`` output would otherwise reach the page
    as live markup. The graded notebook was made inert when it was scored;
    this second pass covers notebooks graded before that, and anything a
    grader added. The course's cells are not escaped, so ``<S>`` and math read once.
    """
