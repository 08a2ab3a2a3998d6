"""Autograde, export and feedback in a grading workspace, in stages.

A workspace is an ordinary nbgrader course directory::

    <workspace>/source/<a>/             copy of solutions/<a> (given cells synced)
    <workspace>/release/<a>/            the student version nbgrader generated
    <workspace>/autograded/<s>/<a>/     the executed, scored notebook (+ the exchange's two files, see coursedir)
    <workspace>/feedback/<s>/<a>/       HTML feedback, hidden tests removed
    <workspace>/results/<s>/<a>.json    the outcome of each submission (graded, flagged, not graded)
    <workspace>/logs/<s>/<a>.log        what happened while grading it
    <workspace>/gradebook.db            SQLite gradebook

Grading one submission is a chain of stages, one job each:

1. intake (:func:`find_submissions`): find and check each submission; a bad
   one becomes a ``not graded`` outcome, never an error for the batch;
2. prepare (:data:`PREPARE`): match a notebook without nbgrader metadata to
   the release, report and undo tampering, let nbgrader overwrite the locked
   and test cells, flag student code that reaches into the test machinery;
3. execute (:class:`SandboxedExecute`): the only stage that runs student
   code, in the sandbox; the executed notebook comes back as data;
4. score (:data:`SCORE`): outside the sandbox, checks on what each test cell
   produced, caps on outputs, nbgrader's grade of each cell;
5. record (:func:`record`): only the coordinating process writes the
   gradebook, the autograded notebook, the outcome and the log.

Stages 1-4 (:func:`grade_submission`) return an :class:`Outcome` and write
nothing shared, so they can run as independent tasks; stage 5 runs where the
gradebook lives.

Submissions come either as ``<student>/<assignment>/*.ipynb`` (also nbgrader's
``submitted/`` collect layout) or as an nbgrader exchange
(``<exchange>/<course>/inbound/<student>+<assignment>+<timestamp>...``).
"""

from __future__ import annotations

import json
import re
import shutil
import time
import traceback
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps.api import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import (
    AssignLatePenalties, CheckCellMetadata, ClearOutput, DeduplicateIds, IgnorePattern, LimitOutput,
    OverwriteCells, OverwriteKernelspec,
)
from nbgrader.utils import determine_grade, is_grade, parse_utc
from traitlets.config import Config

from course import coursedir, gradebook, resume, sandbox
from course.errors import CourseError
from course.nbsource import sync_given
from course.paths import existing_assignments, notebook_path
from course.preprocessors.cap_output_bytes import CapOutputBytes
from course.preprocessors.check_tests_ran import CheckTestsRan
from course.preprocessors.flag_test_machinery import FlagTestMachinery
from course.preprocessors.keep_hand_grades import KeepHandGrades
from course.preprocessors.mark_pending import pending_points
from course.preprocessors.match_release import MatchRelease, NotMatched
from course.preprocessors.restore_tampered_cells import RestoreTamperedCells
from course.preprocessors.sandboxed_execute import NotGraded, SandboxedExecute
from course.release import generate

# nbgrader 0.9 trips SQLAlchemy 2's autoflush warnings on every autograde;
# they say nothing to an instructor.
try:
    from sqlalchemy.exc import SAWarning

    warnings.filterwarnings("ignore", category=SAWarning, module="nbgrader")
except ImportError:  # pragma: no cover
    pass

_STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]*$")
#: a submitted notebook larger than this is not read
MAX_NOTEBOOK_BYTES = 20 * 2**20

# Order matters: matching rebuilds a notebook before anything compares it;
# tampering is detected before OverwriteCells silently repairs it; the scan
# reads student code after locked cells are restored.
PREPARE = [MatchRelease, RestoreTamperedCells, ClearOutput, DeduplicateIds, OverwriteKernelspec,
           OverwriteCells, CheckCellMetadata, FlagTestMachinery]
SCORE = [CheckTestsRan, IgnorePattern, LimitOutput, CapOutputBytes]
RECORD = [KeepHandGrades, AssignLatePenalties, CheckCellMetadata]


