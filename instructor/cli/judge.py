"""course judge: which checks of an assignment the autograder judges outside the kernel, and which it cannot."""

from __future__ import annotations

from instructor.cli.options import add_root, repository
from instructor.grading.checks.judge_report import report as judge_summary

NAME = "judge"
HELP = "Show which checks of an assignment the grader judges outside the student's kernel, and which it cannot."
EXAMPLES = """\
what it prints:
  counts   per assignment, the checks judged outside the kernel and those that run in it
           (a kernel assert: it calls the student's code itself), each named
  anchors  the checks whose expected value the kernel could influence (every value
           they compare is the kernel's), visible and hidden
  --run    the reference's fast cells run in a local kernel with the test cells
           split, and every cell is judged outside as `course grade` judges it

paths:
  solutions/<a>/<a>.ipynb  (read only)

exit status 0, or 1 when --run finds a cell of the reference the grader fails.

examples:
  course judge 01_rnn
  course judge 04_transformer --run
"""


def add_arguments(p):
    p.add_argument("assignment", metavar="ASSIGNMENT", help="assignment folder name (01_rnn ...)")
    p.add_argument(
        "--run",
        dest="run_reference",  # (``run`` is the command's own function)
        action="store_true",
        help="run the reference and judge every cell outside the kernel",
    )
    add_root(p)


def run(args) -> int:
    text, passed = judge_summary(args.assignment, repository(args.root) / "solutions", run=args.run_reference)
    print(text)
    return 0 if passed else 1
