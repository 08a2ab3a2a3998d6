"""The README's quick start is what CI runs: its two commands, each a line of `.ci/run` as written."""

from __future__ import annotations

import re

from instructor.paths import REPO_ROOT


def _quick_start() -> list[str]:
    readme = (REPO_ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, re.S)]


def test_ci_runs_the_quick_start_as_written():
    """Two commands, one line each (the first makes the venv, the second uses it), and `.ci/run` has both lines
    verbatim, in that order, after the system packages."""
    commands = _quick_start()
    assert len(commands) == 2 and all("\n" not in c for c in commands), commands
    assert commands[0].startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert commands[1].startswith(". .venv/bin/activate && ") and commands[1].endswith("python -m pytest")
    lines = (REPO_ROOT / ".ci/run").read_text().splitlines()
    at = [lines.index(c) for c in commands]
    assert at == sorted(at) and lines.index("bash scripts/install-system-packages.sh") < at[0], lines