@dataclass(frozen=True)
class Submission:
    student: str
    assignment: str
    folder: Path  # holds the submitted notebook(s)
    problem: str = ""  # why it cannot be graded, found at intake ("" if none)


# --------------------------------------------------------------------------- 1. intake


def _exchange_inbound(folder: Path) -> Path | None:
    """The ``inbound`` folder if ``folder`` is an nbgrader exchange (or part of one)."""
    if folder.name == "inbound":
        return folder
    if (folder / "inbound").is_dir():
        return folder / "inbound"
    hits = sorted(folder.glob("*/inbound"))
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        courses = ", ".join(h.parent.name for h in hits)
        raise CourseError(f"{folder} holds the exchanges of several courses ({courses}); name one of them.")
    return None


def find_submissions(folder: Path, known: list[str], roster: set[str] | None = None) -> list[Submission]:
    """Every submission under ``folder``; the ones that cannot be graded carry a ``problem``.

    Only an instructor's mistake raises (no such folder, nothing in it).
    """
    if not folder.is_dir():
        raise CourseError(f"There is no submissions folder at {folder}.")
    inbound = _exchange_inbound(folder)
    subs = _from_exchange(inbound, known) if inbound else _from_folders(folder, known)
    if not subs:
        raise CourseError(f"{folder} holds no submissions (expected <student>/<assignment>/*.ipynb).")
    checked = []
    for sub in subs:
        if not sub.problem and roster is not None and sub.student not in roster:
            sub = Submission(sub.student, sub.assignment, sub.folder, f"{sub.student} is not on the roster")
        if not sub.problem:
            sub = Submission(sub.student, sub.assignment, sub.folder, _notebook_problem(sub))
        checked.append(sub)
    return checked


