"""course export: the grades as CSV."""

from __future__ import annotations

from pathlib import Path

from course import grading

NAME = "export"
HELP = "Write the gradebook of a grading workspace as a CSV file (nbgrader's CSV export)."
EXAMPLES = """\
examples:
  course export                          # ./grading -> ./grading/grades.csv
  course export --workspace grading-week3 --to week3.csv
"""


def add_arguments(p):
    p.add_argument("--workspace", type=Path, default=Path("grading"), help="the workspace `course grade` used (default: ./grading)")
    p.add_argument("--to", type=Path, help="CSV file to write (default: <workspace>/grades.csv)")


def run(args) -> int:
    workspace = args.workspace.resolve()
    to = (args.to or workspace / "grades.csv").resolve()
    grading.export_csv(workspace, to)
    print(f"wrote {to}")
    return 0
