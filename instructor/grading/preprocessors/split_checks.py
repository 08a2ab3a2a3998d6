"""Before the sandbox: each graded test cell keeps only the part that must run in the kernel."""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from instructor.grading.checks.notebook import carry, split_notebook
from instructor.grading.preprocessors.student_version import read_student_version


class SplitChecks(Preprocessor):
    """Replace each graded test cell's code by its kernel part (:mod:`instructor.grading.checks.split`).

    Runs last in prepare, on the student version's test code that ``OverwriteCells``
    put back. The kernel gets the statements that call the student's code and
    the inputs they need; each check becomes a call that sends the values it
    reads. What a hidden check compares with, and how, stays here: the checks
    (:class:`~instructor.grading.checks.notebook.NotebookChecks`) wait in
    ``resources`` for ``JudgeChecks``, and never enter the sandbox.
    """

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        version = read_student_version(self.config, resources)
        if version is None:  # nothing to take the imports from: nbgrader's rule, in the kernel
            return nb, resources
        sub = resources.get("course")  # graded by course grade: the submission's own hidden inputs
        seeds = getattr(sub, "hidden_seed", None), getattr(sub, "variant_seed", None)
        carry(resources, split_notebook(nb, version, *seeds))
        return nb, resources
