"""A time limit met in the course's given code before any student code ran is the machine's, not the student's."""

from __future__ import annotations

import shutil

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from instructor.coursedir.course_dir import CourseDir
from instructor.grading.machine_busy import busy_reason, first_student_cell
from instructor.reporting import table as grade_table
from tests.factories import _nbgrader, edit_notebook, make_course

#: the given setup cell of the toy course below: slower than any cell limit a test sets
SLOW_SETUP = "import time\ntime.sleep(60)"


def _setup(source: str = SLOW_SETUP):
    return new_code_cell(source, metadata={"nbgrader": _nbgrader("setup", locked=True)})


def _notebook(*cells):
    return new_notebook(cells=[new_markdown_cell("# Toy"), *cells])


@pytest.mark.parametrize(
    "cells, first",
    [
        ([_setup(), new_code_cell("x = 1")], 2),
        ([new_code_cell("import time"), _setup()], 1),  # a cell the student inserted before the setup
        ([_setup("import os"), _setup()], 1),  # locked metadata on text that is not the student version's
        ([_setup()], 2),
    ],
)
def test_the_student_code_starts_at_the_first_cell_not_the_student_versions_given_text(cells, first):
    """Is the first student cell the first code cell that is not a locked cell holding the student version's
    text, a cell inserted before the setup (or one that claims to be locked with text of its own) included?"""
    student_version = _notebook(_setup())
    assert first_student_cell(_notebook(*cells), student_version) == first


@pytest.mark.parametrize(
    "status, stopped_at, timed_out, busy",
    [
        ("unresponsive", 1, [1], True),  # the kernel did not stop when the setup cell was interrupted
        ("budget", 1, [], True),  # the budget ran out in the setup cell
        ("budget", None, [], True),  # ... before any cell ran
        ("ok", None, [1], True),  # the setup cell timed out, the kernel went on
        ("unresponsive", 2, [2], False),  # in the student's cell
        ("budget", 2, [], False),
        ("ok", None, [2], False),
        ("died", 1, [], False),
    ],
)
def test_a_limit_in_given_code_is_the_machines(status, stopped_at, timed_out, busy):
    """Is a timeout, an unresponsive kernel or a spent budget in the given setup cell, before any student
    code, the machine's (one sentence, graded again on the next run), and one from the student's cell on not?"""
    nb = _notebook(_setup(), new_code_cell("x = 1"))
    reason = busy_reason(status, stopped_at, timed_out, nb, _notebook(_setup()), 30)
    assert bool(reason) == busy
    if busy:
        assert "too busy" in reason and "graded again on the next run" in reason and "\n" not in reason


def test_a_slow_setup_cell_is_graded_again_and_a_slow_student_cell_is_not(tmp_path, run_course):
    """With a 1 s cell limit and a given setup cell that sleeps, is the reference ``grader failed`` (said in one
    line, graded again by the next run, not skipped as unchanged), while a student who inserted a sleeping
    cell of her own before the setup is graded (her timeout is hers)?"""
    root = make_course(tmp_path / "repo")
    edit_notebook(root / "solutions/01_toy/01_toy.ipynb", lambda nb: nb.cells.insert(1, _setup()))
    run_course(["generate", "--root", root])
    for student in ("ref", "eager"):
        (tmp_path / "subs" / student / "01_toy").mkdir(parents=True)
        shutil.copy(root / "solutions/01_toy/01_toy.ipynb", tmp_path / "subs" / student / "01_toy")
    edit_notebook(tmp_path / "subs/eager/01_toy/01_toy.ipynb", lambda nb: nb.cells.insert(1, new_code_cell(SLOW_SETUP)))
    ws = tmp_path / "ws"
    grade = ["grade", tmp_path / "subs", "--course-dir", ws, "--root", root, "--cell-timeout", "1"]
    first, _ = run_course(grade)
    rows = {g.student: g for g in grade_table.grades(CourseDir.at(ws)) if g.assignment == "01_toy"}
    assert rows["ref"].status == "not graded" and "too busy" in rows["ref"].reason, rows["ref"]
    assert "graded again on the next run" in rows["ref"].reason
    assert rows["eager"].status != "not graded" and "too busy" not in rows["eager"].reason, rows["eager"]
    assert nbformat.read(str(tmp_path / "subs/eager/01_toy/01_toy.ipynb"), as_version=4).cells[1].source == SLOW_SETUP

    again, _ = run_course(grade)
    assert "1 submission(s) already graded and unchanged" in again, again  # eager's, not ref's
    assert "too busy" in again, again
