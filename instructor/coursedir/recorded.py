"""A graded submission's files in the course directory: cleared before its gradebook entry commits, written after.

The record stage (:mod:`instructor.grading.record`) works out what a graded
submission leaves; this is the one place that reads and writes it, in the
order that keeps a kill harmless at every step::

    1. clear()   the results file removed: from here on a kill leaves a submission
                 the next run grades again; and what the autograded notebook there
                 held read (what a grader saw), before it is replaced
    2.           the gradebook commits (the caller's: nbgrader's RECORD chain), and the
                 scores it wrote go into the grading account's journal (coursedir.journal)
       taken_back()  right after the commit that took hand grades or overrides back:
                 each noted in overrides.json (a kill later must not lose the record)
    3. write()   the autograded notebook with the exchange's two files, or, for a
                 submission that keeps no grade, its gradebook entry and autograded
                 folder removed; the log
    4.           the results file, last, atomically: it exists only for a record
                 that finished

    <dir>/autograded/<s>/<a>/<a>.ipynb   the executed, scored notebook (+ the exchange's two files)
    <dir>/results/<s>/<a>.json           the Result: status, reason, score, fingerprint
    <dir>/logs/<s>/<a>.log               what happened, sandbox log included

The gradebook step sits between two writes of the directory because what is
written after it depends on it (the late penalty in the notebook's summary,
the notes of hand grades taken back in the result), and the results file
must be gone before it commits (a kill after the commit must not leave a
results file that says the old grade is up to date).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from instructor.coursedir import gradebook, journal, overrides, store
from instructor.coursedir.atomic import make_folders, write_atomic
from instructor.coursedir.course_dir import CourseDir
from instructor.coursedir.store import Store

#: the autograded notebook's hash of each written answer it holds: a hand grade belongs to those bytes
ANSWERS = "course_answers"


@dataclass(frozen=True)
class Seen:
    """What a grader saw of a submission: the autograded notebook recorded last ({} each if none or unreadable)."""

    #: grade_id -> sha256 of each written answer (the notebook's :data:`ANSWERS`)
    answers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: test cell grade_id -> sha256 of the answer it credited (:func:`~instructor.coursedir.overrides.credited_answers`)
    credited: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class Files:
    """What recording one submission leaves in the course directory, worked out before any of it is written."""

    #: the log's text
    log: str
    #: the autograded notebook's text; None: the submission keeps no grade (an old one is removed)
    notebook: str | None = None
    #: files of the exchange submission kept beside the notebook, by name (nbgrader's feedback commands need them)
    exchange: Mapping[str, bytes] = field(default_factory=lambda: MappingProxyType({}))


def clear(course_dir: CourseDir, student: str, assignment: str) -> Seen:
    """Step 1: remove the submission's results file; what its autograded notebook held (see the module doc)."""
    store.remove(course_dir.result(student, assignment))
    autograded = course_dir.autograded(student, assignment)
    if autograded is None:
        return Seen()
    notebook = autograded / f"{assignment}.ipynb"
    return Seen(MappingProxyType(_answers_in(notebook)), MappingProxyType(overrides.credited_in(notebook)))


def taken_back(course_dir: CourseDir, changes: Sequence[overrides.Change]) -> None:
    """Step 2, right after the commit that took ``changes`` back: each noted in overrides.json."""
    overrides.add(course_dir, *changes)


def write(course_dir: CourseDir, student: str, assignment: str, files: Files, results: Store[Any], result: Any) -> None:
    """Steps 3 and 4, after the gradebook committed: ``files``, then ``result`` into ``results`` last."""
    autograded = course_dir.autograded(student, assignment)
    if files.notebook is not None and autograded is not None:
        make_folders(autograded)  # reached without a link planted where the staff write (coursedir.atomic)
        for stale in autograded.iterdir():  # only the notebook belongs here
            if stale.name != f"{assignment}.ipynb":
                shutil.rmtree(stale) if stale.is_dir() and not stale.is_symlink() else stale.unlink()
        for name, data in files.exchange.items():
            write_atomic(autograded / name, data)
        write_atomic(autograded / f"{assignment}.ipynb", files.notebook)
    else:
        # an old grade must not outlive a re-submission that cannot be graded
        if gradebook.forget(course_dir.gradebook_url, student, assignment):
            journal.record(course_dir, journal.removal_line(assignment, student))
        if autograded is not None and autograded.exists():
            shutil.rmtree(autograded)
    write_atomic(course_dir.log(student, assignment), files.log)
    results.write(result)


def _answers_in(path: Path) -> dict[str, str]:
    """The :data:`ANSWERS` of the notebook at ``path`` (what the formgrader showed a grader); {} if none."""
    try:
        found = json.loads(path.read_text()).get("metadata", {}).get(ANSWERS, {})
    except (OSError, ValueError, AttributeError):
        return {}
    return found if isinstance(found, dict) else {}
