"""Does every `course <verb> --option` the task pages name exist in the parser `course` runs?

A command is looked for in code (inline code and code blocks) only, where a
reader copies it from: a shell command (a code line or inline code, or a part
of one after ``&&``, ``|`` or ``;``) that starts with ``course`` (or ``sudo
course``, ``sudo $(which course)``), its verb, and the options up to a
comment. Options after a bare ``--`` belong to another program (``course
formgrader -- --allow-root``).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from instructor.paths import REPO_ROOT

#: the pages that name commands for a reader to run
PAGES = [
    REPO_ROOT / "README.md",
    *(
        REPO_ROOT / "docs" / f"{name}.md"
        for name in ("index", "instructors", "maintainers", "configuration", "troubleshooting")
    ),
]
#: a shell command that runs `course`: its verb and the rest
COMMAND = re.compile(r"^(?:sudo\s+)?(?:\$\(which course\)|course)\s+([a-z][a-z-]*)(.*)$")
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z-]*|-[a-z])(?![\w-])")


def _shell_commands(code: str) -> list[tuple[str, list[str]]]:
    """(verb, options) of each `course` command in one line of code."""
    found = []
    for part in re.split(r"&&|\|\||\||;", code.split(" #")[0]):
        m = COMMAND.match(part.strip())
        if m:
            found.append((m.group(1), OPTION.findall(re.split(r"\s--(?:\s|$)", m.group(2))[0])))
    return found


def verbs() -> dict[str, set[str]]:
    """{verb: its option strings}, from ``instructor.cli.build_parser``."""
    from instructor.cli import build_parser

    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {name: set(sub._option_string_actions) for name, sub in action.choices.items()}
    raise AssertionError("`course` has no verbs")


def _code(text: str) -> list[str]:
    """Every line of every code block but ``text`` (output), and every inline code span outside them."""
    found = []
    for language, block in re.findall(r"```([^\n]*)\n(.*?)```", text, flags=re.S):
        if language.strip() != "text":  # a text block is what a command printed, not a command to run
            found += block.splitlines()
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    found += re.findall(r"``?([^`\n]+)``?", prose)
    return found


def commands(path: Path) -> list[tuple[str, list[str]]]:
    """(verb, options) of every command ``path`` names in code."""
    return [c for code in _code(path.read_text()) for c in _shell_commands(code)]


def unknown_options(path: Path) -> list[str]:
    """Each `course verb --option` of ``path`` that the parser does not know."""
    known = verbs()
    wrong = []
    for verb, options in commands(path):
        if verb not in known:
            wrong.append(f"course {verb}")
            continue
        wrong += [f"course {verb} {o}" for o in options if o not in known[verb]]
    return sorted(set(wrong))


def test_the_pattern_finds_commands():
    """Does the pattern see verbs and options, and skip what is not a command?"""
    found = []
    for line in [
        "course grade --jobs 2 --db URL  # a comment --force",
        "sudo $(which course) grade --course-dir x",
        "cd $COURSE_DIR && course formgrader -- --allow-root",
        "nbgrader submit 01_rnn --course seqmodels",
        "course/        the student package (and the only course code a sandbox sees)",
    ]:
        found += _shell_commands(line)
    assert found == [("grade", ["--jobs", "--db"]), ("grade", ["--course-dir"]), ("formgrader", [])]


def test_every_command_and_option_named_exists():
    """Is every verb and option the task pages name one that `course` accepts?"""
    wrong = {str(p.relative_to(REPO_ROOT)): unknown_options(p) for p in PAGES if p.exists()}
    assert {page: w for page, w in wrong.items() if w} == {}
