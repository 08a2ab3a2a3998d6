"""The course directory's settings file, across a change of the code's layout."""

from __future__ import annotations

from instructor.coursedir import directory
from tests.factories import assert_one_sentence_error


def _as_an_older_release_wrote_it(folder) -> None:
    """Rewrite the settings file with the module names of the layout before instructor/ existed."""
    path = folder / directory.CONFIG_NAME
    text = path.read_text().replace("instructor.settings", "course.nbgrader_settings")
    path.write_text(text.replace("instructor.coursedir.late.PercentPerDay", "course.late.PercentPerDay"))


def test_an_older_settings_file_is_one_sentence_then_course_init_mends_it(tmp_path, run_course):
    """Is a settings file naming the old course.* modules refused in one sentence, and does `course init` mend
    it, keeping its values?"""
    folder = tmp_path / "grading"
    run_course(["init", folder, "--late-penalty", "25", "--due", "01_rnn=2026-10-05 17:00 UTC"])
    _as_an_older_release_wrote_it(folder)

    _, err = run_course(["export", "--course-dir", folder], retcode=1)
    assert_one_sentence_error(err)
    assert "older `course init`" in err and f"course init {folder}" in err

    run_course(["init", folder])
    settings = directory.current_settings(folder)
    assert settings.late_penalty == 25 and settings.due == {"01_rnn": "2026-10-05 17:00:00 UTC"}
    assert "course.nbgrader_settings" not in (folder / directory.CONFIG_NAME).read_text()
