"""After the sandbox, outside it: the grader judges every graded test cell on the values its kernel sent."""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from nbgrader.api import Gradebook
from traitlets import Bool

from instructor.cells import grade_id, is_graded_test
from instructor.grading.checks.cells import CHANNEL_FAULTS, judge_cell, setup_sources, stray_records
from instructor.grading.checks.judge import imported_names, trusted_imports
from instructor.grading.checks.split import RECORD, Plan, plan
from instructor.grading.checks.worker import Budget
from instructor.grading.preprocessors.release_notebook import release_notebook
from instructor.grading.preprocessors.split_checks import KEY
from instructor.grading.submission import carried


class JudgeChecks(Preprocessor):
    """Judge each split test cell (:mod:`instructor.grading.checks.judge`); a failure is an error output.

    The cell's code becomes the release's again (what the student and the
    instructor read); the value records leave its outputs. A check fails on
    the grader's own run of it; an error the kernel showed still fails the
    cell (a crash of the student's code, or a check that runs in the kernel).
    Under nbgrader's own ``autograde`` (which prepares in another pass, so the
    plans are not in ``resources``) they are made again from the gradebook's
    copy of the release's test code.
    """

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        plans, setup = resources.get(KEY) or _from_gradebook(nb, resources, self.config)
        sub = carried(resources)
        budget = Budget()  # the submission's judging time, all cells together
        for cell in nb.cells:
            if not is_graded_test(cell) or grade_id(cell) not in plans:
                continue
            found, original, origin = plans[grade_id(cell)]
            verdict = judge_cell(cell, found, original, origin, setup, budget)
            if verdict.exception == "JudgeStopped":
                sub.flag(f"test cell {grade_id(cell)!r}: {verdict.message} (scored 0)")
            elif verdict.broken:
                sub.flag(
                    f"the grader could not run the release's own code of test cell {grade_id(cell)!r}: "
                    f"{verdict.message[:200]}"
                )
            elif verdict.exception in CHANNEL_FAULTS:
                sub.flag(f"test cell {grade_id(cell)!r}: {verdict.message} (scored 0)")
        for stray in stray_records(nb, plans):
            sub.flag(stray)
        return nb, resources


def _from_gradebook(nb, resources, config) -> tuple[dict[str, tuple[Plan, str, list[int]]], tuple[str, ...]]:
    """The plans of ``nb``'s split test cells, made again from the release's code in the gradebook."""
    info = resources.get("nbgrader", {})
    if not any(is_graded_test(c) and RECORD in c.source for c in nb.cells) or "db_url" not in info:
        return {}, ()
    with Gradebook(info["db_url"]) as gb:
        notebook = gb.find_notebook(info["notebook"], info["assignment"])
        sources = {c.name: c.source for c in notebook.source_cells}
    release = release_notebook(config, resources)
    if release is None:
        return {}, ()
    setup = setup_sources(release)
    names = imported_names(trusted_imports(list(setup)))
    plans = {}
    for cell in nb.cells:
        name = grade_id(cell)
        if is_graded_test(cell) and name is not None and name in sources:  # (the gradebook names every cell)
            found = plan(name, sources[name], names)
            plans[name] = (found, sources[name], found.kernel_code()[1])
    return plans, setup
