"""``course grade`` from start to end: intake, the course directory's assignments, the class, the exchange files.

The command parses its options into a :class:`GradeRequest` (with the
course directory it opened), calls :func:`grade_course` and prints what
comes back; this is where the steps meet::

    1. intake           every submission of the folder (or exchange), checked; roster applied
    2. assignments      solutions/ -> the course directory's source/ and release/, in the gradebook
    3. the class        read once (ClassState); grade_class: prepare, execute, score; record as they arrive
    4. what it says     the formgrader's overrides noted, the grade table, where the checks were judged
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from instructor import sandbox
from instructor.authoring.to_course_dir import into_course_dir
from instructor.coursedir import overrides, roster
from instructor.coursedir.course_dir import CourseDir
from instructor.coursedir.hidden_seed import seed_submissions
from instructor.errors import CourseError
from instructor.grading.checks.judge_report import judged_lines
from instructor.grading.class_state import ClassState
from instructor.grading.intake import find_submissions, select
from instructor.paths import existing_assignments
from instructor.reporting.table import Grade, grades
from instructor.scheduling.loop import ClassRun, grade_class


@dataclass(frozen=True)
class GradeRequest:
    """What ``course grade`` was asked to do."""

    course_dir: CourseDir  # opened by the command (made with `course init`'s defaults on first grade)
    root: Path  # the course repository whose solutions/ grade
    submissions: Path | None = None  # a folder or an exchange (default: <course dir>/submitted)
    assignments: list[str] = field(default_factory=list)  # only these (all if empty)
    students: list[str] = field(default_factory=list)  # only these (all if empty)
    roster: Path | None = None  # default: the course directory's roster.csv, if any
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    jobs: int | None = None
    scheduler: str | None = None
    force: bool = False
    unsafe: bool = False


def require_isolation(unsafe: bool, limits: sandbox.Limits | None = None) -> sandbox.Isolation:
    """The sandbox in use; refuse without one unless the instructor said --unsafe, and without memory and
    process limits unless --no-limits (``limits.required`` False)."""
    isolation = sandbox.detect()
    if not isolation.safe and not unsafe:
        raise CourseError(
            f"no sandbox to grade student work in ({isolation.detail.split('(', 1)[-1].rstrip(')')}); "
            "install bubblewrap and run as root, or pass --unsafe to run student code with your own rights."
        )
    refused = sandbox.refuse_without_limits(isolation, limits or sandbox.Limits())
    if refused:
        raise CourseError(refused)
    return isolation


def _require_sane_numbers(req: GradeRequest) -> None:
    """An instructor's mistake in the request's numbers, in one sentence (nothing read: before any disk)."""
    if req.limits.cell_timeout <= 0 or req.limits.notebook_budget <= 0:
        raise CourseError("--cell-timeout and --budget must be positive numbers of seconds.")
    if req.jobs is not None and (req.jobs < 1 or req.scheduler):
        raise CourseError("--jobs takes a whole number of at least 1, and not together with --scheduler.")


@dataclass(frozen=True)
class Graded:
    """What ``course grade`` did: the run, the sandbox used, the grade table, where the checks were judged."""

    run: ClassRun
    isolation: sandbox.Isolation
    course_dir: CourseDir  # as graded in (made on the first grade)
    rows: list[Grade]  # the grade table of the assignments and students asked for
    checks: list[str]  # per assignment graded: how many checks were judged outside the kernel


def grade_course(req: GradeRequest, log=print) -> Graded:
    """Grade the submissions of ``req`` in its course directory; then what the command prints."""
    course_dir = req.course_dir
    # refusals first: what needs no disk, then the sandbox; then what the class is (roster, assignments), with
    # the names asked for checked where the assignments are read, before intake touches the submissions
    _require_sane_numbers(req)
    isolation = require_isolation(req.unsafe, req.limits)
    ids = roster.ids(req.roster) if req.roster else roster.roster(course_dir)
    known = existing_assignments(req.root / "solutions")
    if unknown := [name for name in req.assignments if name not in known]:
        raise CourseError(f"There is no assignment {unknown[0]!r} (known: {', '.join(known)}).")
    submissions_dir = (req.submissions or course_dir.submitted).resolve()
    subs = find_submissions(submissions_dir, known, ids, course_dir=course_dir)
    if req.assignments or req.students:
        subs = select(subs, req.assignments, req.students)
    if not course_dir.exists:
        course_dir = course_dir.init()
        log(f"course directory {course_dir.path} created with `course init`'s defaults")
    assignments = sorted({s.assignment for s in subs if s.assignment in known}, key=known.index)
    log(f"course directory: {course_dir.path}")
    log(
        f"grading {len(subs)} submission(s) of {', '.join(assignments) or 'no known assignment'} from {submissions_dir}"
    )
    log(f"isolation: {isolation.detail}")
    key = seed_submissions(course_dir, subs)
    log(f"hidden checks: inputs drawn for each submission (key: {key})")
    for change in into_course_dir(course_dir, req.root, assignments):
        log(change)
    state = ClassState.read(course_dir, ids)  # the one read of the class's side files and gradebook
    run = grade_class(
        course_dir,
        subs,
        state=state,
        limits=req.limits,
        unsafe=req.unsafe,
        jobs=req.jobs,
        scheduler=req.scheduler,
        force=req.force,
        log=log,
    )
    overrides.observe_course(course_dir, "grade")  # as early as a course command can: the formgrader's overrides
    rows = grades(course_dir, req.assignments, req.students)
    checks = judged_lines(course_dir, sorted({r.assignment for r in rows}))
    return Graded(run, isolation, course_dir, rows, checks)
