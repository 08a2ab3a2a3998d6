"""Every student version of an assignment the course directory has issued, kept for good.

A fix mid-term (a test's message corrected in ``solutions/``) makes a new
student version, but the students who fetched the old one hold its locked
cells. A submission is checked against the student version it was made from,
so a fix never reads as a student's edit::

    <dir>/releases/<a>/<sha256 of the notebook, 16 hex>.ipynb

Files are written once and never changed; the newest is ``<dir>/release/<a>/``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat

from instructor.cells import visible_source

if TYPE_CHECKING:
    from instructor.coursedir.course_dir import CourseDir


def keep(course_dir: CourseDir, assignment: str) -> Path | None:
    """Copy ``<dir>/release/<a>/<a>.ipynb`` into the archive (once per content); returns the copy, or None."""
    current = course_dir.student_version(assignment)
    if not current.is_file():
        return None
    data = current.read_bytes()
    target = course_dir.archive(assignment) / f"{hashlib.sha256(data).hexdigest()[:16]}.ipynb"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return target


def archived(course_dir: CourseDir, assignment: str) -> list:
    """The archived versions of ``assignment``, oldest first (by file time), as notebooks."""
    paths = sorted(course_dir.archive(assignment).glob("*.ipynb"), key=lambda p: (p.stat().st_mtime, p.name))
    return [nbformat.read(str(p), as_version=4) for p in paths]


def _locked(nb) -> dict[str, str]:
    """grade_id -> visible source of each locked cell (test cells are locked too)."""
    return {
        c.metadata["nbgrader"]["grade_id"]: visible_source(c.source)
        for c in nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("locked") and c.metadata["nbgrader"].get("grade_id")
    }


def origin(submitted, newest, archived: list):
    """The student version ``submitted`` was most likely made from: the one whose locked cells it matches most.

    ``newest`` wins ties, then the most recent archived one. With no archive
    (a course directory graded before releases were kept) it is ``newest``.
    """
    mine = _locked(submitted)
    best, best_hits = newest, -1
    for candidate in [newest, *reversed(archived)]:
        theirs = _locked(candidate)
        hits = sum(mine.get(k) == src for k, src in theirs.items())
        if hits > best_hits:
            best, best_hits = candidate, hits
    return best
