"""Due dates as data: ``due.json`` read into the settings, checked on the open file; older settings files moved."""

from __future__ import annotations

import json
import os

import pytest

from instructor.coursedir import directory
from instructor.coursedir.due import DUE_LIMIT, DUE_NAME, parse_due, read_due
from instructor.errors import CourseError
from tests.factories import older_course_dir


@pytest.fixture
def folder(tmp_path):
    folder = tmp_path / "cd"
    directory.init(folder, exchange=tmp_path / "ex", due={"01_rnn": "2026-10-05 17:00:00 UTC"})
    return folder


def test_the_dates_live_in_due_json_and_the_settings_read_them(folder):
    """Is a due date written to due.json (not the Python file), and read back through the settings?"""
    assert json.loads((folder / DUE_NAME).read_text()) == {"01_rnn": "2026-10-05 17:00:00 UTC"}
    assert "2026-10-05" not in (folder / directory.CONFIG_NAME).read_text()
    assert directory.current_settings(folder).due == {"01_rnn": "2026-10-05 17:00:00 UTC"}


def test_moving_a_date_leaves_the_settings_file_unwritten(folder):
    """Does `course init --due` touch only due.json when nothing else changes (the settings are root's on the hub)?"""
    written = [folder / directory.CONFIG_NAME, folder / directory.SETTINGS_NAME]
    for path in written:
        os.utime(path, (0, 0))
    directory.init(folder, due={"01_rnn": "2026-10-06 17:00:00 UTC", "02_seq2seq": "2026-10-19 17:00:00 UTC"})
    assert [path.stat().st_mtime for path in written] == [0, 0]
    assert directory.current_settings(folder).due == {
        "01_rnn": "2026-10-06 17:00:00 UTC",
        "02_seq2seq": "2026-10-19 17:00:00 UTC",
    }


def test_an_older_settings_file_keeps_its_dates_and_is_moved(tmp_path):
    """A file an older `course init` wrote holds its dates in Python: read as they are, moved to due.json."""
    folder = older_course_dir(tmp_path / "cd", tmp_path / "ex")
    settings = folder / directory.CONFIG_NAME
    older = settings.read_text().replace(
        "c.DueDates.dates = read_due(Path(__file__).resolve().parent)", "c.DueDates.dates = {'01_rnn': '2026-11-01'}"
    )
    assert older != settings.read_text()
    settings.write_text(older)
    directory.init(folder)
    assert json.loads((folder / DUE_NAME).read_text()) == {"01_rnn": "2026-11-01"}
    assert "2026-11-01" not in settings.read_text()
    assert directory.current_settings(folder).due == {"01_rnn": "2026-11-01"}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not json", "is not JSON"),
        ('["01_rnn"]', "must map assignment names to dates"),
        ('{"../etc": "2026-10-05"}', "must map assignment names to dates"),
        ('{"01_rnn": 5}', "must map assignment names to dates"),
        ('{"01_rnn": "next week"}', "'next week' is not a date"),
        ("{}" + " " * DUE_LIMIT, "more than"),
    ],
)
def test_a_due_file_that_is_not_dates_is_refused(tmp_path, text, says):
    (tmp_path / DUE_NAME).write_text(text)
    with pytest.raises(CourseError, match=says):
        read_due(tmp_path)


def test_a_link_a_fifo_or_a_second_name_is_refused_unread(tmp_path):
    """What staff could plant for root to read: none is followed, opened for long, or parsed."""
    other = tmp_path / "other.json"
    other.write_text("{}")
    due = tmp_path / DUE_NAME
    for make in (lambda: due.symlink_to(other), lambda: os.mkfifo(due), lambda: os.link(other, due)):
        make()
        with pytest.raises(CourseError, match="is not a file the course reads"):
            read_due(tmp_path)
        due.unlink()
    assert read_due(tmp_path) == {}


def test_due_names_an_assignment():
    with pytest.raises(CourseError, match="is not an assignment name"):
        parse_due(["../01_rnn=2026-10-05 17:00 UTC"])
    assert parse_due(["01_rnn=2026-10-05 17:00 UTC"]) == {"01_rnn": "2026-10-05 17:00:00 UTC"}
