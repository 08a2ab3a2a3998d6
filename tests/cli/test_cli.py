"""The `course` command as a whole: every user error is one sentence."""

from __future__ import annotations

import pytest

from tests.factories import assert_one_sentence_error


@pytest.mark.parametrize(
    "args, message",
    [
        (["release", "99_nope"], "There is no assignment '99_nope'"),
        (["grade", "/nonexistent/subs"], "There is no submissions folder"),
        (["export", "--course-dir", "/nonexistent/ws"], "has no gradebook"),
        (["feedback", "--course-dir", "/nonexistent/ws"], "has nothing autograded yet"),
        (["check", "--root", "/"], "is not a course repository"),
    ],
)
def test_errors_are_one_sentence(run_course, args, message):
    """Does each user error end in one sentence and exit status 1, never a traceback?"""
    _, err = run_course(args, retcode=1)
    assert_one_sentence_error(err)
    assert message in err
