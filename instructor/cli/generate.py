"""course generate: the student versions in notebooks/, generated from solutions/ (nbgrader's generate_assignment)."""

from __future__ import annotations

from instructor.authoring.generate import generate
from instructor.cli.options import add_root, repository

NAME = "generate"
#: the name this command had until this term; it still runs, with a deprecation line
OLD_NAME = "release"
HELP = "Generate the student versions in notebooks/ from the solutions in solutions/."
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
  solutions/<a>/<a>.ipynb  ->  solutions/<a>.py  (never given to students)

To put a student version where students fetch it, see `course release-to-exchange`.
`course release`, this command's old name, still works this term.

examples:
  course generate                 # all four assignments
  course generate 03_attention    # one
"""


def add_arguments(p):
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="assignment folder names (default: all)")
    add_root(p)


def run(args) -> int:
    for name, stale in generate(repository(args.root), args.assignments):
        note = f" (refreshed given cells: {', '.join(stale)})" if stale else ""
        print(f"generated {name}: notebooks/{name}/{name}.ipynb{note}")
    return 0
