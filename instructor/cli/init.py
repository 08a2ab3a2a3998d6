"""course init: create the course directory that `course` and nbgrader's own tools share."""

from __future__ import annotations

from pathlib import Path

from instructor.coursedir import directory
from instructor.coursedir.due import apply_to_recorded, parse_due
from instructor.errors import CourseError, first_line
from instructor.settings import COURSE_ID

NAME = "init"
HELP = "Create (or update) the course directory: its settings (exchange, gradebook, late rule, due dates) as data."
EXAMPLES = f"""\
what it writes (<dir> = DIR, else ${directory.ENV}, else {directory.DEFAULT}; never inside the repository):
  <dir>/nbgrader_config.json the settings, data: Exchange.root, CourseDirectory.db_url, the late rule's
                             PercentPerDay.percent_per_day, CourseRepository.root (add other nbgrader
                             settings there); written only when it changes (on the hub it is root's)
  <dir>/nbgrader_config.py   one constant line for nbgrader's own commands: course id {COURSE_ID!r}, the
                             course's grading and feedback chains (no hidden tests), the data above
  <dir>/due.json             the due dates, data the settings read: on the hub the staff move a date
                             without root (docs/hub.md)
  <exchange>/                as root: laid out as the course's (every folder root's, only inbound open
                             to students, 1733; docs/trust.md); otherwise made 0755 if it does not exist
  the course repository      --root: the checkout whose solutions/ `course release-to-exchange` and
                             `course grade` use (default: kept, else the checkout `course` runs from;
                             an installed package carries no solutions, so name one there)

Run again with new options to change them; options not given keep their value.
Every `course` command and every nbgrader command run in <dir> reads these files; `course` runs none.

examples:
  course init ~/seqmodels-grading --exchange /srv/nbgrader/exchange --late-penalty 10 \\
      --due 01_rnn='2026-10-05 17:00 UTC' --due 02_seq2seq='2026-10-19 17:00 UTC'
  course init --db postgresql://grader@db.example.org/seqmodels
  course init --root /srv/seqmodels-repo     # `course` installed with pip, the repository checked out there
"""


def add_arguments(p):
    p.add_argument(
        "course_path",
        type=Path,
        nargs="?",
        metavar="DIR",
        help=f"the course directory (default: ${directory.ENV}, else {directory.DEFAULT})",
    )
    p.add_argument(
        "--course-dir",
        dest="course_dir",
        type=Path,
        metavar="DIR",
        help="the same as DIR, spelled as every other command spells it",
    )
    p.add_argument(
        "--exchange",
        type=Path,
        help="nbgrader exchange root students fetch from and submit to (default: <dir>/exchange)",
    )
    p.add_argument("--db", metavar="URL", help="gradebook URL (default: sqlite:///<dir>/gradebook.db)")
    p.add_argument(
        "--late-penalty",
        type=float,
        metavar="PERCENT",
        help="percent of a notebook's autograded points taken per day (or part of a day) late, at most all of them "
        "(hand grades and overrides never change it; default: 10; 0 = none)",
    )
    p.add_argument(
        "--due", action="append", default=[], metavar="A=DATE", help="due date of an assignment, UTC (repeat)"
    )
    p.add_argument(
        "--root",
        type=Path,
        help="the course repository (a checkout holding solutions/) to release and grade from "
        "(default: the recorded one, else this checkout)",
    )


def late_rule(percent: float) -> str:
    """The late rule in words, as :mod:`instructor.coursedir.late` applies it (and the docs say it)."""
    if percent == 0:
        return "none"
    return f"{percent:g}% of the autograded points per day (or part of a day) late, at most all of them"


def run(args) -> int:
    if args.course_path and args.course_dir and args.course_path.resolve() != args.course_dir.resolve():
        raise CourseError(
            f"two course directories named ({args.course_path} and --course-dir {args.course_dir}); name one."
        )
    course_path = directory.resolve(args.course_path or args.course_dir)
    settings = directory.init(
        course_path,
        exchange=args.exchange,
        db_url=args.db,
        late_penalty=args.late_penalty,
        due=parse_due(args.due),
        root=args.root,
    )
    print(f"course directory: {course_path}")
    print(f"  course id:     {COURSE_ID}")
    print(f"  exchange:      {settings.exchange}")
    print(f"  gradebook:     {settings.db_url}")
    print(f"  late penalty:  {late_rule(settings.late_penalty)}")
    print(f"  repository:    {settings.root or 'none: give one with --root (a checkout holding solutions/)'}")
    for name, when in sorted(settings.due.items()):
        print(f"  due {name}: {when}")
    # the gradebook is where the formgrader and nbgrader read a due date: a new one counts from now
    try:
        updated = apply_to_recorded(settings.due, settings.db_url)
    except Exception as err:  # a database server that does not answer: SQLAlchemy raises several types
        print(f"  due dates not copied into the gradebook yet ({first_line(err)}): `course grade` copies them")
        updated = []
    if updated:
        print(f"  due dates copied into the gradebook: {', '.join(updated)}")
    print(f"settings: {course_path / directory.SETTINGS_NAME}")
    if course_path != directory.resolve(None):
        print(f"name it once for every command: export {directory.ENV}={course_path}")
    return 0
