"""Renamed commands and options (docs/glossary.md): the new spelling runs quietly, the old one runs the same
and says on stderr, in one line, to use the new one."""

from __future__ import annotations

from pathlib import Path

import pytest

from instructor.cli import build_parser

#: (new argv, old argv, the option's dest, its value)
OPTIONS = [
    (["similarity", "01_rnn", "--min-chars", "50"], ["similarity", "01_rnn", "--min-tokens", "50"], "min_chars", 50),
    (["export", "--file", "g.csv"], ["export", "--to", "g.csv"], "file", Path("g.csv")),
]


@pytest.mark.parametrize("new, old, dest, value", OPTIONS, ids=["min-chars", "export-file"])
def test_an_old_option_spelling_still_works_and_says_so(new, old, dest, value, capsys):
    """Do --min-tokens and export's --to still set what --min-chars and --file set, with a deprecation line?"""
    parser = build_parser()
    assert getattr(parser.parse_args(new), dest) == value
    assert capsys.readouterr().err == ""
    assert getattr(parser.parse_args(old), dest) == value
    err = capsys.readouterr().err
    assert f"is deprecated, use {new[-2]}" in err and old[-2] in err and len(err.strip().splitlines()) == 1


def test_an_option_not_given_keeps_its_default():
    """Does the hidden old spelling leave the new option's default alone?"""
    args = build_parser().parse_args(["similarity", "01_rnn"])
    assert args.min_chars == 100


def test_old_options_are_not_in_the_help():
    """Does the help show one word per option (the old spellings hidden)?"""
    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices
    assert "--min-tokens" not in sub["similarity"].format_help() and "--min-chars" in sub["similarity"].format_help()
    assert "--to" not in sub["export"].format_help() and "--file" in sub["export"].format_help()


@pytest.mark.parametrize("new, old", [("generate", "release"), ("verify", "check")])
def test_an_old_command_name_still_runs_and_says_so(course_repo, run_course, new, old):
    """Do `course release` and `course check` do what `course generate` and `course verify` do, and say the new
    name?"""
    out_new, err_new = run_course([new, "--root", course_repo])
    out_old, err_old = run_course([old, "--root", course_repo])
    assert out_old == out_new and err_new == ""
    assert err_old.strip() == (
        f"course {old}: `course {old}` is deprecated, use `course {new}` (the old spelling goes after this term)."
    )
