"""course grade: autograde a folder of submissions, each in its own sandbox."""

from __future__ import annotations

import csv
from pathlib import Path

from course import coursedir, gradebook, grading, sandbox, schedule
from course.errors import CourseError
from course.paths import REPO_ROOT

NAME = "grade"
HELP = "Autograde the collected submissions (or a folder of them), each in a sandbox, and print the grade table."
EXAMPLES = """\
steps (one submission = one run of 2-4; a bad one never stops the rest):
  1. intake: find every submission; a broken one is reported as
     `not graded: <reason>` (also students not on --roster);
  2. prepare: restore locked and test cells from the release, report
     tampering, match a notebook without nbgrader metadata to the release;
  3. execute in the sandbox (bubblewrap: uid 65534, no network, private
     filesystem, memory/process/time/output limits) in quick mode;
  4. score outside the sandbox; flag code that reaches into the tests;
  5. record grades (late penalties and due dates of the course directory's
     nbgrader_config.py; hand grades kept), outcome and log; print the table;
     then `course export` and `course feedback`.

the table: autograded = test-cell points; by hand = written-answer points
given / max; pending = points nobody has graded yet; late = penalty.

paths (<dir> = --course-dir, else $COURSE_DIR, else ~/seqmodels-grading):
  <dir>/submitted/<student>/<a>/       read by default (`nbgrader collect` writes it)
  <dir>/results/<student>/<a>.json     outcome: graded, flagged or not graded, with the reason
  <dir>/logs/<student>/<a>.log         what happened, sandbox log included

submission layouts:
  SUBMISSIONS/<student>/<assignment>/*.ipynb              (also nbgrader's submitted/)
  SUBMISSIONS = an nbgrader exchange, <course>/ or inbound/  (latest per student)

Students not on the roster (`course roster import`, or --roster) are not graded.
A test cell whose code changed since submissions were graded: the table says
so and the selected submissions are graded with it. Graded cells added or
removed after that: refused (nbgrader cannot), in one sentence.

running at scale (one task per submission; only this process writes the gradebook):
  (no flag)            one submission after another, in this process
  --jobs N             N local Dask worker processes, one submission each at a time
  --scheduler ADDRESS  a running Dask cluster (`dask scheduler`, `dask worker --nthreads 1`);
                       workers must see the course directory and the submissions on a shared
                       filesystem under the same paths, and run as root (the sandbox)
  --db URL             the gradebook in a database server, e.g. postgresql://host/seqmodels
                       (default: the course directory's setting, `course init --db`)
A rerun grades only what is new or changed (notebook bytes, timestamp, release);
--force grades everything again. A killed run resumes where it stopped.

Without a working sandbox, grading is refused unless --unsafe is given.
Exit status 1 only for an instructor's mistake (no folder, bad roster, no sandbox).

examples:
  course grade                                     # <dir>/submitted
  course grade --assignment 02_seq2seq --student amy,bob
  course grade ~/collected --course-dir ~/grading-week3
  course grade --jobs 2
  course grade /shared/collected --course-dir /shared/grading --scheduler tcp://10.0.0.5:8786 \
      --db postgresql://grader@dbhost/seqmodels
"""


