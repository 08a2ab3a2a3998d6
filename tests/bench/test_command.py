"""The benchmarks' own command (`python -m benchmarks`) and `course bench`, which runs it from a checkout only."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from benchmarks import command
from instructor.cli import bench as course_bench
from instructor.cli import build_parser, main
from instructor.paths import REPO_ROOT


def _options(parser: argparse.ArgumentParser) -> dict[str, object]:
    return {a.dest: (sorted(a.option_strings), a.default, a.choices) for a in parser._actions}


def _bench_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    [verbs] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return verbs.choices["bench"]


def test_course_bench_takes_the_options_of_python_m_benchmarks():
    """In a checkout, does `course bench` take exactly the options (names, defaults, choices) of the benchmarks'
    own command?"""
    ours = _options(_bench_parser(build_parser()))
    theirs = _options(command.build_parser())
    assert ours == theirs
    assert {"only", "json", "full", "jobs", "class_size", "modes", "against", "rounds", "steps", "mistakes"} <= set(
        theirs
    )


def test_python_m_benchmarks_runs_from_the_checkout():
    """Does `python -m benchmarks` run from the repository's top folder, and say in one line what is wrong?"""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--only", "nothing"], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("python -m benchmarks: There is no bench part 'nothing'"), done.stderr
    assert done.stderr.strip().count("\n") == 0, done.stderr
    helped = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--help"], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert helped.returncode == 0 and "--against {torch}" in helped.stdout, helped.stdout + helped.stderr


def test_course_bench_finds_the_checkout_from_any_folder(tmp_path):
    """Run from elsewhere (the checkout not on sys.path), does `course bench` load the checkout's benchmarks by
    path and run them?"""
    done = subprocess.run(
        [sys.executable, "-m", "instructor", "bench", "--only", "nothing"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.startswith("course bench: There is no bench part 'nothing'"), done.stderr


def test_installed_from_a_wheel_course_bench_says_where_the_benchmarks_are(tmp_path, monkeypatch, capsys):
    """Where no benchmarks/ stands beside the package (a wheel): one line naming the checkout's command, exit 1,
    and the same sentence as the verb's help?"""
    monkeypatch.setattr(course_bench, "REPO_ROOT", tmp_path)  # site-packages: no pyproject.toml, no benchmarks/
    assert course_bench.checkout_benchmarks() is None
    assert main(["bench"]) == 1
    err = capsys.readouterr().err
    assert err == f"course bench: {course_bench.CHECKOUT_ONLY}\n"
    assert "python -m benchmarks --help" in err
    with pytest.raises(SystemExit) as done:
        main(["bench", "--help"])
    assert done.value.code == 0
    assert "checkout" in capsys.readouterr().out
