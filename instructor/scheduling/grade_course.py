"""``course grade`` from start to end: intake, the course directory's assignments, the class, the exchange files.

The command parses its options into a :class:`GradeRequest`, calls
:func:`grade_course` and prints the grade table; this is where the steps
meet::

    1. intake           every submission of the folder (or exchange), checked; roster applied
    2. assignments      solutions/ -> the course directory's source/ and release/, in the gradebook
    3. the class        grade_class: prepare, execute, score each; record as they arrive
    4. exchange files   timestamps and secrets beside the autograded notebooks, for nbgrader's feedback
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from instructor import sandbox
from instructor.authoring.to_course_dir import into_course_dir
from instructor.coursedir import directory, gradebook, roster
from instructor.errors import CourseError
from instructor.grading.intake import find_submissions, select
from instructor.grading.record import keep_exchange_files
from instructor.paths import existing_assignments
from instructor.scheduling.loop import ClassRun, grade_class


@dataclass(frozen=True)
class GradeRequest:
    """What ``course grade`` was asked to do."""

    course_dir: Path
    root: Path  # the course repository whose solutions/ grade
    submissions: Path | None = None  # a folder or an exchange (default: <course dir>/submitted)
    assignments: list[str] = field(default_factory=list)  # only these (all if empty)
    students: list[str] = field(default_factory=list)  # only these (all if empty)
    roster: Path | None = None  # default: the course directory's roster.csv, if any
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    jobs: int | None = None
    scheduler: str | None = None
    db: str | None = None
    force: bool = False
    unsafe: bool = False


def check_isolation(unsafe: bool) -> sandbox.Isolation:
    """The sandbox in use; refuse without one unless the instructor said --unsafe."""
    isolation = sandbox.detect()
    if not isolation.safe and not unsafe:
        raise CourseError(
            f"no sandbox to grade student work in ({isolation.detail.split('(', 1)[-1].rstrip(')')}); "
            "install bubblewrap and run as root, or pass --unsafe to run student code with your own rights."
        )
    return isolation


def _check(req: GradeRequest, known: list[str]) -> None:
    """An instructor's mistake in the request, in one sentence."""
    for name in req.assignments:
        if name not in known:
            raise CourseError(f"There is no assignment {name!r} (known: {', '.join(known)}).")
    if req.limits.cell_timeout <= 0 or req.limits.notebook_budget <= 0:
        raise CourseError("--cell-timeout and --budget must be positive numbers of seconds.")
    if req.jobs is not None and (req.jobs < 1 or req.scheduler):
        raise CourseError("--jobs takes a whole number of at least 1, and not together with --scheduler.")


def grade_course(req: GradeRequest, log=print) -> tuple[ClassRun, sandbox.Isolation]:
    """Grade the submissions of ``req`` in its course directory; returns the run and the isolation used."""
    known = existing_assignments(req.root / "solutions")
    _check(req, known)
    ids = roster.ids(req.roster) if req.roster else roster.roster(req.course_dir)
    isolation = check_isolation(req.unsafe)
    gradebook.check_server(req.db)
    folder = (req.submissions or req.course_dir / "submitted").resolve()
    subs = find_submissions(folder, known, ids, course_dir=req.course_dir)
    if req.assignments or req.students:
        subs = select(subs, req.assignments, req.students)
    if not directory.is_course_dir(req.course_dir):
        directory.init(req.course_dir)
        log(f"course directory {req.course_dir} created with `course init`'s defaults")
    assignments = sorted({s.assignment for s in subs if s.assignment in known}, key=known.index)
    log(f"course directory: {req.course_dir}")
    log(f"grading {len(subs)} submission(s) of {', '.join(assignments) or 'no known assignment'} from {folder}")
    log(f"isolation: {isolation.detail}")
    for change in into_course_dir(req.course_dir, req.root, assignments, db=req.db):
        log(change)
    run = grade_class(
        req.course_dir,
        subs,
        limits=req.limits,
        unsafe=req.unsafe,
        db=req.db,
        jobs=req.jobs,
        scheduler=req.scheduler,
        force=req.force,
        log=log,
    )
    keep_exchange_files(req.course_dir, subs, run.results)
    return run, isolation
