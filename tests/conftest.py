"""Shared fixtures. Every notebook the suite runs runs in quick mode."""

from __future__ import annotations

import os

import pytest

# set before nbval or any test starts a kernel: kernels inherit the environment
os.environ["COURSE_QUICK"] = "1"
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from course.cli import main  # noqa: E402


@pytest.fixture
def run_course(capsys):
    """Run ``course ARGS`` in-process; check its exit status; return (out, err)."""

    def run(args: list[str], retcode: int = 0):
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        assert code == retcode, f"course {' '.join(map(str, args))} exited {code}\nstdout:\n{out}\nstderr:\n{err}"
        return out, err

    return run
