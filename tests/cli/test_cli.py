"""The `course` command as a whole: every user error is one sentence."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.factories import assert_one_sentence_error


@pytest.mark.parametrize(
    "args, message",
    [
        (["generate", "99_nope"], "There is no assignment '99_nope'"),
        (["grade", "/nonexistent/subs"], "There is no submissions folder"),
        (["export", "--course-dir", "/nonexistent/ws"], "has no gradebook"),
        (["feedback", "--course-dir", "/nonexistent/ws"], "has nothing autograded yet"),
        (["verify", "--root", "/"], "is not a course repository"),
    ],
)
def test_errors_are_one_sentence(run_course, args, message):
    """Does each user error end in one sentence and exit status 1, never a traceback?"""
    _, err = run_course(args, retcode=1)
    assert_one_sentence_error(err)
    assert message in err


def test_course_runs_from_an_environment_that_is_not_activated(tmp_path):
    """Does `course` called by its full path, with the venv not on PATH, still make a gradebook?"""
    script = Path(sysconfig.get_path("scripts")) / "course"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    roster = tmp_path / "class.csv"
    roster.write_text("id,first_name,last_name,email\namy,Amy,Ng,amy@example.org\n")
    for args in (["init", tmp_path / "grading"], ["roster", "import", roster, "--course-dir", tmp_path / "grading"]):
        done = subprocess.run([str(script), *map(str, args)], capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
    assert "1 student(s) added" in done.stdout


def test_the_command_starts_without_building_iri_parsers():
    """Does ``course`` start without rfc3987_syntax's parsers (1.1 s of every start; no schema of ours has an IRI
    format), and does nbformat still validate a notebook, and refuse a broken one, in that process?"""
    probe = (
        "import sys, instructor.cli, nbformat\n"
        "from nbformat.v4 import new_notebook\n"
        "nbformat.validate(new_notebook())\n"
        "broken = new_notebook(); broken.cells = [{'cell_type': 'code'}]\n"
        "try:\n    nbformat.validate(broken); print('broken passed')\n"
        "except nbformat.ValidationError:\n    print('broken refused')\n"
        "print('parsers built' if sys.modules.get('rfc3987_syntax') is not None else 'no parsers')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["broken", "refused", "no", "parsers"], done.stdout + done.stderr


def test_the_command_imports_copydetect_only_for_similarity():
    """Does ``course`` start without copydetect (and the matplotlib under it: 0.3 s of every command), which only
    `course similarity` uses?"""
    probe = "import sys, instructor.cli\nprint(sorted(m for m in ('copydetect', 'matplotlib') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["[]"], done.stdout + done.stderr
