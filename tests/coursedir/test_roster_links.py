"""The course directory's roster is read without following a link or waiting on a FIFO (issue 58).

On the hub root reads the staff's group-writable course directory: a grader who puts a link in place of
``roster.csv`` must not make root read a file of root's (and, since 63's variants, write its lines where
students read them), and a FIFO there must not stall root's grading step.
"""

from __future__ import annotations

import os

import pytest

from instructor.coursedir.course_dir import ROSTER_NAME, CourseDir
from instructor.coursedir.roster import roster
from instructor.errors import CourseError


def test_the_roster_is_read(tmp_path):
    (tmp_path / ROSTER_NAME).write_text("id,first_name,last_name,email\namy,Amy,A,\nbob,,,\n")
    assert roster(CourseDir.places_at(tmp_path)) == {"amy", "bob"}


def test_no_roster_is_none(tmp_path):
    assert roster(CourseDir.places_at(tmp_path)) is None
    assert roster(CourseDir.places_at(tmp_path / "missing")) is None


def test_a_link_in_place_of_the_roster_is_refused(tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("id\nroot-only-line\n")
    (tmp_path / "cd").mkdir()
    (tmp_path / "cd" / ROSTER_NAME).symlink_to(secret)
    with pytest.raises(CourseError, match="a symbolic link"):
        roster(CourseDir.places_at(tmp_path / "cd"))


def test_a_fifo_in_place_of_the_roster_is_refused_without_waiting(tmp_path):
    os.mkfifo(tmp_path / ROSTER_NAME)
    with pytest.raises(CourseError, match="not a regular file"):
        roster(CourseDir.places_at(tmp_path))
