"""Is the value channel the grader's? Values no check asked for, for another cell, or cut, fail and flag.

The cases of tests/hostile/kernel_cheats.py's class "value channel" (issue 32,
finding 5), read from the corpus graded once for the session in the sandbox
(tests/grading/conftest.py, with the controls): each scores 0 and is flagged;
the reference keeps 9/9, unflagged. tests/grading/test_kernel_cheats.py
searches the same results for hidden lines.
"""

from __future__ import annotations

import pytest

from tests.hostile.kernel_cheats import CHANNEL_CASES

pytestmark = pytest.mark.notebook


@pytest.fixture(scope="module")
def outcomes(graded_corpus):
    """The results of the graded corpus (tests/grading/conftest.py), the channel's cases and the reference among
    them."""
    return graded_corpus["outcomes"]


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
