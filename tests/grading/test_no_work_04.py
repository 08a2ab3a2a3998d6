"""A 04_transformer notebook with no real Transformer earns nothing it did not honestly earn (issue 32, finding 1).

Each case of tests/hostile/no_work_04.py (average attention, identity layers,
weights zeroed before use, a zero positional encoding, a greedy decoder that
returns the output layer's favourite symbol, a copier of the visible tests'
values) is run as the grader runs a submission: the kernel executes the
notebook, and every graded test cell is judged outside it
(``MistakeRunner.run_notebook``). Only the checks of the case's honest answers
may pass.
"""

from __future__ import annotations

import pytest

from instructor.cells import read
from instructor.paths import SOLUTIONS, notebook_path
from tests.hostile.no_work_04 import A, build, cases
from tests.nbexec import MistakeRunner, without_hidden_tests

CASES = cases()


@pytest.fixture(scope="module")
def runner():
    started = MistakeRunner(A)
    yield started
    started.close()


def points() -> dict[str, float]:
    """Each autograded cell's points in the release."""
    return {
        c.metadata.nbgrader["grade_id"]: c.metadata.nbgrader.get("points", 0)
        for c in read(notebook_path(A, SOLUTIONS)).cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade") and c.cell_type == "code"
    }


@pytest.mark.notebook
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_no_work_scores_only_what_it_honestly_answers(runner, case):
    """Does every check that the case's honest answers do not cover fail?"""
    run = runner.run_notebook(build(case))
    graded = {c.grade_id: c for c in run.graded()}
    assert set(graded) == set(points()), "every autograded cell ran"
    unearned = sorted(g for g, c in graded.items() if not c.failed and g not in case.allowed())
    scored = sum(points()[g] for g, c in graded.items() if not c.failed)
    passed = sorted(g for g, c in graded.items() if not c.failed)
    print(f"{case.name}: {scored:g} of {sum(points().values()):g} points; passed {passed}")
    assert not unearned, f"{case.name} ({case.why}) passes {unearned}"


#: the visible checks the copier answers with copied values (its hidden checks then fail, above)
COPIED = ("encoder__layer", "transformer__forward", "greedy__step_by_step", "positional_encoding__values")


@pytest.mark.notebook
def test_the_copier_passes_the_visible_checks_it_copies():
    """Is the copier a real threat: does it pass, as Validate runs them, the visible checks whose values it copies?"""
    case = next(c for c in CASES if c.name == "copies_visible_values")
    visible = MistakeRunner(A, visible_only=True)
    try:
        run = visible.run_notebook(without_hidden_tests(build(case)))
    finally:
        visible.close()
    failed = {c.grade_id for c in run.failed_tests()}
    assert not failed & set(COPIED), sorted(failed & set(COPIED))


def test_cases_cover_the_issue():
    """Are the degenerate model of issue 32, identity layers, zeroed weights and a copier all in the corpus?"""
    assert {c.name for c in CASES} >= {"degenerate", "identity", "zeroed_weights", "copies_visible_values"}
