"""Is the value channel the grader's? Values no check asked for, for another cell, or cut, fail and flag.

The cases of tests/hostile/kernel_cheats.py's class "value channel" (issue 32,
finding 5), graded in the sandbox with the two controls: each scores 0 and is
flagged; the reference keeps 9/9, unflagged. The whole corpus is graded again
by tests/grading/test_kernel_cheats.py (and searched for hidden lines).
"""

from __future__ import annotations

import dataclasses

import pytest

from tests.hostile import grading
from tests.hostile.grading import grade_corpus
from tests.hostile.kernel_cheats import CHANNEL_CASES, build_corpus
from tests.system import require_sandbox

pytestmark = pytest.mark.notebook


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    isolation = require_sandbox()
    root = tmp_path_factory.mktemp("value_channel")
    build_corpus(root / "submissions", {"course_dir": str(root / "grading")}, only={"reference", *CHANNEL_CASES})
    # a kernel's imports take more than the corpus's 10 s a cell on a loaded machine: four cases can wait longer
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grading, "LIMITS", dataclasses.replace(grading.LIMITS, cell_timeout=60, notebook_budget=300))
        return grade_corpus(root / "submissions", root / "grading", isolation)


@pytest.mark.parametrize("case", CHANNEL_CASES)
def test_values_the_grader_did_not_ask_for_fail_and_flag(outcomes, case):
    """Forged values (then 4 MB that once cut the real ones), values shown from a student cell, a display
    updated into values: 0 points, and the submission is flagged for the channel."""
    o = outcomes[case]
    assert o.status.shown == "not graded" or o.score == 0, (o.status, o.score)
    said = " ".join(map(str, o.flags)) + str(o.reason)
    assert o.flags and ("values no check" in said or "values were cut" in said), (o.flags, o.reason)


def test_the_reference_keeps_its_values(outcomes):
    o = outcomes["reference"]
    assert o.status.shown == "graded" and o.score == o.max_score and not o.flags, (o.status, o.reason)
