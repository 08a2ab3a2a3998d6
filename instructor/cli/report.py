"""course report: what one assignment's grades say about the class, as a page and CSV."""

from __future__ import annotations

from pathlib import Path

from instructor.cli.options import add_course_dir, add_db
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.reporting import class_report

NAME = "report"
HELP = (
    "Write one assignment's class report: the score histogram, the share of the class that failed each "
    "graded cell, the mistakes behind the failures in the checks' own words, flags and reasons not graded."
)
EXAMPLES = """\
what it reads (nothing is changed):
  the gradebook (points per cell, hand grades and overrides), <dir>/results/
  (flags, reasons not graded) and <dir>/autograded/ (where each failed test
  cell stopped). A failure is the gradebook's: a test cell scored below its
  points. Which check of the cell failed is the statement its traceback
  points at, named by the message its author wrote (values the student's
  code printed become ...); tasks left as students got them are counted apart.

what it writes, into <dir>/reports/<assignment>/ (or --to):
  index.html    the page: no script, figures inline, opens offline
  scores.csv    student, status, score, max_score
  checks.csv    per graded cell: points, judged, failed, share failed, waiting (written answers pending)
  mistakes.csv  per check and mistake: count and share of those judged
  statuses.csv  submissions per status, flag and reason not graded
  overrides.csv every test cell overridden and hand grade taken back: from, to, by, when

examples:
  course report 04_transformer
  course report 01_rnn --course-dir ~/grading --to ~/week1-report
"""


def add_arguments(p):
    p.add_argument("assignment", help="the assignment, e.g. 04_transformer")
    p.add_argument("--to", type=Path, metavar="DIR", help="folder to write into (default: <dir>/reports/<assignment>)")
    add_course_dir(p)
    add_db(p)


def run(args) -> int:
    course_dir = CourseDir.at(directory.resolve(args.course_dir), db=args.db)
    print(f"course directory: {course_dir.path}")
    report, path = class_report.make_report(course_dir, args.assignment, args.to)
    figures = class_report.headline_figures(report)
    print(
        f"{args.assignment}: {figures['submissions']} submissions with points of {figures['students']} students, "
        f"mean {figures['mean']:.1f} of {report.max_score:g}"
    )
    for check, words, n in report.top_mistakes(5):
        print(f"  {100 * n / check.graded:3.0f} %  {check.grade_id}: {words}")
    print(f"wrote {path} and its CSV files")
    return 0
