"""course feedback: per-student HTML feedback without hidden tests."""

from __future__ import annotations

from pathlib import Path

from course import grading

NAME = "feedback"
HELP = "Write HTML feedback for every autograded submission, with the hidden tests removed."
EXAMPLES = """\
paths:
  <workspace>/autograded/<student>/<a>/  ->  <workspace>/feedback/<student>/<a>/<a>.html

examples:
  course feedback
  course feedback --workspace grading-week3
"""


def add_arguments(p):
    p.add_argument("--workspace", type=Path, default=Path("grading"), help="the workspace `course grade` used (default: ./grading)")


def run(args) -> int:
    files = grading.feedback(args.workspace.resolve())
    for path in files:
        print(f"wrote {path}")
    return 0
