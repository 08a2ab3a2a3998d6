"""`course judge`: which checks the grader judges outside the kernel, as a command of `course` (it was the
hidden `python -m instructor.authoring.judged`)."""

from __future__ import annotations

import argparse
import importlib.util

import nbformat


def test_judge_is_a_course_command(monkeypatch):
    """Is `judge` listed by `course --help` (and so on the generated command page), with its own help, and the
    hidden `python -m instructor.authoring.judged` gone?"""
    from instructor.cli import build_parser

    monkeypatch.setenv("COLUMNS", "100")
    parser = build_parser()
    assert "    judge  " in parser.format_help()
    verbs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert "course judge" in verbs["judge"].format_help() and "--run" in verbs["judge"].format_help()
    assert importlib.util.find_spec("instructor.authoring.judged") is None


def test_judge_counts_the_kernel_asserts_and_fails_a_reference_the_grader_fails(course_repo, run_course):
    """Does `course judge` name the toy's asserts that call the student's code (they run in the kernel), pass
    the reference with --run, and exit 1 once the reference's answer is wrong?"""
    out, _ = run_course(["judge", "01_toy", "--root", course_repo])
    assert "01_toy: 0 checks judged outside the kernel, 2 in it" in out, out
    assert "add__values line 2: assert add(1, 2) == 3" in out, out
    out, _ = run_course(["judge", "01_toy", "--root", course_repo, "--run"])
    assert "reference judged outside: all cells pass" in out, out
    path = course_repo / "solutions" / "01_toy" / "01_toy.ipynb"
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        cell.source = cell.source.replace("total_of_both_numbers = a + b", "total_of_both_numbers = a - b")
    nbformat.write(nb, path)
    out, _ = run_course(["judge", "01_toy", "--root", course_repo, "--run"], retcode=1)
    assert "reference judged outside: 1 cell(s) fail" in out and "add__values" in out, out
