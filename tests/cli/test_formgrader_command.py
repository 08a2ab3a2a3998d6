"""`course formgrader` serves nbgrader's formgrader with the course's pages extension."""

from __future__ import annotations

from pathlib import Path

from instructor.cli.formgrader import COURSE_PAGES, command
from instructor.coursedir.course_dir import CourseDir
from instructor.reporting import formgrader_pages


def test_the_command_loads_the_course_pages():
    """Does the jupyter lab command line enable the extension module that refuses Autograde and marks flags?"""
    line = command(CourseDir.places_at(Path("/srv/course")), "127.0.0.1", 8888, ["--allow-root"])
    assert COURSE_PAGES in line and line[-1] == "--allow-root"
    module = COURSE_PAGES.split("=", 1)[1].rsplit("=", 1)[0]
    assert module == formgrader_pages.__name__
    assert formgrader_pages._jupyter_server_extension_points() == [{"module": module}]


def test_a_flag_is_read_from_course_grades_results(tmp_path):
    """Is a submission "Flagged?" exactly when its results file says flagged (none, or graded, is not)?"""
    import json

    results = tmp_path / "results" / "eve"
    results.mkdir(parents=True)
    assert not formgrader_pages.course_flagged(CourseDir.places_at(tmp_path), "eve", "01_rnn")
    record = {"student": "eve", "assignment": "01_rnn", "status": "flagged", "reason": "the test cell was edited"}
    (results / "01_rnn.json").write_text(json.dumps(record))
    flagged = formgrader_pages.course_flagged(CourseDir.places_at(tmp_path), "eve", "01_rnn")
    (results / "01_rnn.json").write_text(json.dumps({**record, "status": "graded"}))
    assert flagged and not formgrader_pages.course_flagged(CourseDir.places_at(tmp_path), "eve", "01_rnn")
