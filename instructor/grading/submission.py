"""One submission, as the grading stages carry it, and the status it ends in.

A :class:`Submission` is made at intake and handed from stage to stage
(prepare, execute, score, record); nbgrader's preprocessors find it in
``resources["course"]`` (:func:`carried`) and write what they learn into
its named fields. What the coordinator records of it is a :class:`Result`,
the ``results/<student>/<assignment>.json`` file.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path

from nbformat import NotebookNode
from pydantic import TypeAdapter

from instructor.coursedir.course_dir import CourseDir
from instructor.coursedir.store import Store
from instructor.sandbox import Execution, Isolation

__all__ = ["Status", "NotGraded", "Submission", "Result", "carried", "result_file", "results_at"]


class Status(str, enum.Enum):
    """Where a submission stands; ``.shown`` is what tables and the CSV say."""

    QUEUED = "waiting"  # found at intake, not graded yet (the value stays: result files of earlier runs may hold it)
    GRADED = "graded"
    FLAGGED = "flagged"  # graded, and a person should look (the reason lists why)
    NOT_GRADED = "not graded"  # it cannot be graded; the reason says why
    GRADER_FAILED = "grader failed"  # the autograder itself failed on it: a rerun tries again

    @property
    def shown(self) -> str:
        return "not graded" if self is Status.GRADER_FAILED else self.value

    @property
    def has_grade(self) -> bool:
        return self in (Status.GRADED, Status.FLAGGED)

    @property
    def retried(self) -> bool:
        """True when a rerun grades it again even though nothing changed."""
        return self is Status.GRADER_FAILED


class NotGraded(Exception):
    """The submission cannot be graded; the message is one sentence for the report."""


@dataclass
class Submission:
    """One student's notebook for one assignment, from intake to record."""

    student: str
    assignment: str
    folder: Path  # holds the submitted notebook(s)
    status: Status = Status.QUEUED
    reason: str = ""  # why it is not graded; for a flagged one, the flags joined
    received: str = ""  # when the exchange received it (the files' change time, UTC), if graded from an exchange
    sha256: str = ""  # of the notebook's bytes as intake read them: the bytes graded
    hidden_seed: int | None = None  # what its hidden checks draw from (coursedir.hidden_seed); None: the author's
    variant_seed: int | None = None  # what its student's own parameters are drawn from (course.draws.variant)
    # prepare
    student_version: Path | None = None  # the student version (<dir>/release/<a>/<a>.ipynb) it is compared with
    files: list[Path] | None = None  # the student version's other files, copied beside it in the sandbox
    timestamp: str = ""  # when the student submitted (nbgrader's timestamp.txt), for late penalties
    # execute
    isolation: Isolation | None = None
    execution: Execution | None = None
    # what the stages found
    flags: list[str] = field(default_factory=list)  # for a person to review
    notes: list[str] = field(default_factory=list)  # worth knowing, no review needed
    # score
    score: float | None = None
    max_score: float | None = None
    notebook: NotebookNode | None = None  # the executed, scored notebook
    # bookkeeping
    seconds: float = 0.0
    fingerprint: dict = field(default_factory=dict)  # what was graded (resume), for reruns
    log: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str]:
        return self.student, self.assignment

    def as_found(self) -> Submission:
        """A fresh copy with only what intake found (its notes included): what a grading run starts from."""
        return Submission(
            self.student,
            self.assignment,
            self.folder,
            self.status,
            self.reason,
            self.received,
            self.sha256,
            self.hidden_seed,
            self.variant_seed,
            notes=list(self.notes),
        )

    def flag(self, text: str) -> None:
        if text not in self.flags:
            self.flags.append(text)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def end(self, status: Status, reason: str = "") -> None:
        self.status, self.reason = status, reason

    def result(self) -> Result:
        return Result(
            self.student,
            self.assignment,
            self.status,
            self.reason,
            list(self.flags),
            list(self.notes),
            self.score,
            self.max_score,
            self.seconds,
            self.isolation.detail if self.isolation else "",
            self.timestamp,
            dict(self.fingerprint),
        )


def carried(resources: dict) -> Submission:
    """The submission in ``resources["course"]``; one made from nbgrader's own resources if there is none.

    ``course grade`` puts it there; nbgrader's own ``autograde`` runs the same
    preprocessors without one.
    """
    sub = resources.get("course")
    if sub is None:
        info = resources.get("nbgrader", {})
        folder = Path(resources.get("metadata", {}).get("path") or ".")
        sub = resources["course"] = Submission(info.get("student", "?"), info.get("assignment", "?"), folder)
    if not isinstance(sub, Submission):
        raise TypeError(f'resources["course"] holds a {type(sub).__name__}, not a Submission')
    return sub


@dataclass(frozen=True)
class Result:
    """What is recorded of a graded submission (``results/<student>/<assignment>.json``)."""

    student: str
    assignment: str
    status: Status
    reason: str = ""
    flags: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    score: float | None = None
    max_score: float | None = None
    seconds: float = 0.0
    isolation: str = ""
    timestamp: str = ""
    fingerprint: dict = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        return self.student, self.assignment


#: a results file's shape: unknown keys are ignored, a missing or bad status is refused (read as unreadable)
RESULT_SHAPE: TypeAdapter[Result | None] = TypeAdapter(Result | None)


def result_file(course_dir: CourseDir, student: str, assignment: str) -> Store[Result | None]:
    """``<dir>/results/<s>/<a>.json`` (:meth:`CourseDir.result`): None before it exists; written whole, locked."""
    return results_at(course_dir.result(student, assignment))


def results_at(path: Path) -> Store[Result | None]:
    """The results file at ``path`` (one found by its place, not by its names)."""
    return Store(path, RESULT_SHAPE, lambda: None)
