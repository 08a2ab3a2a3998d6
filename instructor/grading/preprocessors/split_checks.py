"""Before the sandbox: each graded test cell keeps only the part that must run in the kernel."""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from instructor.grading.checks.notebook import carry, split_notebook
from instructor.grading.preprocessors.release_notebook import release_notebook


class SplitChecks(Preprocessor):
    """Replace each graded test cell's code by its kernel part (:mod:`instructor.grading.checks.split`).

    Runs last in prepare, on the release's test code that ``OverwriteCells``
    put back. The kernel gets the statements that call the student's code and
    the inputs they need; each check becomes a call that sends the values it
    reads. What a hidden check compares with, and how, stays here: the checks
    (:class:`~instructor.grading.checks.notebook.NotebookChecks`) wait in
    ``resources`` for ``JudgeChecks``, and never enter the sandbox.
    """

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        release = release_notebook(self.config, resources)
        if release is None:  # nothing to take the imports from: nbgrader's rule, in the kernel
            return nb, resources
        sub = resources.get("course")  # graded by course grade: the submission's own hidden inputs
        seeds = getattr(sub, "hidden_seed", None), getattr(sub, "variant_seed", None)
        carry(resources, split_notebook(nb, release, *seeds))
        return nb, resources
