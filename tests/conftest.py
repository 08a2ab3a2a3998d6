"""Shared fixtures (quick mode is switched on by the root conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from instructor.cli import main
from tests.factories import make_course


@pytest.fixture
def run_course(capsys):
    """Run ``course ARGS`` in-process; check its exit status; return (out, err)."""

    def run(args: list[str], retcode: int = 0):
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        assert code == retcode, f"course {' '.join(map(str, args))} exited {code}\nstdout:\n{out}\nstderr:\n{err}"
        return out, err

    return run


@pytest.fixture
def course_repo(tmp_path, run_course) -> Path:
    """A toy course repository (tests/factories.py), released."""
    root = make_course(tmp_path / "repo")
    run_course(["release", "--root", root])
    return root
