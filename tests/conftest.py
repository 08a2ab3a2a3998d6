"""Shared fixtures (quick mode is switched on by the root conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from instructor.cli import main
from tests.factories import make_course

# Property tests (hypothesis) never judge time (no deadline, no too-slow health check: a loaded machine is slow)
# and keep no example database in the repository. Under CI=true each draws the same examples on every run
# (derandomize): a red CI is one anyone can repeat.
_PROPERTIES = {"deadline": None, "database": None, "print_blob": True, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", derandomize=True, **_PROPERTIES)
settings.register_profile("dev", **_PROPERTIES)
settings.load_profile(
    "ci" if os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no", "off"} else "dev"
)


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
