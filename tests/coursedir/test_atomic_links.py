"""Writes into the course directory never follow a link another account could plant there (issue 58).

Root's ``course grade`` and the instructor's commands write results, logs,
reviews and side files into folders the staff group can change. A grader
who replaces ``results/<student>`` by a link to a folder of root's would
otherwise have root write there. ``write_atomic`` reaches its folder one
name at a time and takes no link inside a folder others can change; links in
folders only the writer (or root) controls are followed as before.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from instructor.coursedir.atomic import make_folders, write_atomic


def _shared(folder: Path) -> Path:
    folder.mkdir()
    os.chmod(folder, 0o2770)  # as `course hub` shares the course directory: the group may change it
    return folder


def test_a_link_in_a_folder_the_group_can_change_is_not_followed(tmp_path):
    outside = tmp_path / "outside"  # a folder of the writer's own, out of the course directory
    outside.mkdir(mode=0o700)
    course = _shared(tmp_path / "course")
    (course / "results").symlink_to(outside)  # planted by a member of the group
    with pytest.raises(OSError) as caught:
        write_atomic(course / "results" / "amy" / "01_rnn.json", "{}")
    assert caught.value.errno in (errno.ELOOP, errno.ENOTDIR)
    with pytest.raises(OSError):
        make_folders(course / "results" / "bob")
    assert list(outside.iterdir()) == []


def test_a_file_link_in_its_place_is_replaced_not_followed(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("mine\n")
    course = _shared(tmp_path / "course")
    (course / "overrides.json").symlink_to(target)
    write_atomic(course / "overrides.json", "{}\n")
    assert target.read_text() == "mine\n"
    assert not (course / "overrides.json").is_symlink() and (course / "overrides.json").read_text() == "{}\n"


def test_links_in_folders_only_the_writer_controls_are_followed(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    own = tmp_path / "own"
    own.mkdir(mode=0o700)
    (own / "course").symlink_to(real)  # e.g. a course directory reached through a link of the instructor's
    write_atomic(own / "course" / "results" / "amy" / "01_rnn.json", "{}")
    assert (real / "results" / "amy" / "01_rnn.json").read_text() == "{}"
    assert not any(p.name.endswith(".tmp") for p in (real / "results" / "amy").iterdir())
