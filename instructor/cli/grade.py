"""course grade: autograde a folder of submissions, each in its own sandbox."""

from __future__ import annotations

import os
from pathlib import Path

from instructor.cli.options import add_course_dir, add_db, add_root, names, repository
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.hub import privileged
from instructor.reporting.table import format_table
from instructor.sandbox import Limits
from instructor.term.grade_course import GradeRequest, grade_course

NAME = "grade"
HELP = "Autograde the collected submissions (or a folder of them), each in a sandbox, and print the grade table."
EXAMPLES = """\
steps (one submission = one run of 2-4; a bad one never stops the rest):
  1. intake: find every submission; a broken one is listed as
     `not graded: <reason>` (also students not on --roster);
  2. prepare: restore locked and test cells from the student version, flag
     tampering, match a notebook without nbgrader metadata to the student version;
  3. execute in the sandbox (bubblewrap: executor uid 65534, kernel 65533, no network, private
     filesystem, memory/process/time/output limits) in quick mode;
  4. score outside the sandbox; flag code that reaches into the tests;
  5. record grades (late penalties and due dates of the course directory's
     settings; hand grades kept), outcome and log; print the table;
     then `course export` and `course feedback`.

the table: autograded = test-cell points; by hand = written-answer points
hand points / max; pending = points nobody has graded yet; late = penalty.

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
A rerun grades only what is new or changed (notebook bytes, timestamp, student version);
--force grades everything again. A killed run resumes where it stopped.

Without a working sandbox, grading is refused unless --unsafe is given; where no memory and
process limit can be set (no cgroup v2 or v1 to write), unless --no-limits is given.
Exit status 1 only for an instructor's mistake (no folder, bad roster, no sandbox, no limits).

examples:
  course grade                                     # <dir>/submitted
  course grade --assignment 02_seq2seq --student amy,bob
  course grade ~/collected --course-dir ~/grading-week3
  course grade --jobs 2
  course grade /shared/collected --course-dir /shared/grading --scheduler tcp://10.0.0.5:8786 \
      --db postgresql://grader@dbhost/seqmodels
"""


def add_arguments(p):
    p.add_argument(
        "submissions",
        type=Path,
        metavar="SUBMISSIONS",
        nargs="?",
        help="folder or exchange of submissions (default: <dir>/submitted)",
    )
    add_course_dir(p)
    p.add_argument(
        "--assignment",
        "-a",
        action="append",
        metavar="ASSIGNMENT",
        help="grade only these assignments (repeat, or a,b)",
    )
    p.add_argument(
        "--student", "-s", action="append", metavar="STUDENT", help="grade only these students (repeat, or a,b)"
    )
    p.add_argument(
        "--roster",
        type=Path,
        help="CSV file with an 'id' column (default: <dir>/roster.csv): students not on it are not graded",
    )
    add_root(p, "course repository whose solutions/ grade", recorded=True)
    p.add_argument(
        "--cell-timeout", type=float, default=Limits.cell_timeout, help="seconds a cell may run (default: %(default)g)"
    )
    p.add_argument(
        "--budget",
        type=float,
        default=Limits.notebook_budget,
        help="seconds a whole notebook may run (default: %(default)g)",
    )
    p.add_argument(
        "--jobs", type=int, help="grade on N local Dask worker processes (default: serially, in this process)"
    )
    p.add_argument(
        "--scheduler", metavar="ADDRESS", help="grade on the running Dask cluster at ADDRESS (tcp://host:8786)"
    )
    add_db(p)
    p.add_argument("--force", action="store_true", help="grade again submissions already graded and unchanged")
    p.add_argument(
        "--unsafe",
        action="store_true",
        help="grade even though no sandbox is available: student code then runs with YOUR rights",
    )
    p.add_argument(
        "--no-limits",
        action="store_true",
        help="grade even where no memory and process limit can be set: a fork bomb or a memory hog is unchecked",
    )


def _require_sudo(passed: Path | None) -> None:
    """Under sudo, which drops $COURSE_DIR: refuse to make a new course directory where nobody named one."""
    if (
        passed is None
        and os.environ.get("SUDO_USER")
        and not os.environ.get(directory.ENV)
        and not directory.is_course_dir(directory.resolve(None))
    ):
        raise CourseError(
            f"{directory.resolve(None)} is not a course directory, and sudo does not pass "
            f'${directory.ENV} on: name it, `sudo $(which course) grade --course-dir "${directory.ENV}"`.'
        )


def _privileged(args) -> int | None:
    """Staff on the hub grade as root through the course's privileged path (docs/hub.md); None elsewhere."""
    script = privileged.available(directory.resolve(args.course_dir))
    if not script:
        return None
    if args.submissions or args.roster or args.jobs or args.scheduler or args.db or args.unsafe:
        raise CourseError(
            "on the hub, `course grade` grades the collected submissions through the privileged path, "
            "which takes only --assignment, --student and --force."
        )
    passed = [f"--assignment={a}" for a in names(args.assignment)] + [f"--student={s}" for s in names(args.student)]
    return privileged.call(script, "grade", *passed, *(["--force"] * args.force))


def run(args) -> int:
    routed = _privileged(args)
    if routed is not None:
        return routed
    _require_sudo(args.course_dir)
    # made with `course init`'s defaults once its submissions are found, if `course init` never ran
    course_dir = CourseDir.planned(directory.resolve(args.course_dir), db=args.db)
    request = GradeRequest(
        course_dir=course_dir,
        root=repository(args.root, course_dir.settings.root),
        submissions=args.submissions,
        assignments=names(args.assignment),
        students=names(args.student),
        roster=args.roster,
        limits=Limits(cell_timeout=args.cell_timeout, notebook_budget=args.budget, required=not args.no_limits),
        jobs=args.jobs,
        scheduler=args.scheduler,
        force=args.force,
        unsafe=args.unsafe,
    )
    graded = grade_course(request, log=lambda line: print(line, flush=True))
    print(format_table(graded.rows))  # the isolation line was logged before grading began
    print("\n".join(graded.checks))
    counts = graded.run.counts()
    print(
        f"{counts['graded']} graded, {counts['flagged']} flagged for review, {counts['not graded']} not graded "
        f"(reasons above; logs in {graded.course_dir.logs})"
    )
    return 0
