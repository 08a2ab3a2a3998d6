"""Flags a person looked at and cleared: what was cleared, for which submission, by whom, why.

``course unflag STUDENT A`` appends one entry; nothing is ever removed
(a :class:`~instructor.coursedir.store.Store`, appended to under its lock)::

    <dir>/reviews/<student>/<assignment>.json   [{"flags", "submission_sha256", "by", "at", "because"}, ...]

A regrade of the same submission bytes that raises no flag beyond those
cleared stays cleared; a new submission, or a new flag, needs a new look
(the grading run matches them: :meth:`instructor.grading.class_state.ClassState.clearing`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, TypeAdapter

from instructor.coursedir.store import Store, read_every

if TYPE_CHECKING:
    from instructor.coursedir.course_dir import CourseDir


class Clearing(BaseModel):
    """One clearing: the flags a person cleared, of which submission bytes, who, when (UTC) and why."""

    model_config = ConfigDict(extra="allow", frozen=True)

    flags: list[str] = []
    submission_sha256: str = ""
    by: str = "?"
    at: str = "?"
    because: str = ""


#: a reviews file's shape
_SHAPE: TypeAdapter[list[Clearing]] = TypeAdapter(list[Clearing])


def clearings(course_dir: CourseDir, student: str, assignment: str) -> Store[list[Clearing]]:
    """The store of one submission's clearings."""
    return Store(course_dir.reviews(student, assignment), _SHAPE, list)


def entries(course_dir: CourseDir, student: str, assignment: str) -> list[Clearing]:
    """Every clearing recorded for this submission, oldest first ([] if none or unreadable)."""
    return clearings(course_dir, student, assignment).read_or_empty()


def add(course_dir: CourseDir, student: str, assignment: str, entry: Clearing) -> None:
    """Append ``entry`` (under the store's lock, read again, written whole: a kill leaves the old list)."""
    with clearings(course_dir, student, assignment).update() as found:
        found.append(entry)


def every(course_dir: CourseDir) -> dict[tuple[str, str], list[Clearing]]:
    """The clearings of every submission of the course directory, by (student, assignment) (unreadable: none)."""
    paths = sorted(course_dir.reviews_root.glob("*/*.json"))
    return {(path.parent.name, path.stem): found for path, found in read_every(paths, _SHAPE).items() if found}


#: how the note of a clearing starts (the grade table finds it by these words)
CLEARED = "flags cleared by "


def note(entry: Clearing) -> str:
    """The line a cleared submission carries in its results and the grade table."""
    return f"{CLEARED}{entry.by} on {entry.at}: {entry.because}"
