"""What recording a graded submission changes, decided from it and the class's state alone: no disk, no gradebook."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from types import MappingProxyType

import pytest

from instructor.coursedir.extensions import Extension
from instructor.coursedir.reviews import CLEARED, Clearing
from instructor.coursedir.store import Unreadable
from instructor.grading.class_state import ClassState
from instructor.grading.record import Recorded, decide
from instructor.grading.resume import recorded
from instructor.grading.submission import Result, Status, Submission

SHA = "a" * 64
DUE = datetime(2026, 10, 8, 17, 0)
#: a folder that does not exist: nothing here may read it
NOWHERE = Path("/nonexistent/submitted/amy/01_rnn")


def _flagged(flags=("reads the tests",), sha=SHA, student="amy") -> Submission:
    sub = Submission(student, "01_rnn", NOWHERE, fingerprint={"submission_sha256": sha})
    for flag in flags:
        sub.flag(flag)
    sub.end(Status.FLAGGED, "; ".join(flags))
    return sub


def _state(**fields) -> ClassState:
    return ClassState(**{k: MappingProxyType(v) if isinstance(v, dict) else v for k, v in fields.items()})


def _cleared(flags=("reads the tests",), sha=SHA) -> Clearing:
    return Clearing(flags=list(flags), submission_sha256=sha, by="ta", at="2026-10-09 10:00 UTC", because="looked")


def test_a_cleared_flag_of_the_same_bytes_ends_graded_with_a_note():
    """Does a clearing of these very bytes covering every flag make the submission graded, with the clearing's note?"""
    change = decide(_flagged(), _state(reviews={("amy", "01_rnn"): (_cleared(),)}))
    assert change.cleared.startswith(CLEARED) and change.keeps_grade


@pytest.mark.parametrize(
    "clearing", [_cleared(sha="b" * 64), _cleared(flags=("something else",))], ids=["other bytes", "other flags"]
)
def test_a_clearing_of_other_bytes_or_flags_leaves_it_flagged(clearing):
    """Does a clearing of other bytes, or of other flags, leave the submission flagged (still with its grade)?"""
    change = decide(_flagged(), _state(reviews={("amy", "01_rnn"): (clearing,)}))
    assert change == Recorded(cleared="", keeps_grade=True, extension=None)


def test_no_grade_is_kept_without_one_or_under_a_bad_name():
    """Is no grade kept for a submission that was not graded, nor for a folder name that is no student id?"""
    ungraded = Submission("amy", "01_rnn", NOWHERE, Status.NOT_GRADED, "no notebook")
    assert decide(ungraded, _state()).keeps_grade is False
    assert decide(_flagged(student="../eve"), _state()).keeps_grade is False


def test_the_students_own_extension_and_none_without_a_due_date():
    """Is the student's extension the delay past the class's due date, and none when the assignment has no due date?"""
    ext = Extension(days=2, because="ill", granted_by="me")
    sub = Submission("amy", "01_rnn", NOWHERE, Status.GRADED)
    with_due = _state(extensions={("amy", "01_rnn"): ext}, due={"01_rnn": DUE})
    assert decide(sub, with_due).extension == timedelta(days=2)
    assert decide(sub, _state(extensions={("amy", "01_rnn"): ext}, due={"01_rnn": None})).extension is None
    assert decide(Submission("bob", "01_rnn", NOWHERE, Status.GRADED), with_due).extension is None


def test_an_unreadable_extensions_file_stops_a_grade_not_an_ungraded_record():
    """Does an extensions.json that could not be read stop recording a grade (the penalty would be wrong), only that?"""
    state = _state(extensions_unreadable="extensions.json cannot be read (bad); fix it by hand or remove it.")
    with pytest.raises(Unreadable, match="extensions.json cannot be read"):
        decide(Submission("amy", "01_rnn", NOWHERE, Status.GRADED), state)
    assert decide(Submission("amy", "01_rnn", NOWHERE, Status.NOT_GRADED, "x"), state).keeps_grade is False


def test_a_rerun_keeps_a_result_only_for_the_same_fingerprint_and_not_after_a_grader_failure():
    """Is a recorded result kept for an unchanged fingerprint, and graded again if it changed or the grader failed?"""
    print_ = {"submission_sha256": SHA, "source": "amy", "release_sha256": "c" * 64}
    sub = Submission("amy", "01_rnn", NOWHERE)
    kept = Result("amy", "01_rnn", Status.GRADED, fingerprint=print_)
    failed = Result("amy", "01_rnn", Status.GRADER_FAILED, fingerprint=print_)
    assert recorded(_state(results={sub.key: kept}), sub, print_) == kept
    assert recorded(_state(results={sub.key: kept}), sub, {**print_, "release_sha256": "0" * 64}) is None
    assert recorded(_state(results={sub.key: failed}), sub, print_) is None
    assert recorded(_state(), sub, print_) is None
    assert recorded(_state(results={sub.key: kept}), sub, {}) is None


def test_the_state_finds_the_newest_clearing_of_these_bytes_covering_every_flag():
    """Does the class's state pick the newest clearing of the submission's own bytes covering all of its flags?"""
    older = _cleared(flags=("reads the tests", "imports os"))
    newer = Clearing(flags=["reads the tests"], submission_sha256=SHA, by="ana", at="2026-10-10 09:00 UTC")
    other_bytes = _cleared(sha="b" * 64)
    state = _state(reviews={("amy", "01_rnn"): (older, newer, other_bytes)})
    assert state.clearing(_flagged()) == newer
    assert state.clearing(_flagged(flags=("reads the tests", "imports os"))) == older
    assert state.clearing(_flagged(flags=("a new flag",))) is None
    assert state.clearing(_flagged(student="bob")) is None


def test_the_state_works_out_the_extension_past_the_class_due_date():
    """Is an extension the delay past the class's due date: `days` moves with it, an `until` it overtook gives none?"""
    until = Extension(until="2026-10-10 17:00:00 UTC")
    state = _state(extensions={("amy", "01_rnn"): until, ("bob", "01_rnn"): Extension(days=0.5)}, due={"01_rnn": DUE})
    assert state.extension(("amy", "01_rnn")) == timedelta(days=2)
    assert state.extension(("bob", "01_rnn")) == timedelta(hours=12)
    assert state.extension(("cat", "01_rnn")) is None
    moved = _state(extensions={("amy", "01_rnn"): until}, due={"01_rnn": datetime(2026, 10, 11)})
    assert moved.extension(("amy", "01_rnn")) is None
    assert _state(extensions={("amy", "01_rnn"): until}).extension(("amy", "01_rnn")) is None
