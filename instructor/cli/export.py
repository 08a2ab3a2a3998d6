"""course export: the grades as CSV, every rostered student, per-task points and what still waits for a grader."""

from __future__ import annotations

from pathlib import Path

from instructor.cli.options import add_course_dir, add_db
from instructor.coursedir import directory, gradebook
from instructor.reporting import export

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
    add_course_dir(p)
    p.add_argument("--to", type=Path, help="CSV file to write (default: <dir>/grades.csv)")
    add_db(p)


def run(args) -> int:
    gradebook.check_server(args.db)
    folder = directory.resolve(args.course_dir)
    print(f"course directory: {folder}")
    to = (args.to or folder / "grades.csv").resolve()
    export.export_csv(folder, to, db=args.db)
    print(f"wrote {to}")
    return 0
