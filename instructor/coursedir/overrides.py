"""Every change of a grade no autograder made: a grader's override of a test cell, a hand grade sent back.

nbgrader's gradebook keeps a grade's ``auto_score`` and ``manual_score``
(the override, or a written answer's hand grade) but not who typed it or
when: its formgrader records no user. The course keeps its own ledger,
one entry per change, never rewritten::

    <dir>/overrides.json   [{"student", "assignment", "cell", "from", "to", "by", "at", "what"}, ...]

* ``what = "override"``: a test cell's ``manual_score`` differs from what the
  autograder gave. Found by :func:`observe` (``course grade``, ``export`` and
  ``report`` run it): ``from`` is the autograded score, ``to`` the override;
  ``by`` is empty (the formgrader does not say) and ``at`` is when a course
  command first saw it, so it was made at that time or before (``seen_by``
  names the account that ran the command).
* ``what = "hand grade reset"``: ``course grade`` took back a hand grade
  because the written answer it graded changed (``from`` the old points,
  ``to`` None); ``by`` is ``course grade`` and ``at`` exact.
"""

from __future__ import annotations

import getpass
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from nbgrader.api import Gradebook

from instructor.coursedir import gradebook
from instructor.coursedir.atomic import write_atomic

if TYPE_CHECKING:
    from instructor.coursedir.course_dir import CourseDir

LEDGER = "overrides.json"
SHOWN = "%Y-%m-%d %H:%M UTC"


def now() -> str:
    return datetime.now(UTC).strftime(SHOWN)


def entries(course_path: Path) -> list[dict]:
    """Every change recorded, oldest first ([] if none or unreadable)."""
    try:
        found = json.loads((Path(course_path) / LEDGER).read_text())
    except (OSError, ValueError):
        return []
    return [e for e in found if isinstance(e, dict)] if isinstance(found, list) else []


def add(course_path: Path, *new: dict) -> None:
    """Append entries (the file is written whole: a kill leaves the old list)."""
    if new:
        write_atomic(Path(course_path) / LEDGER, json.dumps([*entries(course_path), *new], indent=1))


def _key(entry: dict) -> tuple:
    return entry.get("student"), entry.get("assignment"), entry.get("cell"), entry.get("from"), entry.get("to")


def observe(course_path: Path, gb, command: str) -> list[dict]:
    """Record every override the gradebook ``gb`` holds that the ledger does not have yet; returns the current ones.

    An override is a test cell (one the autograder scored) whose ``manual_score``
    is set and differs from its ``auto_score``. The entries returned are the
    ledger's, so ``at`` is when the override was first seen.
    """
    known = {_key(e): e for e in entries(course_path) if e.get("what") == "override"}
    current, new = [], []
    for assignment in gb.assignments:
        for sub in assignment.submissions:
            for notebook in sub.notebooks:
                for grade in notebook.grades:
                    if grade.auto_score is None or grade.manual_score is None or grade.manual_score == grade.auto_score:
                        continue
                    entry = {
                        "student": sub.student.id,
                        "assignment": assignment.name,
                        "cell": grade.name,
                        "from": grade.auto_score,
                        "to": grade.manual_score,
                        "by": "",
                        "at": now(),
                        "seen_by": f"{getpass.getuser()} (course {command})",
                        "what": "override",
                    }
                    if _key(entry) not in known:
                        known[_key(entry)] = entry
                        new.append(entry)
                    current.append(known[_key(entry)])
    add(course_path, *new)
    return current


def observe_course(course_dir: CourseDir, command: str) -> list[dict]:
    """:func:`observe` on the course directory's own gradebook; [] while it has none (nothing graded)."""
    if not gradebook.exists(course_dir.gradebook_url):
        return []
    with Gradebook(course_dir.gradebook_url) as gb:
        return observe(course_dir.path, gb, command)


def words(entry: dict) -> str:
    """One override (or reset) in words: cell, from -> to, who, when."""
    to = "needs grading" if entry.get("to") is None else f"{entry['to']:g}"
    who = entry.get("by") or "a grader the formgrader does not name"
    when = f"at {entry['at']}" if entry.get("by") else f"first seen {entry.get('at', '?')}"
    return f"{entry.get('cell')}: {entry.get('from', 0):g} -> {to} ({entry.get('what', 'override')} by {who}, {when})"
