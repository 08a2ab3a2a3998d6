"""course export: the grades as CSV, every rostered student, per-task points and what still waits for a grader."""

from __future__ import annotations

from pathlib import Path

from course import coursedir, export, gradebook

NAME = "export"
HELP = ("Write the course directory's grades as a CSV file: one row per rostered student and assignment, "
        "auto and hand points, pending points, late penalty, status and one column per graded cell.")
_WIDTH = max(map(len, export.COLUMN_HELP))
EXAMPLES = "columns, in order:\n" + "".join(
    f"  {name:{_WIDTH}s}  {text}\n" for name, text in export.COLUMN_HELP.items()
) + f"""  {'<a>:<grade_id>':{_WIDTH}s}  points of that graded cell of assignment <a> ("" while it waits for a grader, 0 if not submitted)

examples:
  course export                          # <dir>/grades.csv
  course export --course-dir ~/grading-week3 --to week3.csv
"""


def add_arguments(p):
    coursedir.add_argument(p)
    p.add_argument("--to", type=Path, help="CSV file to write (default: <dir>/grades.csv)")
    p.add_argument("--db", metavar="URL", help="gradebook database URL (default: the course directory's setting)")


def run(args) -> int:
    gradebook.check_server(args.db)
    workspace = coursedir.resolve(args.course_dir)
    print(f"course directory: {workspace}")
    to = (args.to or workspace / "grades.csv").resolve()
    export.export_csv(workspace, to, db=args.db)
    print(f"wrote {to}")
    return 0
