"""course feedback: per-student HTML feedback without hidden tests."""

from __future__ import annotations

from pathlib import Path

from course import gradebook, grading

NAME = "feedback"
HELP = "Write HTML feedback for every autograded submission: no hidden tests, no student markup, outputs capped."
EXAMPLES = """\
paths:
  <workspace>/autograded/<student>/<a>/  ->  <workspace>/feedback/<student>/<a>/<a>.html

what a page never shows: hidden tests (not in a cell, a traceback, or any
output of a cell that ran them), reference-solution lines, live student HTML
or scripts (shown as text), more than 64 kB of output per cell. One failed
page is reported and the others are still written.

examples:
  course feedback
  course feedback --workspace grading-week3
"""


def add_arguments(p):
    p.add_argument("--workspace", type=Path, default=Path("grading"), help="the workspace `course grade` used (default: ./grading)")
    p.add_argument("--db", metavar="URL", help="gradebook database URL `course grade --db` used (default: SQLite in the workspace)")


def run(args) -> int:
    gradebook.check_server(args.db)
    files, failures = grading.feedback(args.workspace.resolve(), db=args.db)
    for path in files:
        print(f"wrote {path}")
    if failures:
        print(f"{len(failures)} page(s) not written (logs in {args.workspace.resolve() / 'logs'}):")
        for line in failures:
            print(f"  {line}")
    return 0
