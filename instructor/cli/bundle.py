"""course bundle: what students receive, and nothing else."""

from __future__ import annotations

from pathlib import Path

from instructor.authoring.bundle import build
from instructor.authoring.given import given_sources
from instructor.cli.options import add_root, repository

NAME = "bundle"
HELP = "Build a student bundle: only the named assignments' student versions, their data and the helpers they import."
EXAMPLES = """\
steps:
  1. generate the named assignments' student versions afresh from solutions/ (in a scratch folder);
  2. copy their student versions and data, the helper modules the notebooks
     import (the package course/: quick mode, plots, explorers, the data loader
     of 04) as a small package students install into a venv with
     `pip install ./helpers` (it brings JupyterLab and nbgrader's Validate
     button, with the rest of nbgrader's interface switched off), and a README
     (venv, install, start, Validate, hand in);
  3. refuse if anything else, a solution line or an nbgrader marker got in, or
     if any file speaks of solutions/, tests/, a `course` verb or course_data
     (students have none of them): the error names the file and cell or line.

paths:
  freshly generated student versions  ->  <to>/<a>/<a>.ipynb (+ data), <to>/helpers/, <to>/README.md

examples:
  course bundle 01_rnn --to week1              # folder week1/
  course bundle 01_rnn 02_seq2seq --to week3 --zip   # week3/ and week3.zip

Given cells hold the reference answers of earlier assignments (02 holds 01's):
bundle 02 only after 01 has closed.
"""


def add_arguments(p):
    p.add_argument("assignments", nargs="+", metavar="ASSIGNMENT", help="the assignments to hand out")
    p.add_argument(
        "--to", type=Path, default=Path("bundle"), metavar="DIR", help="bundle folder to write into (default: ./bundle)"
    )
    p.add_argument("--zip", action="store_true", help="also write <to>.zip")
    p.add_argument("--force", action="store_true", help="replace an existing bundle folder")
    add_root(p)


def run(args) -> int:
    to = args.to.resolve()
    written = build(
        args.assignments, to, make_zip=args.zip, force=args.force, root=repository(args.root), verbs=args.verbs
    )
    for path in written:
        print(f"wrote {path}")
    for name, earlier in given_sources(args.assignments, to).items():
        print(f"note: {name} holds the reference answers of {', '.join(sorted(earlier))} in its given cells.")
    return 0
