"""course check: fail when notebooks/ is not exactly a fresh release."""

from __future__ import annotations

from instructor.authoring.check import check
from instructor.cli.options import add_root, repository

NAME = "check"
HELP = "Check that notebooks/ is a fresh release of solutions/, without outputs or leaked answers."
EXAMPLES = """\
checks:
  drift    notebooks/ equals what `course release` makes now, given cells included
  outputs  no committed notebook carries outputs or execution counts
  leaks    no solution or hidden-test line of solutions/ shows in notebooks/
  markers  every nbgrader marker stands on a line of its own
  figures  solutions/<a>/figures/ holds what instructor/authoring/figures draws now, nothing
           else, and every image a notebook shows (figures only compare their
           text labels when another Matplotlib version wrote them)
  text     solutions/<a>.py is the notebook's current text form

exit status 0 when clean, 1 with one line per problem otherwise.

examples:
  course check
  course check --root path/to/course-repo
"""


def add_arguments(p):
    add_root(p)


def run(args) -> int:
    problems = check(args.root.resolve() if args.root else repository(None))  # check says what a bad --root lacks
    if problems:
        print(f"course check found {len(problems)} problem(s):")
        for line in problems:
            print(f"  - {line}")
        return 1
    print("course check: notebooks/ is a clean, fresh release of solutions/.")
    return 0
