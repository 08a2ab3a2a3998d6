"""course release-to-exchange: put an assignment where students fetch it (nbgrader's exchange)."""

from __future__ import annotations

from instructor.authoring.generate import resolve_assignments
from instructor.authoring.to_course_dir import release_to_exchange
from instructor.cli.options import add_course_dir, add_root, repository
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.hub import privileged

NAME = "release-to-exchange"
HELP = "Generate assignments in the course directory and release them to its nbgrader exchange."
EXAMPLES = """\
steps:
  1. copy solutions/<a> into <dir>/source/<a> (given cells refreshed), generate
     <dir>/release/<a> and record it in the gradebook, with its due date;
  2. run `nbgrader release_assignment <a>` in <dir> (its settings name the
     course id and the exchange).

then students run (their nbgrader needs the same exchange root):
  nbgrader fetch_assignment <a> --course seqmodels --Exchange.root=<exchange>
  nbgrader submit <a> --course seqmodels --Exchange.root=<exchange>

examples:
  course release-to-exchange 01_rnn
  course release-to-exchange 01_rnn --force     # replace a student version students may have fetched
"""


def add_arguments(p):
    p.add_argument("assignments", nargs="+", metavar="ASSIGNMENT", help="assignment folder names, e.g. 01_rnn")
    add_course_dir(p)
    add_root(p, "course repository whose solutions/ to release", recorded=True)
    p.add_argument("--force", action="store_true", help="replace an assignment already in the exchange")


def run(args) -> int:
    course_path = directory.resolve(args.course_dir)
    print(f"course directory: {course_path}")
    script = privileged.available(course_path)
    if script:  # staff on the hub: the exchange is root's
        return max(privileged.call(script, "release", a, *(["--force"] * args.force)) for a in args.assignments)
    course_dir = CourseDir.at(course_path)
    root = repository(args.root, course_dir.settings.root)
    names = resolve_assignments(root / "solutions", args.assignments)
    release_to_exchange(course_dir, root, names, force=args.force)
    return 0
