"""Autograde, export and feedback in a grading workspace, through nbgrader's API.

A workspace is an ordinary nbgrader course directory::

    <workspace>/source/<a>/             copy of solutions/<a> (given cells synced)
    <workspace>/release/<a>/            the student version nbgrader generated
    <workspace>/submitted/<s>/<a>/      what each student handed in
    <workspace>/autograded/<s>/<a>/     nbgrader's graded copies
    <workspace>/feedback/<s>/<a>/       HTML feedback, hidden tests removed
    <workspace>/gradebook.db            SQLite gradebook

Submissions come either as ``<student>/<assignment>/*.ipynb`` (also nbgrader's
``submitted/`` collect layout) or as an nbgrader exchange
(``<exchange>/<course>/inbound/<student>+<assignment>+<timestamp>...``).
"""

from __future__ import annotations

import re
import shutil
import warnings
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps.api import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from nbgrader.plugins import CsvExportPlugin
from traitlets.config import Config

from course.errors import CourseError
from course.nbgrader_settings import configure
from course.nbsource import sync_given
from course.paths import existing_assignments, notebook_path
from course.release import generate

# nbgrader 0.9 trips SQLAlchemy 2's autoflush warnings on every autograde;
# they say nothing to an instructor.
try:
    from sqlalchemy.exc import SAWarning

    warnings.filterwarnings("ignore", category=SAWarning, module="nbgrader")
except ImportError:  # pragma: no cover
    pass

_STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]*$")


@dataclass(frozen=True)
class Submission:
    student: str
    assignment: str
    folder: Path  # holds the submitted notebook(s)


def _api(workspace: Path) -> NbGraderAPI:
    cfg = configure(Config(), workspace)
    cfg.CourseDirectory.db_url = f"sqlite:///{workspace / 'gradebook.db'}"
    coursedir = CourseDirectory(config=cfg)
    return NbGraderAPI(coursedir=coursedir, config=cfg)


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
    """Every submission under ``folder``, validated before anything is graded."""
    if not folder.is_dir():
        raise CourseError(f"There is no submissions folder at {folder}.")
    inbound = _exchange_inbound(folder)
    subs = _from_exchange(inbound, known) if inbound else _from_folders(folder, known)
    if not subs:
        raise CourseError(f"{folder} holds no submissions (expected <student>/<assignment>/*.ipynb).")
    for sub in subs:
        if roster is not None and sub.student not in roster:
            raise CourseError(f"{sub.folder} belongs to {sub.student!r}, who is not on the roster.")
        _check_notebooks(sub)
    return subs


def _from_folders(folder: Path, known: list[str]) -> list[Submission]:
    subs = []
    for student_dir in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if not _STUDENT_ID.match(student_dir.name):
            raise CourseError(f"{student_dir} is not a valid student folder name (letters, digits, _ . @ - only).")
        assignment_dirs = [p for p in student_dir.iterdir() if p.is_dir() and not p.name.startswith(".")]
        unknown = [p for p in assignment_dirs if p.name not in known]
        if unknown:
            raise CourseError(
                f"{unknown[0]} is not a known assignment (known: {', '.join(known)})."
            )
        if not assignment_dirs:
            raise CourseError(
                f"{student_dir} is not a student folder: it holds no assignment folder "
                f"(expected {student_dir.name}/<assignment>/*.ipynb)."
            )
        subs += [Submission(student_dir.name, a.name, a) for a in sorted(assignment_dirs)]
    return subs


def _from_exchange(inbound: Path, known: list[str]) -> list[Submission]:
    latest: dict[tuple[str, str], Path] = {}
    for entry in sorted(inbound.iterdir()):
        parts = entry.name.split("+")
        if not entry.is_dir() or len(parts) < 3:
            raise CourseError(f"{entry} is not an nbgrader submission (<student>+<assignment>+<timestamp>).")
        student, assignment, stamp = parts[0], parts[1], parts[2]
        if assignment not in known:
            raise CourseError(f"{entry} is for {assignment!r}, which is not a known assignment (known: {', '.join(known)}).")
        key = (student, assignment)
        if key not in latest or stamp > latest[key].name.split("+")[2]:
            latest[key] = entry
    return [Submission(s, a, p) for (s, a), p in sorted(latest.items())]


