"""course verify: fail when notebooks/ is not exactly what `course generate` makes now."""

from __future__ import annotations

from instructor.authoring.verify import verify
from instructor.cli.options import add_root, repository

NAME = "verify"
#: the name this command had until this term; it still runs, with a deprecation line
OLD_NAME = "check"
HELP = "Verify that notebooks/ holds the student versions solutions/ generates now, without outputs or leaked answers."
EXAMPLES = """\
what it verifies:
  drift    notebooks/ equals what `course generate` makes now, given cells included
  outputs  no committed notebook carries outputs or execution counts
  leaks    no solution or hidden-test line of solutions/ shows in notebooks/
  markers  every nbgrader marker stands on a line of its own
  figures  solutions/<a>/figures/ holds what instructor/authoring/figures draws now, nothing
           else, and every image a notebook shows (figures only compare their
           text labels when another Matplotlib version wrote them)
  text     solutions/<a>.py is the notebook's current text form

exit status 0 when clean, 1 with one line per problem otherwise.
`course check`, this command's old name, still works this term.

examples:
  course verify
  course verify --root path/to/course-repo
"""


def add_arguments(p):
    add_root(p)


def run(args) -> int:
    problems = verify(args.root.resolve() if args.root else repository(None))  # it says what a bad --root lacks
    if problems:
        print(f"course verify found {len(problems)} problem(s):")
        for line in problems:
            print(f"  - {line}")
        return 1
    print("course verify: notebooks/ holds exactly what `course generate` makes from solutions/, clean.")
    return 0
