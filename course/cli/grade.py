"""course grade: autograde a folder of submissions."""

from __future__ import annotations

import csv
from pathlib import Path

from course import grading
from course.errors import CourseError
from course.paths import REPO_ROOT

NAME = "grade"
HELP = "Autograde every submission in a folder and print the grade table."
EXAMPLES = """\
steps:
  1. check every submission first: known assignment, valid notebook,
     student on the roster (with --roster);
  2. copy solutions/ into the workspace; nbgrader records each assignment
     and its tests in the gradebook;
  3. nbgrader autograde, one submission at a time (quick mode: no long training);
  4. print the table; then `course export` and `course feedback`.

submission layouts:
  SUBMISSIONS/<student>/<assignment>/*.ipynb              (also nbgrader's submitted/)
  SUBMISSIONS = an nbgrader exchange, <course>/ or inbound/  (latest per student)

examples:
  course grade ~/collected
  course grade /srv/nbgrader/exchange/seqmodels --workspace grading-week3
"""


def add_arguments(p):
    p.add_argument("submissions", type=Path, metavar="SUBMISSIONS")
    p.add_argument("--workspace", type=Path, default=Path("grading"), help="nbgrader course directory to grade in (default: ./grading)")
    p.add_argument("--roster", type=Path, help="CSV file with an 'id' column: refuse students not on it")
    p.add_argument("--root", type=Path, default=REPO_ROOT, help="course repository whose solutions/ grade (default: this one)")


def read_roster(path: Path) -> set[str]:
    if not path.is_file():
        raise CourseError(f"There is no roster file at {path}.")
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        if not reader.fieldnames or "id" not in reader.fieldnames:
            raise CourseError(f"{path} has no 'id' column.")
        return {row["id"].strip() for row in reader if row["id"].strip()}


def run(args) -> int:
    root = args.root.resolve()
    known = grading.known_assignments(root)
    roster = read_roster(args.roster) if args.roster else None
    subs = grading.find_submissions(args.submissions.resolve(), known, roster)
    workspace = args.workspace.resolve()
    assignments = sorted({s.assignment for s in subs}, key=known.index)
    print(f"grading {len(subs)} submission(s) of {', '.join(assignments)} in {workspace}")
    grading.prepare_workspace(workspace, root, assignments)
    failures = grading.autograde(workspace, subs)
    print(grading.format_table(grading.grades(workspace)))
    if failures:
        raise CourseError(f"nbgrader could not autograde {len(failures)} submission(s): {', '.join(failures)}.")
    return 0
