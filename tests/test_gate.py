"""The gate: do ruff (lint and format), mypy and codespell pass over the course's code, with pyproject.toml's settings?

The settings ([tool.ruff], [tool.mypy], [tool.codespell]) name what is
checked; a finding is fixed in the code, never silenced here.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from instructor.paths import REPO_ROOT


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *command], cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("command", [("ruff", "check", "--no-cache"), ("ruff", "format", "--check", "--no-cache")])
def test_ruff(command):
    """Does ruff find nothing to fix, and nothing to reformat?"""
    run = _run(*command)
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy():
    """Does mypy find no type error in the packages (course, course_data, instructor) and the benchmarks?"""
    run = _run("mypy", "--no-incremental")
    assert run.returncode == 0, run.stdout + run.stderr


#: what codespell reads, besides the solutions' text forms (solutions/*.py); its settings: [tool.codespell]
SPELLED = ["instructor", "course", "data", "benchmarks", "docs", "README.md", "AUTHORING.md"]


def test_codespell(tmp_path):
    """Does codespell find no misspelling in the code, the docs and the solutions' text forms, while it does
    find one planted in a file it reads with the same settings?"""
    solutions = sorted(str(p.relative_to(REPO_ROOT)) for p in (REPO_ROOT / "solutions").glob("*.py"))
    assert solutions, "no text form of a solution notebook: solutions/*.py"
    run = _run("codespell_lib", *SPELLED, *solutions)
    assert run.returncode == 0, run.stdout + run.stderr
    planted = tmp_path / "planted.md"
    planted.write_text("The grader recieves the notebook.\n")  # codespell:ignore
    assert "recieves ==> receives" in _run("codespell_lib", str(planted)).stdout  # codespell:ignore
