"""course release-to-exchange: put an assignment where students fetch it (nbgrader's exchange)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from course import coursedir, grading
from course.errors import CourseError
from course.paths import REPO_ROOT
from course.release import resolve_assignments

NAME = "release-to-exchange"
HELP = "Generate assignments in the course directory and release them to its nbgrader exchange."
EXAMPLES = """\
steps:
  1. copy solutions/<a> into <dir>/source/<a> (given cells refreshed), generate
     <dir>/release/<a> and record it in the gradebook, with its due date;
  2. run `nbgrader release_assignment <a>` in <dir> (its nbgrader_config.py
     names the course id and the exchange).

then students run (their nbgrader needs the same exchange root):
  nbgrader fetch_assignment <a> --course seqmodels --Exchange.root=<exchange>
  nbgrader submit <a> --course seqmodels --Exchange.root=<exchange>

examples:
  course release-to-exchange 01_rnn
  course release-to-exchange 01_rnn --force     # replace a release students may have fetched
"""


def add_arguments(p):
    p.add_argument("assignments", nargs="+", metavar="A")
    coursedir.add_argument(p)
    p.add_argument("--root", type=Path, default=REPO_ROOT, help="course repository whose solutions/ to release (default: this one)")
    p.add_argument("--force", action="store_true", help="replace an assignment already in the exchange")


def run(args) -> int:
    folder = coursedir.resolve(args.course_dir)
    print(f"course directory: {folder}")
    if not coursedir.is_course_dir(folder):
        raise CourseError(f"{folder} is not a course directory yet: run `course init {folder}` first.")
    root = args.root.resolve()
    names = resolve_assignments(root / "solutions", args.assignments)
    for change in grading.prepare_workspace(folder, root, names):
        print(change)
    for name in names:
        command = [sys.executable, "-m", "nbgrader", "release_assignment", name] + (["--force"] if args.force else [])
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True)
        if done.returncode != 0:
            lines = [ln for ln in (done.stderr + done.stdout).splitlines() if "ERROR" in ln or "Error" in ln]
            detail = lines[-1].split("]", 1)[-1].strip() if lines else f"exit status {done.returncode}"
            raise CourseError(f"nbgrader could not release {name} ({detail}).")
        print(f"released {name} to {coursedir.current_settings(folder).exchange}")
    return 0
