"""course override: give a graded cell points by hand from a terminal, as the formgrader's Save does, named as yours;
or, with --accept, take as yours the scores of the gradebook that no tool wrote (after looking at them)."""

from __future__ import annotations

from instructor.cli.options import add_course_dir, add_db
from instructor.coursedir import directory, journal, overrides
from instructor.coursedir.course_dir import JOURNALS, CourseDir
from instructor.errors import CourseError

NAME = "override"
HELP = (
    "Give one graded cell of a submission points by hand (a written answer's hand points, or an override of a "
    "test cell), recorded in your grade journal; --accept takes the scores no tool wrote as yours."
)
EXAMPLES = f"""\
what it does:
  writes the points into the gradebook as the formgrader's Save does, and a
  line into your own grade journal, <dir>/{JOURNALS}/<you>.jsonl: who (your
  account, as the system names it), when, which cell, what points. `course
  export` refuses a gradebook holding a score that no journal line explains
  (written with sqlite3 or any tool but the formgrader and `course`), and
  says which; `course override` is one way to settle it, under your name.
  POINTS `none` takes the hand points back (a written answer then waits for a
  grader; a test cell keeps its autograded points).
  --accept: after you have looked at what `course export` listed, take every
  such score as yours (an `accepted` line each in your journal); autograded
  points are better graded again (`course grade -a A -s STUDENT --force`).

examples:
  course override 01_rnn amy why_rnn_fails 1.5
  course override 01_rnn amy rnn__shapes 2 --extra-credit 0.5
  course override 01_rnn amy why_rnn_fails none
  course override --accept
"""


def _points(text: str) -> float | None:
    if text.strip().lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise CourseError(f"POINTS is a number or `none`, not {text!r}.") from None


def add_arguments(p):
    p.add_argument("assignment", nargs="?", metavar="ASSIGNMENT", help="the assignment, e.g. 01_rnn")
    p.add_argument("student", nargs="?", metavar="STUDENT", help="student id, as in the grade table")
    p.add_argument("cell", nargs="?", metavar="CELL", help="the graded cell's grade id, as in the CSV's columns")
    p.add_argument("points", nargs="?", metavar="POINTS", help="the points, or `none` to take them back")
    p.add_argument("--extra-credit", type=float, default=None, metavar="POINTS", help="extra credit (default: none)")
    p.add_argument(
        "--accept",
        action="store_true",
        help="take every score no journal line explains as yours (after looking at what `course export` listed)",
    )
    add_course_dir(p)
    add_db(p)


def run(args) -> int:
    course_dir = CourseDir.at(directory.resolve(args.course_dir), db=args.db)
    print(f"course directory: {course_dir.path}")
    named = [args.assignment, args.student, args.cell, args.points]
    if args.accept:
        if any(named):
            raise CourseError("--accept takes no cell: it takes every score no journal line explains.")
        lines = overrides.accept(course_dir)
        for line in lines:
            scores = ", ".join(
                f"{journal.FIELDS[k]} {'none' if v is None else f'{v:g}'}"
                for k, v in line.items()
                if k in journal.FIELDS
            )
            where = f"cell {line['cell']}" if line["cell"] else "late penalty"
            print(f"accepted: {line['assignment']}, {line['student']}, {where}: {scores}")
        print(f"{len(lines)} score(s) taken as yours ({journal.account_here()}).")
        return 0
    if not all(named):
        raise CourseError("name ASSIGNMENT STUDENT CELL POINTS (or --accept).")
    saved = overrides.give(
        course_dir, args.assignment, args.student, args.cell, _points(args.points), args.extra_credit
    )
    shown = "none" if saved["manual"] is None else f"{saved['manual']:g}"
    print(f"{args.assignment}, {args.student}, cell {args.cell}: {shown} points by hand ({journal.account_here()})")
    return 0
