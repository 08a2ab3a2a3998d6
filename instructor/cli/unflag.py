"""course unflag: a person looked at a flagged submission and clears its flags, with the reason kept."""

from __future__ import annotations

from instructor.cli.options import add_course_dir, add_db
from instructor.coursedir import directory
from instructor.coursedir.course_dir import REVIEWS, CourseDir
from instructor.grading.review import unflag

NAME = "unflag"
HELP = "Clear the flags of one graded submission after you reviewed it; who, when and why are recorded."
EXAMPLES = f"""\
what it does:
  the submission's status becomes `graded` in the grade table and the CSV,
  with a note "flags cleared by <you> on <date>: <why>"; the formgrader's
  "needs manual grade" marks that the flag set on autograded cells are taken
  back (written answers nobody graded keep theirs). The clearing is kept in
  <dir>/{REVIEWS}/<student>/<assignment>.json. A regrade of the same
  submission that raises no new flag stays cleared; a re-submission or a new
  flag is flagged again.

examples:
  course unflag amy 01_rnn --because "the cell was only re-run; nothing changed"
"""


def add_arguments(p):
    p.add_argument("student", help="student id, as in the grade table")
    p.add_argument("assignment", help="assignment, e.g. 01_rnn")
    p.add_argument("--because", required=True, metavar="TEXT", help="why the flags are cleared (kept with the grade)")
    add_course_dir(p)
    add_db(p)


def run(args) -> int:
    course_dir = CourseDir.at(directory.resolve(args.course_dir), db=args.db)
    print(f"course directory: {course_dir.path}")
    result = unflag(course_dir, args.student, args.assignment, args.because)
    print(f"{args.student}/{args.assignment}: graded; {result.notes[-1]}")
    return 0
