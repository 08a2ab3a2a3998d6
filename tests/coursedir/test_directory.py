"""The course directory's settings file, across a change of the code's layout."""

from __future__ import annotations

import json

import pytest

from instructor.coursedir import directory
from instructor.errors import CourseError
from tests.factories import assert_one_sentence_error, older_course_dir


def _as_an_older_release_wrote_it(folder, tmp_path) -> None:
    """The settings as Python in nbgrader_config.py, with the module names of the layout before instructor/."""
    older_course_dir(folder, tmp_path / "exchange", late_penalty=25)
    path = folder / directory.CONFIG_NAME
    text = path.read_text().replace("instructor.settings", "course.nbgrader_settings")
    path.write_text(text.replace("instructor.coursedir.late.PercentPerDay", "course.late.PercentPerDay"))
    (folder / "due.json").write_text('{"01_rnn": "2026-10-05 17:00:00 UTC"}')


def test_an_older_settings_file_is_one_sentence_then_course_init_mends_it(tmp_path, run_course):
    """Is a course directory whose settings an older `course init` kept as Python (naming even older course.*
    modules) refused in one sentence, and does `course init` turn them into data, keeping their values?"""
    folder = tmp_path / "grading"
    _as_an_older_release_wrote_it(folder, tmp_path)

    _, err = run_course(["export", "--course-dir", folder], retcode=1)
    assert_one_sentence_error(err)
    assert "older `course init`" in err and f"course init {folder}" in err

    run_course(["init", folder])
    settings = directory.current_settings(folder)
    assert settings.late_penalty == 25 and settings.due == {"01_rnn": "2026-10-05 17:00:00 UTC"}
    assert settings.exchange == tmp_path / "exchange"
    assert (folder / directory.CONFIG_NAME).read_text() == directory.CONFIG_TEXT  # no value left in Python
    data = json.loads((folder / directory.SETTINGS_NAME).read_text())
    assert data["PercentPerDay"] == {"percent_per_day": 25.0} and data["Exchange"] == {
        "root": str(tmp_path / "exchange")
    }


def test_the_settings_are_data_course_never_runs(tmp_path):
    """Does `course` read the settings without running nbgrader_config.py, keep the nbgrader settings an
    instructor adds to the JSON, and refuse a link or a file that is not its shape in one sentence?"""
    folder = tmp_path / "cd"
    directory.init(folder, exchange=tmp_path / "ex", late_penalty=5)
    mark = tmp_path / "ran"
    (folder / directory.CONFIG_NAME).write_text(f"open({str(mark)!r}, 'w').write('ran')\n")
    assert directory.load_config(folder).PercentPerDay.percent_per_day == 5.0
    assert not mark.exists()
    path = folder / directory.SETTINGS_NAME
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "OwnedCollect": {"max_files": 3}}))
    directory.init(folder, late_penalty=7)
    assert json.loads(path.read_text())["OwnedCollect"] == {"max_files": 3}
    assert directory.load_config(folder).OwnedCollect.max_files == 3
    assert (folder / directory.CONFIG_NAME).read_text() == directory.CONFIG_TEXT  # written back
    for bad, says in (("[1]", "must map nbgrader's sections"), ("{nope", "is not JSON")):
        path.write_text(bad)
        with pytest.raises(CourseError, match=says):
            directory.load_config(folder)
    path.unlink()
    path.symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(CourseError, match="not a file the course reads"):
        directory.load_config(folder)