def add_arguments(p):
    p.add_argument("submissions", type=Path, metavar="SUBMISSIONS", nargs="?",
                   help="folder or exchange of submissions (default: <dir>/submitted)")
    # course directory and regrading (issue 13)
    coursedir.add_argument(p)
    p.add_argument("--assignment", "-a", action="append", metavar="A", help="grade only these assignments (repeat, or a,b)")
    p.add_argument("--student", "-s", action="append", metavar="S", help="grade only these students (repeat, or a,b)")
    p.add_argument("--roster", type=Path, help="CSV file with an 'id' column (default: <dir>/roster.csv): students not on it are not graded")
    p.add_argument("--root", type=Path, default=REPO_ROOT, help="course repository whose solutions/ grade (default: this one)")
    p.add_argument("--cell-timeout", type=float, default=sandbox.Limits.cell_timeout, help="seconds a cell may run (default: %(default)g)")
    p.add_argument("--budget", type=float, default=sandbox.Limits.notebook_budget, help="seconds a whole notebook may run (default: %(default)g)")
    p.add_argument("--jobs", type=int, help="grade on N local Dask worker processes (default: serially, in this process)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="grade on the running Dask cluster at ADDRESS (tcp://host:8786)")
    p.add_argument("--db", metavar="URL", help="gradebook database URL (default: the course directory's setting)")
    p.add_argument("--force", action="store_true", help="grade again submissions already graded and unchanged")
    p.add_argument("--unsafe", action="store_true",
                   help="grade even though no sandbox is available: student code then runs with YOUR rights")


def read_roster(path: Path) -> set[str]:
    if not path.is_file():
        raise CourseError(f"There is no roster file at {path}.")
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        if not reader.fieldnames or "id" not in reader.fieldnames:
            raise CourseError(f"{path} has no 'id' column.")
        return {row["id"].strip() for row in reader if row["id"].strip()}


def check_isolation(unsafe: bool) -> sandbox.Isolation:
    """The sandbox in use; refuse without one unless the instructor said --unsafe."""
    isolation = sandbox.detect()
    if not isolation.safe and not unsafe:
        raise CourseError(
            f"no sandbox to grade student work in ({isolation.detail.split('(', 1)[-1].rstrip(')')}); "
            "install bubblewrap and run as root, or pass --unsafe to run student code with your own rights."
        )
    return isolation


def run(args) -> int:
    root = args.root.resolve()
    known = grading.known_assignments(root)
    workspace = coursedir.resolve(args.course_dir)
    only_a, only_s = coursedir.names(args.assignment), coursedir.names(args.student)
    for name in only_a:
        if name not in known:
            raise CourseError(f"There is no assignment {name!r} (known: {', '.join(known)}).")
    roster = read_roster(args.roster) if args.roster else coursedir.roster(workspace)
    isolation = check_isolation(args.unsafe)
    if args.cell_timeout <= 0 or args.budget <= 0:
        raise CourseError("--cell-timeout and --budget must be positive numbers of seconds.")
    if args.jobs is not None and (args.jobs < 1 or args.scheduler):
        raise CourseError("--jobs takes a whole number of at least 1, and not together with --scheduler.")
    gradebook.check_server(args.db)
    limits = sandbox.Limits(cell_timeout=args.cell_timeout, notebook_budget=args.budget)
    folder = (args.submissions or workspace / "submitted").resolve()
    subs = grading.find_submissions(folder, known, roster)
    subs = coursedir.select(subs, only_a, only_s) if (only_a or only_s) else subs
    if not coursedir.is_course_dir(workspace):
        coursedir.init(workspace)
        print(f"course directory {workspace} created with `course init`'s defaults")
    assignments = sorted({s.assignment for s in subs if s.assignment in known}, key=known.index)
    print(f"course directory: {workspace}")
    print(f"grading {len(subs)} submission(s) of {', '.join(assignments) or 'no known assignment'} from {folder}")
    print(f"isolation: {isolation.detail}", flush=True)
    for change in grading.prepare_workspace(workspace, root, assignments, db=args.db):
        print(change)
    run = schedule.grade_class(workspace, subs, limits=limits, unsafe=args.unsafe, db=args.db, jobs=args.jobs,
                               scheduler=args.scheduler, force=args.force)
    coursedir.keep_exchange_files(workspace, subs, run.summaries)
    print(grading.format_table(grading.grades(workspace, only_a, only_s, db=args.db), isolation.detail))
    counts = run.counts()
    print(f"{counts['graded']} graded, {counts['flagged']} flagged for review, {counts['not graded']} not graded "
          f"(reasons above; logs in {workspace / 'logs'})")
    return 0
