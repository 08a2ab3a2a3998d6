"""Does a submission that skips the work of 01_rnn or 03_attention score 0 on every check it does not honestly pass?

The cases are in tests/hostile/no_work_01_03.py. Each is graded as the
grader grades it: the notebook runs in a kernel with its test cells split, and
each check is judged outside the kernel (tests/nbexec.py's runner).

    python -m tests.grading.test_no_work_01_03    # the points of every case
"""

from __future__ import annotations

import pytest

from instructor.authoring.mistakes import Mistake
from instructor.cells import find_cell, grade_id, is_graded_test
from tests.hostile.no_work_01_03 import CASES, NoWork, as_graded, submission
from tests.nbexec import MistakeRunner

ASSIGNMENTS = sorted({c.assignment for c in CASES})


def graded_cells(nb) -> dict[str, float]:
    """grade_id -> points of every graded test cell of ``nb``."""
    return {grade_id(c): float(c.metadata["nbgrader"]["points"]) for c in nb.cells if is_graded_test(c)}


def grade(runner: MistakeRunner, case: NoWork) -> dict[str, bool]:
    """grade_id -> passed, for every graded test cell of the case's submission, judged as the grader judges."""
    nb = as_graded(submission(case), case.assignment)
    runner.source = nb
    # the runner applies one edit; this one changes nothing (the submission is the edit)
    setup = find_cell(nb, "setup").source
    run = runner.run(Mistake("setup", "as_submitted", "the submission as it is", setup, setup))
    failed = {c.grade_id for c in run.failed_tests()}
    return {gid: gid not in failed for gid in graded_cells(nb)}


@pytest.fixture(scope="module")
def runners():
    started = {a: MistakeRunner(a) for a in ASSIGNMENTS}
    yield started
    for runner in started.values():
        runner.close()


@pytest.mark.notebook
@pytest.mark.parametrize("case", CASES, ids=[f"{c.assignment}-{c.name}" for c in CASES])
def test_no_work_scores_only_what_it_honestly_passes(runners, case):
    """Does the case pass exactly its honest cells (0 on every other check)?"""
    passed = grade(runners[case.assignment], case)
    unearned = sorted(gid for gid, ok in passed.items() if ok and gid not in case.honest)
    assert not unearned, f"{case.name} ({case.why}) scores on {unearned}"
    lost = sorted(gid for gid in case.honest if not passed[gid])
    assert not lost, f"{case.name}: honest work fails {lost}"


def main() -> None:
    for assignment in ASSIGNMENTS:
        runner = MistakeRunner(assignment)
        points = graded_cells(runner.source)
        for case in (c for c in CASES if c.assignment == assignment):
            passed = grade(runner, case)
            got = sum(points[g] for g, ok in passed.items() if ok)
            unearned = sum(points[g] for g, ok in passed.items() if ok and g not in case.honest)
            names = ", ".join(g for g, ok in passed.items() if ok) or "-"
            print(
                f"{assignment:13s} {case.name:16s} {got:g}/{sum(points.values()):g} (unearned {unearned:g}): {names}",
                flush=True,
            )
        runner.close()


if __name__ == "__main__":
    main()
