"""course export: the grades as CSV, with the points still waiting for a grader."""

from __future__ import annotations

from pathlib import Path

from course import export, gradebook

NAME = "export"
HELP = "Write the gradebook of a grading workspace as a CSV file: nbgrader's columns plus the points still waiting for a grader."
EXAMPLES = """\
columns:
  nbgrader's CSV columns (score counts an answer nobody has graded yet as 0), then
  pending_points  the points of written answers not graded by hand yet
  status          complete, waiting for a grader, flagged for review, not graded, or not submitted
  reason          why a submission is flagged or not graded, in one sentence

examples:
  course export                          # ./grading -> ./grading/grades.csv
  course export --workspace grading-week3 --to week3.csv
"""


def add_arguments(p):
    p.add_argument("--workspace", type=Path, default=Path("grading"), help="the workspace `course grade` used (default: ./grading)")
    p.add_argument("--to", type=Path, help="CSV file to write (default: <workspace>/grades.csv)")
    p.add_argument("--db", metavar="URL", help="gradebook database URL `course grade --db` used (default: SQLite in the workspace)")


def run(args) -> int:
    gradebook.check_server(args.db)
    workspace = args.workspace.resolve()
    to = (args.to or workspace / "grades.csv").resolve()
    export.export_csv(workspace, to, db=args.db)
    print(f"wrote {to}")
    return 0
