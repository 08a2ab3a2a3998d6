"""Shared fixtures (quick mode is switched on by the root conftest.py)."""

from __future__ import annotations

import pytest

from course.cli import main


@pytest.fixture
def run_course(capsys):
    """Run ``course ARGS`` in-process; check its exit status; return (out, err)."""

    def run(args: list[str], retcode: int = 0):
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        assert code == retcode, f"course {' '.join(map(str, args))} exited {code}\nstdout:\n{out}\nstderr:\n{err}"
        return out, err

    return run
