"""Only grading runs as root: what it writes goes back to the instructor who owns the course directory."""

from __future__ import annotations

import os
import shutil

from tests.system import require_root, require_sandbox

INSTRUCTOR = 4321  # a uid with no account: ownership is what is checked


def test_grading_as_root_hands_the_files_back(course_repo, tmp_path, run_course):
    """After `course grade` as root in a course directory that an instructor owns, does every file it wrote
    belong to that instructor, while a student's file in the exchange keeps its owner?"""
    require_sandbox()
    cd = tmp_path / "cd"
    cd.mkdir()
    os.chown(cd, INSTRUCTOR, INSTRUCTOR)
    run_course(["init", "--course-dir", cd])
    planted = cd / "exchange" / "planted.txt"
    planted.write_text("a student's file")
    (cd / "subs" / "ref" / "01_toy").mkdir(parents=True)
    shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", cd / "subs" / "ref" / "01_toy")
    run_course(["grade", cd / "subs", "--course-dir", cd, "--root", course_repo, "--assignment", "01_toy"])
    written = [
        p
        for name in ("autograded", "results", "logs", "release", "releases", "source", "gradebook.db")
        for p in [cd / name, *(cd / name).rglob("*")]
    ]
    assert written and {os.lstat(p).st_uid for p in written} == {INSTRUCTOR}
    assert os.lstat(planted).st_uid == 0  # never walked


def test_formgrader_as_root_is_refused_without_allow_root(tmp_path, run_course):
    """Is `course formgrader` run as root refused in one sentence unless --allow-root is passed on?"""
    require_root("the refusal is of root")
    run_course(["init", tmp_path / "cd"])
    _, err = run_course(["formgrader", "--course-dir", tmp_path / "cd"], retcode=1)
    assert "run it as the instructor who owns" in err and len(err.strip().splitlines()) == 1
