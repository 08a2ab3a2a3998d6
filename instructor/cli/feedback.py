"""course feedback: per-student HTML feedback without hidden tests."""

from __future__ import annotations

from instructor.cli.options import add_course_dir, add_db
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.reporting.feedback.pages import feedback

NAME = "feedback"
HELP = "Write HTML feedback for every autograded submission: no hidden tests, no student markup, outputs capped."
EXAMPLES = """\
paths (<dir> = --course-dir, else $COURSE_DIR, else ~/seqmodels-grading):
  <dir>/autograded/<student>/<a>/  ->  <dir>/feedback/<student>/<a>/<a>.html
  return it to students with `nbgrader release_feedback <a>` run in <dir>

nbgrader's own `nbgrader generate_feedback` run in <dir>, and the formgrader's
Generate Feedback button, use the same settings (<dir>/nbgrader_config.json, and the chains through nbgrader_config.py).

what a page never shows: hidden tests (not in a cell, a traceback, or any
output of a cell that ran them), reference-solution lines, live student HTML
or scripts (shown as text), more than 64 kB of output per cell. One failed
page is listed and the others are still written.

examples:
  course feedback
  course feedback --course-dir ~/grading-week3
"""


def add_arguments(p):
    add_course_dir(p)
    add_db(p)


def run(args) -> int:
    # not `CourseDir.at`: a course_path `course init` never made says it has nothing autograded
    course_dir = CourseDir.planned(directory.resolve(args.course_dir), db=args.db)
    course_path = course_dir.path
    print(f"course directory: {course_path}")
    files, failures = feedback(course_dir)
    for path in files:
        print(f"wrote {path}")
    if failures:
        print(f"{len(failures)} page(s) not written (logs in {course_path / 'logs'}):")
        for line in failures:
            print(f"  {line}")
    return 0
