"""Do 02_seq2seq's checks give nothing for skipped work (tests/hostile/no_work_02.py)?

Each case runs in one kernel (reset between cases) with its test cells judged
outside the kernel, as ``course grade`` judges them (tests/nbexec.py). A case
keeps the points of the cells it passes by real work and scores 0 on every other.
"""

from __future__ import annotations

import pytest

from instructor.cells import grade_id, is_graded_test, read
from instructor.paths import SOLUTIONS, notebook_path
from tests.hostile.no_work_02 import CASES, A, build
from tests.nbexec import MistakeRunner

#: Part A's cells: every case answers them with the reference
PART_A = {"one_hot_encode_prediction__marks_the_best_class", "one_hot_encode_prediction__float32_array"}


def points() -> dict[str, float]:
    """Each graded test cell's points in the release."""
    nb = read(notebook_path(A, SOLUTIONS))
    return {grade_id(c): c.metadata["nbgrader"]["points"] for c in nb.cells if is_graded_test(c)}


@pytest.fixture(scope="module")
def runner():
    started = MistakeRunner(A)
    yield started
    started.close()


@pytest.mark.notebook
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_no_work_scores_nothing(runner, case):
    """Does the case score exactly the points of the cells it passes by real work?"""
    run = runner.run_notebook(build(case))
    passed = {c.grade_id for c in run.graded() if not c.failed}
    honest = PART_A | case.honest
    table = points()
    score = sum(table[g] for g in passed)
    print(f"{case.name}: {score:g} of {sum(table.values()):g} ({', '.join(sorted(passed)) or 'nothing'})")
    assert passed - honest == set(), f"{case.name} ({case.why}) passes without the work: {sorted(passed - honest)}"
    assert honest <= passed, f"{case.name}: honest work lost points in {sorted(honest - passed)}"
