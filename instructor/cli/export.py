"""course export: the grades as CSV, every rostered student, per-task points and what still waits for a grader;
or, with --format canvas, as a file Canvas's gradebook import accepts."""

from __future__ import annotations

import textwrap
from pathlib import Path

from instructor.cli.options import add_course_dir, add_db, add_old_spelling, names
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.reporting import canvas, export

NAME = "export"
HELP = (
    "Write the course directory's grades as a CSV file: one row per rostered student and assignment, "
    "auto and hand points, pending points, late penalty, status and one column per graded cell "
    "(or, with --format canvas, one row per student and one column per assignment, for Canvas's Grades > Import)."
)
#: --format: the default, the course's own CSV, first
FORMATS = ["csv", "canvas"]
_WIDTH = max(map(len, export.COLUMN_HELP))
_CANVAS_WIDTH = max(map(len, [*canvas.MATCHING, *canvas.CELL_RULE]))
EXAMPLES = (
    "columns, in order:\n"
    + "".join(f"  {name:{_WIDTH}s}  {text}\n" for name, text in export.COLUMN_HELP.items())
    + f"""  {"<a>:<grade_id>":{_WIDTH}s}  points of that graded cell of assignment <a>
  {"":{_WIDTH}s}  ("" while it waits for a grader, 0 if not submitted)

--format canvas: Canvas's own layout, one row per student (sorted by id), one column per assignment:
"""
    + "".join(f"  {name:{_CANVAS_WIDTH}s}  {text}\n" for name, text in canvas.MATCHING.items())
    + f"""\
  {"<assignment>":{_CANVAS_WIDTH}s}  one column each; its second row, Points Possible, gives the maximum
  Canvas matches a row by SIS User ID (the roster's id: the student number at institutions whose
  Canvas comes from their student information system), else SIS Login ID (the roster's email:
  where students sign in with it), else the Student name. A roster without emails works by id.
  a cell holds, by status (a number only when the grade is final):
"""
    + "".join(f"    {status:{_CANVAS_WIDTH}s}  {text}\n" for status, text in canvas.CELL_RULE.items())
    + """\
  It prints how many cells were left empty and why. Canvas uploads an empty cell as "no grade":
  no change where it has none, a grade it already holds removed (highlighted in its review).

importing the canvas file into Canvas:
"""
    + textwrap.indent(canvas.IMPORT_STEPS, "  ")
    + f"""
examples:
  course export                          # <dir>/grades.csv
  course export --course-dir ~/grading-week3 --file week3.csv
  course export --format canvas          # <dir>/{canvas.DEFAULT_NAME}
  course export --format canvas --assignment 01_rnn --file week1-canvas.csv
"""
)


def add_arguments(p):
    add_course_dir(p)
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="csv",
        help="csv: the course's table (default); canvas: for Canvas's gradebook import",
    )
    p.add_argument(
        "--file",
        type=Path,
        metavar="FILE",
        help=f"file to write (default: <dir>/grades.csv; <dir>/{canvas.DEFAULT_NAME} with --format canvas)",
    )
    add_old_spelling(p, "--to", "--file", dest="file", type=Path, metavar="FILE")
    p.add_argument(
        "--assignment",
        "-a",
        action="append",
        metavar="ASSIGNMENT",
        help="with --format canvas: only these assignments' columns (repeat, or a,b; default: every one: "
        "a missing submission uploads as 0 once its due date has passed)",
    )
    add_db(p)


def run(args) -> int:
    # not `CourseDir.at`: a directory `course init` never made says it has no gradebook
    course_dir = CourseDir.planned(directory.resolve(args.course_dir), db=args.db)
    print(f"course directory: {course_dir.path}")
    if args.format == "canvas":
        return _run_canvas(args, course_dir)
    if args.assignment:
        raise CourseError("--assignment goes with --format canvas; the CSV lists every assignment.")
    to = (args.file or course_dir.grades_csv).resolve()
    export.export_csv(course_dir, to)
    print(f"wrote {to}")
    return 0


def _run_canvas(args, course_dir: CourseDir) -> int:
    to = (args.file or course_dir.canvas_csv).resolve()
    sheet = canvas.export_canvas(course_dir, to, assignments=names(args.assignment))
    print("\n".join(canvas.upload_notes(sheet)))
    print(f"wrote {to} (Canvas: Grades > Import; see `course export --help`)")
    return 0