def _from_folders(folder: Path, known: list[str]) -> list[Submission]:
    subs = []
    for student_dir in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        name = student_dir.name
        if student_dir.is_symlink():
            subs.append(Submission(name, "?", student_dir, "the student folder is a symbolic link"))
            continue
        if not _STUDENT_ID.match(name):
            subs.append(Submission(name, "?", student_dir, "the folder name is not a valid student id (letters, digits, _ . @ - only)"))
            continue
        assignment_dirs = sorted(p for p in student_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
        if not assignment_dirs:
            subs.append(Submission(name, "?", student_dir, "the student folder holds no assignment folder"))
        for a in assignment_dirs:
            if a.is_symlink():
                subs.append(Submission(name, a.name, a, "the assignment folder is a symbolic link"))
            elif a.name not in known:
                subs.append(Submission(name, a.name, a, f"{a.name!r} is not a known assignment (known: {', '.join(known)})"))
            else:
                subs.append(Submission(name, a.name, a))
    return subs


def _from_exchange(inbound: Path, known: list[str]) -> list[Submission]:
    latest: dict[tuple[str, str], Path] = {}
    bad = []
    for entry in sorted(inbound.iterdir()):
        parts = entry.name.split("+")
        if not entry.is_dir() or entry.is_symlink() or len(parts) < 3:
            bad.append(Submission(entry.name, "?", entry, "not an nbgrader submission folder (<student>+<assignment>+<timestamp>)"))
            continue
        student, assignment, stamp = parts[0], parts[1], parts[2]
        if assignment not in known:
            bad.append(Submission(student, assignment, entry, f"{assignment!r} is not a known assignment (known: {', '.join(known)})"))
            continue
        key = (student, assignment)
        if key not in latest or stamp > latest[key].name.split("+")[2]:
            latest[key] = entry
    return [Submission(s, a, p) for (s, a), p in sorted(latest.items())] + bad


def submitted_notebook(sub: Submission) -> Path | None:
    """``<a>.ipynb`` in the folder, else its only notebook, else None."""
    expected = sub.folder / f"{sub.assignment}.ipynb"
    if expected.exists() or expected.is_symlink():
        return expected
    found = sorted(sub.folder.glob("*.ipynb"))
    return found[0] if len(found) == 1 else None


def _notebook_problem(sub: Submission) -> str:
    """One sentence on why the submitted notebook cannot be read, or ""."""
    path = submitted_notebook(sub)
    if path is None:
        many = len(list(sub.folder.glob("*.ipynb")))
        return "the folder holds no notebook" if not many else \
            f"the folder holds {many} notebooks and none is named {sub.assignment}.ipynb"
    if path.is_symlink():
        return f"{path.name} is a symbolic link, not a file"
    if not path.is_file():
        return f"{path.name} is not a file"
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        return f"{path.name} is larger than {MAX_NOTEBOOK_BYTES // 2**20} MB"
    if path.stat().st_size == 0:
        return f"{path.name} is empty"
    try:
        nb = nbformat.read(str(path), as_version=4)
        nbformat.validate(nb)
    except Exception as err:  # JSON and schema errors come in several types
        reason = str(err).strip().splitlines()[0][:120] if str(err).strip() else type(err).__name__
        return f"{path.name} is not a valid notebook ({reason})"
    return ""


# --------------------------------------------------------------------------- workspace


def _config(workspace: Path, limits: sandbox.Limits | None = None, unsafe: bool = False,
            db: str | None = None) -> Config:
    # the course directory's nbgrader_config.py when it has one: late penalties as nbgrader applies them
    cfg = coursedir.load_config(workspace)
    cfg.CourseDirectory.db_url = gradebook.url(workspace, db)
    if limits is not None:
        for key in ("cell_timeout", "notebook_budget", "memory_mb", "processes", "cell_output_bytes", "notebook_output_bytes"):
            setattr(cfg.SandboxedExecute, key, getattr(limits, key))
        cfg.CapOutputBytes.cell_bytes = limits.cell_output_bytes
        cfg.CapOutputBytes.notebook_bytes = limits.notebook_output_bytes
    cfg.SandboxedExecute.unsafe = unsafe
    return cfg


def _api(workspace: Path, db: str | None = None) -> NbGraderAPI:
    cfg = _config(workspace, db=db)
    coursedir = CourseDirectory(config=cfg)
    return NbGraderAPI(coursedir=coursedir, config=cfg)


def prepare_workspace(workspace: Path, repo_root: Path, assignments: list[str], db: str | None = None) -> list[str]:
    """Copy the sources in and let nbgrader record the assignments in the gradebook.

    Applies the course directory's due dates. Returns one line per test cell
    whose code changed since submissions were recorded (they are graded with
    the new code); refuses, in one sentence, to add or remove graded cells
    then, which nbgrader cannot do.
    """
    workspace.mkdir(parents=True, exist_ok=True)
    for name in assignments:
        target = workspace / "source" / name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(repo_root / "solutions" / name, target, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    for name in assignments:
        # given cells refer to earlier assignments, so sync against the repo
        sync_given(notebook_path(name, workspace / "source"), repo_root / "solutions")
    before = {name: _recorded_cells(workspace, name, db) for name in assignments}
    for name in assignments:
        _refuse_changed_cells(workspace, name, before[name])
    for name in assignments:
        generate(workspace, name, source="source", release="release", database=True,
                 db_url=gradebook.url(workspace, db))
    coursedir.apply_due_dates(workspace, gradebook.url(workspace, db), assignments)
    changes = []
    for name in assignments:
        after = _recorded_cells(workspace, name, db)
        if before[name] is not None and after is not None:
            old_tests, new_tests = before[name][1], after[1]
            changed = sorted(k for k, src in new_tests.items() if k in old_tests and old_tests[k] != src)
            changes += [f"{name}: test cell {k} changed since submissions were graded; "
                        f"they are graded with the new code (hand grades kept)" for k in changed]
    return changes


def _recorded_cells(workspace: Path, assignment: str,
                    db: str | None = None) -> tuple[set[str], dict[str, str]] | None:
    """(every nbgrader cell's grade_id, {grade_id: source} of the test cells) from the gradebook,
    if the notebook already has submissions (else None)."""
    url = gradebook.url(workspace, db)
    if not gradebook.exists(url):
        return None
    with Gradebook(url) as gb:
        try:
            notebook = gb.find_notebook(assignment, assignment)
        except MissingEntry:
            return None
        if not notebook.submissions:
            return None
        graded = {c.name for c in notebook.grade_cells if c.cell_type == "code"}
        return ({c.name for c in notebook.source_cells},
                {c.name: c.source for c in notebook.source_cells if c.name in graded})


def _refuse_changed_cells(workspace: Path, assignment: str, recorded) -> None:
    if recorded is None:
        return
    nb = nbformat.read(str(notebook_path(assignment, workspace / "source")), as_version=4)
    new = {c.metadata["nbgrader"]["grade_id"] for c in nb.cells
           if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")
           and any(c.metadata["nbgrader"].get(k) for k in ("grade", "solution", "locked", "task"))}
    old = recorded[0]
    if new != old:
        removed, added = ", ".join(sorted(old - new)) or "none", ", ".join(sorted(new - old)) or "none"
        raise CourseError(
            f"{assignment} cannot be regraded: its nbgrader cells changed after submissions were recorded "
            f"(removed: {removed}; added: {added}), which nbgrader refuses; put the cells back, "
            f"or grade in a new course directory (`course init DIR`).")


# --------------------------------------------------------------------------- 2-4. one submission


@dataclass
class Outcome:
    """The result of grading one submission, as data (what a task returns)."""

    student: str
    assignment: str
    status: str  # "graded", "flagged" (graded, needs review) or "not graded"
    reason: str = ""  # one sentence for "not graded"; the flags joined for "flagged"
    flags: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    score: float | None = None
    max_score: float | None = None
    seconds: float = 0.0
    isolation: str = ""
    timestamp: str = ""  # when the student submitted (nbgrader's timestamp.txt), for late penalties
    log: str = ""
    notebook: dict | None = None  # the executed, scored notebook
    fingerprint: dict = field(default_factory=dict)  # what was graded (course.resume), for reruns

    def summary(self) -> dict:
        data = asdict(self)
        data.pop("notebook")
        data.pop("log")
        return data


def _run(preprocessors, nb, resources, cfg):
    for cls in preprocessors:
        nb, resources = cls(config=cfg)(nb, resources)
    return nb, resources


def grade_submission(workspace: Path, sub: Submission, limits: sandbox.Limits, isolation: sandbox.Isolation,
                     unsafe: bool = False, db: str | None = None) -> Outcome:
    """Stages 2-4 for one submission; writes nothing shared (reads the gradebook)."""
    start = time.monotonic()
    outcome = Outcome(sub.student, sub.assignment, "not graded", isolation=isolation.detail)
    log: list[str] = [f"{sub.student}/{sub.assignment} from {sub.folder}", f"isolation: {isolation.detail}"]
    try:
        if sub.problem:
            raise NotGraded(sub.problem)
        cfg = _config(workspace, limits, unsafe, db)
        release_dir = workspace / "release" / sub.assignment
        resources = {
            "nbgrader": {"db_url": cfg.CourseDirectory.db_url, "assignment": sub.assignment,
                         "notebook": sub.assignment, "student": sub.student},
            "course": {"release": str(release_dir / f"{sub.assignment}.ipynb"), "isolation": isolation,
                       "files": [str(p) for p in sorted(release_dir.iterdir()) if p.is_file() and p.suffix != ".ipynb"]},
        }
        nb = nbformat.read(str(submitted_notebook(sub)), as_version=4)
        stamp = sub.folder / "timestamp.txt"
        if stamp.is_file() and not stamp.is_symlink() and stamp.stat().st_size < 200:
            try:
                parse_utc(stamp.read_text().strip())
                outcome.timestamp = stamp.read_text().strip()
            except Exception:  # dateutil raises several types; a bad stamp only loses the late check
                outcome.notes.append("timestamp.txt could not be read; no late penalty applied")
        try:
            nb, resources = _run(PREPARE, nb, resources, cfg)
        except NotMatched as err:
            raise NotGraded(str(err)) from None
        except NotGraded:
            raise
        except Exception as err:  # nbgrader's own checks (metadata, duplicates) raise several types
            log.append(traceback.format_exc())
            raise NotGraded(f"nbgrader could not prepare the notebook ({_one_line(err)})") from None
        try:
            nb, resources = _run([SandboxedExecute], nb, resources, cfg)
        finally:
            run = resources["course"].get("execution")
            if run is not None:
                log.append(f"sandbox: {run.status} in {run.seconds:.1f} s; timed out: {run.timed_out}; "
                           f"output cut: {run.output_cut}; processes killed after: {run.processes_killed}")
                log.append(run.log)
        nb, resources = _run(SCORE, nb, resources, cfg)
        info = resources["course"]
        outcome.flags = info.get("flags", [])
        outcome.notes += info.get("notes", [])
        if run.timed_out:
            outcome.notes.append(f"{len(run.timed_out)} cell(s) ran past the {limits.cell_timeout:g} s limit")
        graded = [determine_grade(c) for c in nb.cells if is_grade(c) and c.cell_type == "code"]
        outcome.score = float(sum(g[0] or 0 for g in graded))
        outcome.max_score = float(sum(g[1] or 0 for g in graded))
        outcome.status = "flagged" if outcome.flags else "graded"
        outcome.reason = "; ".join(outcome.flags)
        outcome.notebook = nb
    except NotGraded as err:
        outcome.reason = str(err)
        if "resources" in locals():  # what prepare found still matters to a reviewer
            outcome.flags = resources.get("course", {}).get("flags", [])
    except Exception as err:  # the batch goes on; the log keeps the traceback
        log.append(traceback.format_exc())
        outcome.reason = f"the grader failed on this submission ({_one_line(err)})"
    outcome.seconds = round(time.monotonic() - start, 2)
    log.append(f"outcome: {outcome.status}{': ' + outcome.reason if outcome.reason else ''}")
    outcome.log = "\n".join(log)
    return outcome


def _one_line(err: Exception) -> str:
    text = str(err).strip().splitlines()
    return (text[0] if text else type(err).__name__)[:160]


# --------------------------------------------------------------------------- 5. record


def record(workspace: Path, outcome: Outcome, db: str | None = None) -> Outcome:
    """Write one outcome: gradebook, autograded notebook, log, then results (coordinator only).

    Crash-safe order: the results file goes first (so a kill from here on
    leaves a submission the next run grades again), the gradebook commits,
    and the new results file appears last, atomically. nbgrader's unique
    constraints (one submission per student and assignment, one grade per
    cell) make a second record an update, never a doubled row.
    """
    safe_student = outcome.student if _STUDENT_ID.match(outcome.student) else "_invalid"
    safe_assignment = outcome.assignment if _STUDENT_ID.match(outcome.assignment) else "_unknown"
    results = workspace / "results" / safe_student / f"{safe_assignment}.json"
    logs = workspace / "logs" / safe_student / f"{safe_assignment}.log"
    if safe_student == "_invalid" or safe_assignment == "_unknown":
        # several bad folders share one name: keep each
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{outcome.student}-{outcome.assignment}")[:80]
        results, logs = results.with_name(f"{stem}.json"), logs.with_name(f"{stem}.log")
    results.unlink(missing_ok=True)
    autograded = workspace / "autograded" / safe_student / safe_assignment
    if outcome.status == "not graded" or safe_student == "_invalid" or safe_assignment == "_unknown":
        _forget(workspace, outcome, db)
        if autograded.exists():
            shutil.rmtree(autograded)
    else:
        cfg = _config(workspace, db=db)
        with Gradebook(cfg.CourseDirectory.db_url, cfg.CourseDirectory.course_id) as gb:
            gb.update_or_create_student(outcome.student)
            when = {"timestamp": parse_utc(outcome.timestamp)} if outcome.timestamp else {}
            gb.update_or_create_submission(outcome.assignment, outcome.student, **when)
        resources = {"nbgrader": {"db_url": cfg.CourseDirectory.db_url, "assignment": outcome.assignment,
                                  "notebook": outcome.assignment, "student": outcome.student}}
        nb, _ = _run(RECORD, outcome.notebook, resources, cfg)
        if outcome.status == "flagged":
            _needs_review(cfg, outcome)
        autograded.mkdir(parents=True, exist_ok=True)
        for stale in autograded.iterdir():  # only the notebook belongs here
            if stale.name != f"{outcome.assignment}.ipynb":
                shutil.rmtree(stale) if stale.is_dir() and not stale.is_symlink() else stale.unlink()
        resume.write_atomic(autograded / f"{outcome.assignment}.ipynb", nbformat.writes(nb))
    resume.write_atomic(logs, outcome.log)
    resume.write_atomic(results, json.dumps(outcome.summary(), indent=1))
    return outcome


def _forget(workspace: Path, outcome: Outcome, db: str | None = None) -> None:
    """An old grade must not outlive a re-submission that cannot be graded."""
    db_url = gradebook.url(workspace, db)
    if not gradebook.exists(db_url):  # nothing was ever recorded: nothing to forget
        return
    with Gradebook(db_url) as gb:
        try:
            gb.remove_submission(outcome.assignment, outcome.student)
        except MissingEntry:
            pass


def _needs_review(cfg: Config, outcome: Outcome) -> None:
    """A flagged submission shows as "needs manual grade" in nbgrader's formgrader."""
    with Gradebook(cfg.CourseDirectory.db_url, cfg.CourseDirectory.course_id) as gb:
        sub = gb.find_submission_notebook(outcome.assignment, outcome.assignment, outcome.student)
        for grade in sub.grades:
            grade.needs_manual_grade = True
        gb.db.commit()


def autograde(workspace: Path, subs: list[Submission], log=print, limits: sandbox.Limits | None = None,
              isolation: sandbox.Isolation | None = None, unsafe: bool = False, db: str | None = None) -> list[Outcome]:
    """Grade and record each submission in turn, in this process; never stops for one of them.

    ``course grade`` goes through :func:`course.schedule.grade_class`
    (resume, progress, Dask workers); this is the plain loop.
    """
    limits = limits or sandbox.Limits()
    isolation = isolation or sandbox.detect()
    outcomes = []
    for sub in subs:
        outcome = grade_submission(workspace, sub, limits, isolation, unsafe, db)
        outcome.fingerprint = resume.fingerprint(workspace, sub)
        outcome = record(workspace, outcome, db)
        if outcome.status != "graded":
            log(f"  {outcome.student}/{outcome.assignment}: {outcome.status}: {outcome.reason}")
        outcomes.append(outcome)
    return outcomes


# --------------------------------------------------------------------------- reports


@dataclass(frozen=True)
class Grade:
    """One submission in the grade table (points from the gradebook)."""

    student: str
    assignment: str
    auto_score: float  # points of the test (code) cells, a grader's override included
    auto_max: float
    manual_max: float  # points of the written answers
    needs_manual: bool
    status: str = "graded"
    reason: str = ""
    manual_score: float = 0.0  # points given by hand so far
    pending: float = 0.0  # points of written answers nobody has graded yet
    penalty: float = 0.0  # late-submission penalty
    review: int = 0  # hand-graded cells a regrade flagged again (their autograde score changed)


def outcomes(workspace: Path) -> dict[tuple[str, str], dict]:
    """What each graded run returned, by (student, assignment): status, reason, flags."""
    found = {}
    for path in sorted((workspace / "results").glob("*/*.json")):
        data = json.loads(path.read_text())
        found[(data["student"], data["assignment"])] = data
    return found


def grades(workspace: Path, assignments=(), students=(), db: str | None = None) -> list[Grade]:
    """Every submission (of the named assignments and students, if any): its points, or why it was not graded."""
    if not (workspace / "results").is_dir():
        gradebook.require(workspace, db)
    wanted = lambda s, a: (not assignments or a in assignments) and (not students or s in students)  # noqa: E731
    outcomes_left = {k: v for k, v in outcomes(workspace).items() if wanted(*k)}
    rows = []
    url = gradebook.url(workspace, db)
    if gradebook.exists(url):
        with Gradebook(url) as gb:
            for assignment in gb.assignments:
                for student in gb.students:
                    if not wanted(student.id, assignment.name):
                        continue
                    try:
                        sub = gb.find_submission(assignment.name, student.id)
                    except MissingEntry:
                        continue
                    info = outcomes_left.pop((student.id, assignment.name), {})
                    cells = [g for nb in sub.notebooks for g in nb.grades]
                    rows.append(Grade(
                        student.id, assignment.name, sub.code_score, sub.max_code_score,
                        sub.max_written_score, sub.needs_manual_grade,
                        info.get("status", "graded"), info.get("reason", ""),
                        manual_score=sub.written_score, pending=pending_points(sub),
                        penalty=sub.late_submission_penalty or 0.0,
                        review=sum(g.manual_score is not None and g.needs_manual_grade for g in cells),
                    ))
    for (student, assignment), info in sorted(outcomes_left.items()):
        if info["status"] == "not graded":
            rows.append(Grade(student, assignment, 0.0, 0.0, 0.0, False, "not graded", info["reason"]))
    return rows


def format_table(rows: list[Grade], isolation: str = "") -> str:
    """autograded = test-cell points; by hand = written-answer points given / max; pending = not graded yet."""
    head = (f"{'student':16s} {'assignment':16s} {'autograded':>12s} {'by hand':>9s} {'pending':>7s} "
            f"{'late':>6s}  status")
    lines = ([f"isolation: {isolation}"] if isolation else []) + [head, "-" * len(head)]
    for r in rows:
        if r.status == "not graded":
            lines.append(f"{r.student[:16]:16s} {r.assignment[:16]:16s} {'-':>12s} {'-':>9s} {'-':>7s} {'-':>6s}  "
                         f"not graded: {r.reason}")
            continue
        auto = f"{r.auto_score:g} / {r.auto_max:g}"
        manual = f"{r.manual_score:g} / {r.manual_max:g}" if r.manual_max else "-"
        pending = f"{r.pending:g}" if r.pending else "-"
        late = f"-{r.penalty:g}" if r.penalty else "-"
        status = ["ok" if r.status == "graded" else f"flagged for review: {r.reason}"]
        if r.review:
            status.append(f"{r.review} hand grade(s) to review again: their autograde score changed")
        lines.append(f"{r.student:16s} {r.assignment:16s} {auto:>12s} {manual:>9s} {pending:>7s} {late:>6s}  "
                     + "; ".join(status))
    return "\n".join(lines)


def feedback(workspace: Path, log=print, db: str | None = None) -> tuple[list[Path], list[str]]:
    """HTML feedback for every autograded submission; returns (files, failures), never stops early."""
    autograded = workspace / "autograded"
    if not autograded.is_dir():
        raise CourseError(f"{workspace} has nothing autograded yet: run `course grade` first.")
    api = _api(workspace, db)
    failures = []
    _feedback_each(workspace, api, autograded, failures, log)
    return sorted((workspace / "feedback").rglob("*.html")), failures


def _feedback_each(workspace, api, autograded, failures, log) -> None:
    for student_dir in sorted(p for p in autograded.iterdir() if p.is_dir() and not p.is_symlink()):
        for assignment_dir in sorted(p for p in student_dir.iterdir() if p.is_dir() and not p.is_symlink()):
            who = f"{student_dir.name}/{assignment_dir.name}"
            try:
                result = api.generate_feedback(assignment_dir.name, student_dir.name, force=True)
                lines = (result.get("error") or "nbgrader gave no reason").strip().splitlines()
                why = "" if result["success"] else lines[-1][:160]
                details = str(result.get("log", "")) + str(result.get("error", ""))
            except Exception as err:  # one student's failure must not stop the others
                why, details = _one_line(err) or type(err).__name__, traceback.format_exc()
            if why:
                failures.append(f"{who}: {why}")
                log(f"  no feedback for {who}: {why}")
                logs = workspace / "logs" / student_dir.name
                logs.mkdir(parents=True, exist_ok=True)
                (logs / f"{assignment_dir.name}.feedback.log").write_text(details)


def known_assignments(repo_root: Path) -> list[str]:
    return existing_assignments(repo_root / "solutions")
