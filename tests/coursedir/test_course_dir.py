"""The course directory as one value: read once where a command starts, carried down whole."""

from __future__ import annotations

import dataclasses
import pickle
import re

import pytest

from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.paths import COURSE_ID, REPO_ROOT


@pytest.fixture
def folder(tmp_path):
    folder = tmp_path / "cd"
    directory.init(folder, exchange=tmp_path / "ex", late_penalty=25, due={"01_rnn": "2026-10-05 17:00 UTC"})
    return folder


def test_open_holds_what_the_settings_file_says(folder, tmp_path):
    """Does one open give the path, the settings, the gradebook URL, the exchange and the releases folder?"""
    course_dir = CourseDir.at(folder)
    assert course_dir.path == folder and course_dir.exists
    assert course_dir.exchange == tmp_path / "ex"
    assert course_dir.settings.late_penalty == 25
    assert course_dir.due == {"01_rnn": "2026-10-05 17:00 UTC"}
    assert course_dir.gradebook_url == f"sqlite:///{folder / 'gradebook.db'}"
    assert course_dir.archive_root == folder / "releases"
    assert course_dir.course_id == COURSE_ID
    assert course_dir.config.PercentPerDay.percent_per_day == 25


def test_a_db_given_wins_over_the_settings(folder):
    """Does --db name the gradebook instead of the settings' SQLite file?"""
    url = f"sqlite:///{folder / 'elsewhere.db'}"
    assert CourseDir.at(folder, db=url).gradebook_url == url


def test_it_is_read_once(folder):
    """Does an opened course directory keep what it read, whatever the file says later, and is it frozen?"""
    course_dir = CourseDir.at(folder)
    directory.init(folder, late_penalty=50)
    assert course_dir.settings.late_penalty == 25 and CourseDir.at(folder).settings.late_penalty == 50
    with pytest.raises(dataclasses.FrozenInstanceError):
        course_dir.path = folder.parent  # type: ignore[misc]


def test_the_grading_config_is_a_copy(folder):
    """Does each grading configuration start from the file's, with the gradebook in use, changes kept to itself?"""
    course_dir = CourseDir.at(folder)
    cfg = course_dir.grading_config()
    assert cfg.CourseDirectory.db_url == course_dir.gradebook_url
    cfg.PercentPerDay.percent_per_day = 99
    assert course_dir.grading_config().PercentPerDay.percent_per_day == 25


def test_it_travels_to_a_dask_worker_whole(folder):
    """Does a pickled course directory (what a Dask task carries) come back equal, its configuration with it?"""
    course_dir = CourseDir.at(folder)
    back = pickle.loads(pickle.dumps(course_dir))
    assert back == course_dir and back.config == course_dir.config


def test_a_folder_that_is_not_a_course_directory_is_one_sentence(tmp_path):
    """Is opening a folder `course init` never made refused in one sentence that says what to run?"""
    with pytest.raises(CourseError, match=re.escape("is not a course directory yet: run `course init")):
        CourseDir.at(tmp_path / "nothing")


def test_a_planned_course_directory_is_made_with_the_defaults(tmp_path):
    """Does `course grade`'s planned directory hold `course init`'s defaults, and init() write and read them,
    keeping the --db given?"""
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    planned = CourseDir.planned(tmp_path / "new", db=url)
    assert not planned.exists and planned.exchange == tmp_path / "new" / "exchange"
    assert planned.gradebook_url == url
    made = planned.init()
    assert made.exists and made.gradebook_url == url and made.exchange == planned.exchange
    assert CourseDir.planned(tmp_path / "new").settings == made.settings


@pytest.mark.parametrize("opener", [CourseDir.at, CourseDir.planned])
def test_a_bad_db_url_is_one_sentence(folder, opener):
    """Is a --db that is no database URL refused in one sentence, wherever the course directory is opened?"""
    with pytest.raises(CourseError, match="is not a database URL"):
        opener(folder, db="not a url")


#: where the settings file may be read and the gradebook's URL worked out: the course directory's own modules
#: the course directory's own modules, and the one line nbgrader runs (instructor.settings.configure_course_dir)
READERS = {"instructor/coursedir/directory.py", "instructor/coursedir/course_dir.py", "instructor/settings.py"}


def test_nothing_below_the_commands_reads_the_settings_or_works_out_the_url_again():
    """Does no module but the course directory's own read its settings, or build the gradebook URL?"""
    pattern = re.compile(r"\b(load_config|current_settings|configured_db_url)\(|gradebook\.url\(|sqlite:///\{")
    offenders = sorted(
        f"{path.relative_to(REPO_ROOT)}:{n}"
        for path in (REPO_ROOT / "instructor").rglob("*.py")
        if str(path.relative_to(REPO_ROOT)) not in READERS
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line) and not line.lstrip().startswith(("def ", "#"))
    )
    assert offenders == []


def test_the_gradebook_server_is_checked_in_one_place():
    """Is --db's server opened by the course directory alone (once per command), not by each command again?"""
    callers = sorted(
        str(path.relative_to(REPO_ROOT))
        for path in (REPO_ROOT / "instructor").rglob("*.py")
        if re.search(r"(?<!def )require_server\(", path.read_text())
    )
    assert callers == ["instructor/coursedir/course_dir.py"]


#: where a bare ``course_path`` stays (docs/glossary.md, "Where a bare course_path stays"): what opens or makes a
#: CourseDir, the settings' own files, nbgrader's configuration hook, and root-run code of the hub
BARE_COURSE_PATH = {
    "instructor/coursedir/directory.py": {
        "is_course_dir",
        "require",
        "read_settings",
        "load_config",
        "current_settings",
        "_legacy_settings",
        "settings_of",
        "init",
    },
    "instructor/coursedir/due.py": {"read_due", "write_due"},
    "instructor/settings.py": {"configure_course_dir"},
    "instructor/hub/accounts.py": {"share_course_dir", "set_up_exchange"},
    "instructor/hub/pinned.py": {"lock_path", "pinned"},
    "instructor/hub/privileged.py": {"_release_feedback", "_require_root_settings"},
}


def test_a_bare_course_path_is_taken_only_where_the_glossary_allows_it():
    """Does every other function that needs the course directory take a CourseDir (issue 60), and does nothing
    outside course_dir.py import a module of places again?"""
    import ast

    taken: dict[str, set[str]] = {}
    for path in (REPO_ROOT / "instructor").rglob("*.py"):
        name = str(path.relative_to(REPO_ROOT))
        if name.startswith("instructor/sandbox/") or name == "instructor/grading/execute.py":
            continue  # owned elsewhere
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                if any(a.arg == "course_path" for a in args):
                    taken.setdefault(name, set()).add(node.name)
            if isinstance(node, ast.ImportFrom) and node.module and "places" in node.module.split("."):
                taken.setdefault(name, set()).add(f"import {node.module}")
    assert taken == BARE_COURSE_PATH
