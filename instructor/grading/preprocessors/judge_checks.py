"""After the sandbox, outside it: the autograder judges every graded test cell on the values its kernel sent."""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from nbgrader.api import Gradebook
from traitlets import Bool

from instructor.cells import grade_id, is_graded_test
from instructor.grading.checks.channel import stray_values
from instructor.grading.checks.judge import CHANNEL_FAULTS, Fault
from instructor.grading.checks.notebook import (
    NotebookChecks,
    carried_checks,
    judge_split,
    plan_checks,
    setup_sources,
)
from instructor.grading.checks.private import SEND_IMPORT
from instructor.grading.checks.worker import Budget
from instructor.grading.preprocessors.student_version import read_student_version
from instructor.grading.submission import carried


class JudgeChecks(Preprocessor):
    """Judge each split test cell (:mod:`instructor.grading.checks.judge`); a failure is an error output.

    The cell's code becomes the student version's again (what the student and the
    instructor read); the values the kernel sent leave its outputs. A check
    fails on the autograder's own run of it; an error the kernel showed still
    fails the cell (a crash of the student's code, or a check that runs in
    the kernel). Under nbgrader's own ``autograde`` (which prepares in
    another pass, so the checks are not in ``resources``) they are made again
    from the gradebook's copy of the student version's test code.
    """

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        sub = carried(resources)
        checks = carried_checks(resources) or _from_gradebook(
            nb, resources, self.config, sub.hidden_seed, sub.variant_seed
        )
        budget = Budget()  # the submission's judging time, all cells together
        for cell in nb.cells:
            verdict = judge_split(cell, checks, budget)
            if verdict is None:
                continue
            if verdict.exception == Fault.JUDGE_STOPPED:
                sub.flag(f"test cell {grade_id(cell)!r}: {verdict.message} (scored 0)")
            elif verdict.broken:
                sub.flag(
                    f"the grader could not run the release's own code of test cell {grade_id(cell)!r}: "
                    f"{verdict.message[:200]}"
                )
            elif verdict.exception in CHANNEL_FAULTS:
                sub.flag(f"test cell {grade_id(cell)!r}: {verdict.message} (scored 0)")
        for stray in stray_values(nb, checks):
            sub.flag(stray)
        return nb, resources


def _from_gradebook(nb, resources, config, seed: int | None, variant: int | None) -> NotebookChecks:
    """The checks of ``nb``'s split test cells, made again from the student version's code in the gradebook (their
    hidden inputs drawn from ``seed`` and the student's parameters from ``variant``, as the split drew them)."""
    none = NotebookChecks((), ())
    info = resources.get("nbgrader", {})
    if not any(is_graded_test(c) and SEND_IMPORT in c.source for c in nb.cells) or "db_url" not in info:
        return none
    with Gradebook(info["db_url"]) as gb:
        notebook = gb.find_notebook(info["notebook"], info["assignment"])
        sources = {c.name: c.source for c in notebook.source_cells}
    version = read_student_version(config, resources)
    if version is None:
        return none
    tests = {grade_id(cell) for cell in nb.cells if is_graded_test(cell)}
    return plan_checks(
        {name: source for name, source in sources.items() if name in tests}, setup_sources(version), seed, variant
    )
