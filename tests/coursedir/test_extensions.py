"""The record of per-student extensions (<dir>/extensions.json): what is kept, what is refused."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from instructor.coursedir import directory, extensions
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError

DUE = datetime(2026, 10, 5, 17, 0)  # the class's due date of 01_rnn, naive UTC as nbgrader keeps it


@pytest.fixture
def folder(tmp_path):
    """A course directory where 01_rnn is due 2026-10-05 17:00 UTC and 02_seq2seq has no due date."""
    folder = tmp_path / "cd"
    directory.init(folder, due={"01_rnn": "2026-10-05 17:00 UTC"})
    return folder


def test_days_and_until_give_the_student_a_later_due_date(folder):
    """Does --days add N (fractional) days to the class's due date, and --until set the student's own?"""
    extensions.grant(CourseDir.at(folder), "amy", "01_rnn", days="1.5", because="  ill,\n doctor's note ", by="ana")
    extensions.grant(CourseDir.at(folder), "bob", "01_rnn", until="2026-10-08 12:00 UTC")
    assert extensions.extension_for(CourseDir.at(folder), "amy", "01_rnn", DUE) == timedelta(days=1, hours=12)
    assert extensions.extension_for(CourseDir.at(folder), "bob", "01_rnn", DUE) == timedelta(days=2, hours=19)
    assert extensions.extension_for(CourseDir.at(folder), "cat", "01_rnn", DUE) is None


def test_the_file_says_who_granted_what_when_and_why(folder):
    """Is extensions.json plain JSON by assignment and student, with until or days, because, granted_by and
    granted_on?"""
    extensions.grant(CourseDir.at(folder), "amy", "01_rnn", days=3, because="ill", by="ana")
    extensions.grant(CourseDir.at(folder), "bob", "01_rnn", until="2026-10-08 19:00 Europe/Berlin")
    data = json.loads((folder / "extensions.json").read_text())
    assert data["01_rnn"]["amy"]["days"] == 3 and data["01_rnn"]["amy"]["because"] == "ill"
    assert data["01_rnn"]["amy"]["granted_by"] == "ana"
    assert data["01_rnn"]["amy"]["granted_on"].endswith(" UTC")
    assert data["01_rnn"]["bob"]["until"] == "2026-10-08 17:00:00 UTC"  # kept in UTC
    assert "days" not in data["01_rnn"]["bob"] and data["01_rnn"]["bob"]["granted_by"]
    assert [p.name for p in folder.iterdir() if p.name.startswith(".extensions")] == []  # no temporary file left


def test_a_new_grant_replaces_the_earlier_one(folder):
    """Do two grants for the same student and assignment leave the second only (extensions do not add up)?"""
    extensions.grant(CourseDir.at(folder), "amy", "01_rnn", days=3)
    extensions.grant(CourseDir.at(folder), "amy", "01_rnn", days=1)
    assert [(e.student, e.days) for e in extensions.listing(CourseDir.at(folder))] == [("amy", 1)]
    assert extensions.extension_for(CourseDir.at(folder), "amy", "01_rnn", DUE) == timedelta(days=1)


def test_remove_takes_the_extension_back_and_says_when_there_is_none(folder):
    """Does remove() drop the entry (the others kept), and refuse in one sentence when there is nothing to remove?"""
    extensions.grant(CourseDir.at(folder), "amy", "01_rnn", days=3)
    extensions.grant(CourseDir.at(folder), "bob", "01_rnn", days=2)
    assert extensions.remove(CourseDir.at(folder), "amy", "01_rnn").days == 3
    assert [e.student for e in extensions.listing(CourseDir.at(folder))] == ["bob"]
    with pytest.raises(CourseError, match="amy has no extension of 01_rnn"):
        extensions.remove(CourseDir.at(folder), "amy", "01_rnn")


@pytest.mark.parametrize("until", ["2026-10-01 12:00 UTC", "2026-10-05 17:00 UTC"])
def test_an_until_not_after_the_due_date_is_refused(folder, until):
    """Is --until on or before the class's due date refused (an extension gives more time, never less)?"""
    with pytest.raises(CourseError, match="is not after the class's due date of 01_rnn") as err:
        extensions.grant(CourseDir.at(folder), "amy", "01_rnn", until=until)
    assert len(str(err.value).splitlines()) == 1
    assert not (folder / "extensions.json").exists()


def test_an_assignment_without_a_due_date_is_refused_naming_how_to_set_one(folder):
    """Is an extension of an assignment with no due date refused, naming `course init --due A=DATE`?"""
    with pytest.raises(CourseError) as err:
        extensions.grant(CourseDir.at(folder), "amy", "02_seq2seq", days=2)
    assert "02_seq2seq has no due date" in str(err.value) and "`course init --due 02_seq2seq=DATE`" in str(err.value)


@pytest.mark.parametrize(
    "student, assignment, message",
    [
        ("am y", "01_rnn", "not a valid student id"),
        ("../amy", "01_rnn", "not a valid student id"),
        ("", "01_rnn", "not a valid student id"),
        ("amy", "../01_rnn", "not a valid assignment name"),
    ],
)
def test_bad_names_are_refused(folder, student, assignment, message):
    """Are a student id or an assignment name outside the roster's id rule refused before anything is written?"""
    with pytest.raises(CourseError, match=message):
        extensions.grant(CourseDir.at(folder), student, assignment, days=1)
    assert not (folder / "extensions.json").exists()


@pytest.mark.parametrize("days", ["0", "-1", "three", "nan", "inf", "1000"])
def test_days_must_be_a_sensible_number(folder, days):
    """Is --days refused unless it is a number above 0 and at most a year?"""
    with pytest.raises(CourseError, match="--days"):
        extensions.grant(CourseDir.at(folder), "amy", "01_rnn", days=days)


@pytest.mark.parametrize(
    "until, message",
    [
        ("next tuesday-ish", "is not a date"),
        ("2026-10-08 19:00 +02:00", "is not a time zone nbgrader knows"),  # nbgrader would read it as UTC, silently
        ("2026-10-08 19:00 7200", "is not a time zone nbgrader knows"),  # nbgrader would read seconds
    ],
)
def test_a_date_nbgrader_would_misread_is_refused(folder, until, message):
    with pytest.raises(CourseError, match=message):
        extensions.grant(CourseDir.at(folder), "amy", "01_rnn", until=until)


def test_no_extension_where_there_is_nothing_to_extend(folder):
    """Is there no extension without a due date, nor when the class's due date moved past an --until?"""
    extensions.grant(CourseDir.at(folder), "amy", "01_rnn", until="2026-10-08 17:00 UTC")
    assert extensions.extension_for(CourseDir.at(folder), "amy", "01_rnn", None) is None
    assert extensions.extension_for(CourseDir.at(folder), "amy", "01_rnn", datetime(2026, 10, 9)) is None


def test_an_unreadable_file_stops_in_one_sentence(folder):
    """Is a hand-broken extensions.json refused in one sentence, not silently ignored (grades would change)?"""
    (folder / "extensions.json").write_text('{"01_rnn": {"amy": {"because": "neither until nor days"}}}')
    with pytest.raises(CourseError, match="extensions.json cannot be read") as err:
        extensions.extension_for(CourseDir.at(folder), "amy", "01_rnn", DUE)
    assert len(str(err.value).splitlines()) == 1
