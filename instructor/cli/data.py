"""course data: build the data sets, offline, from an embedded corpus."""

from __future__ import annotations

NAME = "data"
HELP = "Build the cipher data set of 04_transformer (offline, from an embedded corpus or --corpus FILE)."
EXAMPLES = """\
examples:
  course data build                       # default corpus, default output
  course data build --corpus wiki.txt     # any English text file
  course data build --help                # every option
"""


def add_arguments(p):
    p.add_argument("action", choices=["build"], help="what to do")
    p.add_argument("rest", nargs="...", help="options passed to the builder (see `course data build --help`)")


def run(args) -> int:
    # the builder is its own package (data/), with its own command line
    from course_data.build import main

    return main(list(args.rest))
