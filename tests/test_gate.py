"""The gate: do ruff (lint and format) and mypy pass over the course's code, with pyproject.toml's settings?

The settings ([tool.ruff], [tool.mypy]) name what is checked; a finding is
fixed in the code, never silenced here.
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
    """Does mypy find no type error in the packages (course, course_data, instructor)?"""
    run = _run("mypy", "--no-incremental")
    assert run.returncode == 0, run.stdout + run.stderr
