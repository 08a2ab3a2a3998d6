"""course demo: the whole pipeline once, on the embedded defaults, in a scratch folder."""

from __future__ import annotations

from pathlib import Path

from instructor.authoring.generate import resolve_assignments
from instructor.cli.options import repository
from instructor.demo import run_demo

NAME = "demo"
HELP = "Generate, run the solutions in quick mode and autograde two sample submissions, in a scratch folder."
EXAMPLES = """\
steps (nothing is written inside the repository):
  1. generate: solutions/ -> <scratch>/course/notebooks/ with nbgrader;
  2. execute every solution notebook in quick mode (COURSE_QUICK=1);
  3. autograde two submissions per assignment in a course directory
     (<scratch>/course-dir): 'reference' (the solution) and 'blank' (the
     untouched student version), in the sandbox if there is one; the demo
     grades only the course's own notebooks, so without a sandbox it runs
     them unisolated and says so;
  4. print the grade table: full marks for reference, 0 for blank.

examples:
  course demo
  course demo 01_rnn --scratch /tmp/demo       # kept afterwards
"""


def add_arguments(p):
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="assignment folder names (default: all)")
    p.add_argument(
        "--scratch",
        type=Path,
        metavar="DIR",
        help="scratch folder, new or of an earlier demo, kept afterwards (default: a new temporary folder)",
    )
    p.add_argument("--keep", action="store_true", help="keep the scratch folder afterwards")


def run(args) -> int:
    # the demo runs this checkout's solutions: an installed package carries none (one sentence says so)
    run_demo(resolve_assignments(repository(None) / "solutions", args.assignments), args.scratch, keep=args.keep)
    return 0