def _check_notebooks(sub: Submission) -> None:
    notebooks = sorted(sub.folder.glob("*.ipynb"))
    if not notebooks:
        raise CourseError(f"{sub.folder} holds no notebook.")
    for path in notebooks:
        try:
            nb = nbformat.read(str(path), as_version=4)
            nbformat.validate(nb)
        except Exception as err:  # JSON and schema errors come in several types
            reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise CourseError(f"{path} is not a valid notebook ({reason}).") from None


def prepare_workspace(workspace: Path, repo_root: Path, assignments: list[str]) -> None:
    """Copy the sources in and let nbgrader record the assignments in the gradebook."""
    workspace.mkdir(parents=True, exist_ok=True)
    for name in assignments:
        target = workspace / "source" / name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(repo_root / "solutions" / name, target, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    for name in assignments:
        # given cells refer to earlier assignments, so sync against the repo
        sync_given(notebook_path(name, workspace / "source"), repo_root / "solutions")
    for name in assignments:
        generate(workspace, name, source="source", release="release", database=True)


def submit(workspace: Path, sub: Submission) -> None:
    """Place a submission where nbgrader's autograde looks for it."""
    target = workspace / "submitted" / sub.student / sub.assignment
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(sub.folder, target, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    expected = target / f"{sub.assignment}.ipynb"
    found = sorted(target.glob("*.ipynb"))
    if not expected.exists() and len(found) == 1:
        found[0].rename(expected)  # a student renamed the notebook


def autograde(workspace: Path, subs: list[Submission], log=print) -> list[str]:
    """Autograde each submission; returns the ones nbgrader could not grade."""
    api = _api(workspace)
    failures = []
    for sub in subs:
        submit(workspace, sub)
        result = api.autograde(sub.assignment, sub.student, force=True, create=True)
        if not result["success"]:
            failures.append(f"{sub.student}/{sub.assignment}")
            log(f"  could not autograde {sub.student}/{sub.assignment}: see {workspace}/autograded")
    return failures


@dataclass(frozen=True)
class Grade:
    student: str
    assignment: str
    auto_score: float
    auto_max: float
    manual_max: float
    needs_manual: bool


def grades(workspace: Path) -> list[Grade]:
    """Autograded scores per student and assignment, from the gradebook."""
    db = workspace / "gradebook.db"
    if not db.exists():
        raise CourseError(f"{workspace} has no gradebook: run `course grade` first.")
    rows = []
    with Gradebook(f"sqlite:///{db}") as gb:
        for assignment in gb.assignments:
            for student in gb.students:
                try:
                    sub = gb.find_submission(assignment.name, student.id)
                except MissingEntry:
                    continue
                rows.append(Grade(
                    student.id, assignment.name, sub.code_score, sub.max_code_score,
                    sub.max_written_score, sub.needs_manual_grade,
                ))
    return rows


def format_table(rows: list[Grade]) -> str:
    head = f"{'student':16s} {'assignment':16s} {'autograded':>12s} {'by hand':>8s}"
    lines = [head, "-" * len(head)]
    for r in rows:
        auto = f"{r.auto_score:g} / {r.auto_max:g}"
        manual = f"{r.manual_max:g} pts" if r.manual_max else "-"
        lines.append(f"{r.student:16s} {r.assignment:16s} {auto:>12s} {manual:>8s}")
    return "\n".join(lines)


def export_csv(workspace: Path, to: Path) -> Path:
    """nbgrader's CSV export of the gradebook."""
    db = workspace / "gradebook.db"
    if not db.exists():
        raise CourseError(f"{workspace} has no gradebook: run `course grade` first.")
    plugin = CsvExportPlugin()
    plugin.to = str(to)
    with Gradebook(f"sqlite:///{db}") as gb:
        plugin.export(gb)
    return to


def feedback(workspace: Path, log=print) -> list[Path]:
    """HTML feedback for every autograded submission, hidden tests removed."""
    autograded = workspace / "autograded"
    if not autograded.is_dir():
        raise CourseError(f"{workspace} has nothing autograded yet: run `course grade` first.")
    api = _api(workspace)
    for student_dir in sorted(p for p in autograded.iterdir() if p.is_dir()):
        for assignment_dir in sorted(p for p in student_dir.iterdir() if p.is_dir()):
            result = api.generate_feedback(assignment_dir.name, student_dir.name, force=True)
            if not result["success"]:
                raise CourseError(f"nbgrader could not write feedback for {student_dir.name}/{assignment_dir.name}.")
    return sorted((workspace / "feedback").rglob("*.html"))


def known_assignments(repo_root: Path) -> list[str]:
    return existing_assignments(repo_root / "solutions")
