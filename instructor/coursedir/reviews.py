"""Flags a person looked at and cleared: what was cleared, for which submission, by whom, why.

``course unflag STUDENT A`` appends one entry; nothing is ever removed::

    <dir>/reviews/<student>/<assignment>.json   [{"flags", "submission_sha256", "by", "at", "because"}, ...]

A regrade of the same submission bytes that raises no flag beyond those
cleared stays cleared; a new submission, or a new flag, needs a new look.
"""

from __future__ import annotations

import json
from pathlib import Path

REVIEWS = "reviews"


def _path(course_path: Path, student: str, assignment: str) -> Path:
    return Path(course_path) / REVIEWS / student / f"{assignment}.json"


def entries(course_path: Path, student: str, assignment: str) -> list[dict]:
    """Every clearing recorded for this submission, oldest first ([] if none or unreadable)."""
    try:
        found = json.loads(_path(course_path, student, assignment).read_text())
    except (OSError, ValueError):
        return []
    return [e for e in found if isinstance(e, dict)] if isinstance(found, list) else []


def add(course_path: Path, student: str, assignment: str, entry: dict) -> None:
    """Append ``entry`` (written whole, then moved into place: a kill leaves the old list)."""
    path = _path(course_path, student, assignment)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps([*entries(course_path, student, assignment), entry], indent=1))
    tmp.replace(path)


def covering(course_path: Path, student: str, assignment: str, flags: list[str], submission_sha256: str) -> dict | None:
    """The newest clearing of these very bytes that covers every flag in ``flags``, or None."""
    for entry in reversed(entries(course_path, student, assignment)):
        if entry.get("submission_sha256") == submission_sha256 and set(flags) <= set(entry.get("flags", [])):
            return entry
    return None


#: how the note of a clearing starts (the grade table finds it by these words)
CLEARED = "flags cleared by "


def note(entry: dict) -> str:
    """The line a cleared submission carries in its results and the grade table."""
    return f"{CLEARED}{entry.get('by', '?')} on {entry.get('at', '?')}: {entry.get('because', '')}"
