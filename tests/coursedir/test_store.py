"""The side files of the course directory: every writer's update kept, files written with the staff's owner and mode
(issue 43, finding 6; issue 46, finding 5)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from instructor.coursedir import overrides, reviews
from instructor.coursedir.atomic import write_atomic
from instructor.coursedir.course_dir import OVERRIDES, REVIEWS, CourseDir
from instructor.coursedir.store import Unreadable
from instructor.reporting.formgrader_pages import record_override
from tests.system import require_root

INSTRUCTOR = 4321  # a uid and gid with no account: the course directory's owner, as the hub makes it
GRADER = 4322


def _as(uid: int, gid: int, work) -> int:
    """Run ``work()`` in a forked child as ``uid`` (groups: ``gid``); returns the child's pid.

    A fork, not a new interpreter: the other account cannot read root's Python installation.
    """
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 1
        try:
            if os.geteuid() == 0 and uid != 0:
                os.setgroups([gid])
                os.setgid(gid)
                os.setuid(uid)
            work()
            code = 0
        finally:
            os._exit(code)
    return pid


def _wait(*pids: int) -> None:
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0


def _change(cell: str, what: str = "override") -> overrides.Change:
    return overrides.Change(student="amy", assignment="01_rnn", cell=cell, from_=0.0, to=1.0, what=what)


@pytest.fixture
def open_tmp():
    """A folder every account can pass through (pytest's own is root's 0700), removed afterwards."""
    require_root("the test switches accounts")
    folder = Path(tempfile.mkdtemp(prefix="course-store-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


@pytest.fixture
def shared(open_tmp):
    """A course directory as the hub makes it: the instructor's, group-writable and setgid for the course group."""
    cd = open_tmp / "cd"
    cd.mkdir()
    os.chown(cd, INSTRUCTOR, INSTRUCTOR)
    os.chmod(cd, 0o2770)
    return cd


def test_root_and_a_grader_updating_at_once_lose_nothing(shared):
    """Root's `course grade` and a grader append to the overrides file at the same time, 60 entries each, interleaved:
    is every entry there, and is the file still 0660 in the course group (whoever wrote it last owns it)?"""
    overrides.add(CourseDir.places_at(shared), _change("warm-up"))  # every module loaded before the fork

    def writer(who: str):
        return lambda: [overrides.add(CourseDir.places_at(shared), _change(f"{who}{i}")) for i in range(60)]

    _wait(_as(0, 0, writer("root")), _as(GRADER, INSTRUCTOR, writer("grader")))
    cells = [e.cell for e in overrides.entries(CourseDir.places_at(shared))]
    assert sorted(cells) == sorted(["warm-up"] + [f"{who}{i}" for who in ("root", "grader") for i in range(60)])
    info = os.stat(shared / OVERRIDES)
    assert (info.st_uid in (INSTRUCTOR, GRADER), info.st_gid, stat.S_IMODE(info.st_mode)) == (True, INSTRUCTOR, 0o660)


def test_a_hand_grade_taken_back_by_root_survives_the_formgraders_override(open_tmp):
    """The finding: `course grade` as root records a hand grade taken back in a course directory the instructor
    owns (0700, no group); then the instructor's formgrader saves an override. Are both records in the overrides?"""
    cd = open_tmp / "cd"
    cd.mkdir(mode=0o700)
    os.chown(cd, INSTRUCTOR, INSTRUCTOR)
    overrides.add(CourseDir.places_at(cd), _change("why", what="hand grade reset"))  # root's course grade

    class Grade:  # what nbgrader's formgrader hands record_override: the grade just saved
        name, auto_score, manual_score = "rnn__matches_numpy", 0.0, 2.0
        notebook = type(
            "N",
            (),
            {
                "name": "01_rnn",
                "student": type("S", (), {"id": "amy"}),
                "assignment": type("A", (), {"name": "01_rnn"}),
            },
        )

    _wait(_as(INSTRUCTOR, INSTRUCTOR, lambda: record_override(CourseDir.places_at(cd), Grade, "ana")))
    changes = json.loads((cd / OVERRIDES).read_text())
    assert [(e["cell"], e["what"], e.get("by", "")) for e in changes] == [
        ("why", "hand grade reset", ""),
        ("rnn__matches_numpy", "override", "ana"),
    ]
    info = os.stat(cd / OVERRIDES)
    assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (INSTRUCTOR, 0o600)


def test_an_unreadable_store_is_never_written_over(tmp_path):
    """An overrides file that cannot be parsed: does an update stop in one sentence, leaving the file as it was?"""
    (tmp_path / OVERRIDES).write_text('[{"student": "amy"')
    with pytest.raises(Unreadable, match="overrides.json cannot be read") as err:
        overrides.add(CourseDir.places_at(tmp_path), _change("rnn"))
    assert len(str(err.value).splitlines()) == 1
    assert (tmp_path / OVERRIDES).read_text() == '[{"student": "amy"'
    assert overrides.entries(CourseDir.places_at(tmp_path)) == []  # what only shows the records reads none


def test_new_files_follow_the_folder_and_old_files_keep_their_group_and_mode(tmp_path):
    """A new file is 0660 in the folder's group when the folder is group-writable, else 0600; a file written over
    keeps its group and mode; a new folder of a shared one is 2770 in its group."""
    private, shared = tmp_path / "private", tmp_path / "shared"
    private.mkdir(mode=0o700)
    shared.mkdir()
    os.chmod(shared, 0o2770)
    gid = 4323 if os.geteuid() == 0 else os.getgid()
    os.chown(shared, -1, gid)
    write_atomic(private / "a.json", "{}")
    write_atomic(shared / "a.json", "{}")
    assert stat.S_IMODE(os.stat(private / "a.json").st_mode) == 0o600
    assert (os.stat(shared / "a.json").st_gid, stat.S_IMODE(os.stat(shared / "a.json").st_mode)) == (gid, 0o660)
    os.chmod(private / "a.json", 0o640)
    write_atomic(private / "a.json", "[]")
    assert stat.S_IMODE(os.stat(private / "a.json").st_mode) == 0o640
    reviews.add(CourseDir.places_at(shared), "amy", "01_rnn", reviews.Clearing(flags=["f"], by="ana", because="looked"))
    folder = shared / REVIEWS / "amy"
    assert (os.stat(folder).st_gid, stat.S_IMODE(os.stat(folder).st_mode)) == (gid, 0o2770)
    assert [e.because for e in reviews.entries(CourseDir.places_at(shared), "amy", "01_rnn")] == ["looked"]
