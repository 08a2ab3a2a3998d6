"""course release: regenerate notebooks/ from solutions/."""

from __future__ import annotations

from instructor.authoring.release import release
from instructor.cli.options import add_root, repository

NAME = "release"
HELP = "Regenerate the student notebooks in notebooks/ from the solutions in solutions/."
EXAMPLES = """\
steps:
  1. refresh the given cells of each solution notebook from the earlier
     assignments they quote (solutions/02_seq2seq quotes 01_rnn, ...);
  2. draw the assignment's figures (instructor/authoring/figures) into solutions/<a>/figures/;
  3. write the text form of the notebook, solutions/<a>.py (jupytext, percent);
  4. run nbgrader generate_assignment: solutions are replaced by stubs that
     raise NotImplementedError, hidden tests removed, outputs cleared.

paths:
  solutions/<a>/<a>.ipynb  ->  notebooks/<a>/<a>.ipynb  (+ the folder's other files)
  instructor/authoring/figures/*.py  ->  solutions/<a>/figures/*.svg  ->  notebooks/<a>/figures/
  solutions/<a>/<a>.ipynb  ->  solutions/<a>.py  (never released)

examples:
  course release                 # all four assignments
  course release 03_attention    # one
"""


def add_arguments(p):
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="assignment folder names (default: all)")
    add_root(p)


def run(args) -> int:
    for name, stale in release(repository(args.root), args.assignments):
        note = f" (refreshed given cells: {', '.join(stale)})" if stale else ""
        print(f"released {name}: notebooks/{name}/{name}.ipynb{note}")
    return 0
