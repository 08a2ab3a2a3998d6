"""course roster import: the class list, into the gradebook and the course directory."""

from __future__ import annotations

from pathlib import Path

from instructor.cli.options import add_course_dir
from instructor.coursedir import directory
from instructor.coursedir.course_dir import ROSTER_NAME, CourseDir
from instructor.coursedir.roster import import_roster

NAME = "roster"
HELP = "Import the class list (CSV: id, first_name, last_name, email) into the course directory's gradebook."
EXAMPLES = f"""\
what it does:
  adds or updates each student in the gradebook (names and emails show in the
  formgrader and in `course export`) and in <dir>/{ROSTER_NAME}, which
  `course grade` uses: a submission from someone not on it is listed as
  `not graded: <id> is not on the roster`, and every rostered student gets a
  row in `course export` (0 points, "not submitted", if nothing was collected).

examples:
  course roster import class.csv
"""


def add_arguments(p):
    p.add_argument("action", choices=["import"], help="what to do (import)")
    p.add_argument("file", type=Path, metavar="FILE.csv")
    add_course_dir(p)


def run(args) -> int:
    course_path = directory.resolve(args.course_dir)
    print(f"course directory: {course_path}")
    course_dir = CourseDir.at(course_path)
    added, updated = import_roster(course_dir, args.file)
    print(f"roster: {added} student(s) added, {updated} updated ({course_dir.roster_file})")
    return 0
