"""Due dates: data in the course directory's ``due.json``, read into its settings, copied into the gradebook.

Why a file of their own and not a line of the settings: on the hub the
settings (``nbgrader_config.json``) name the exchange and the gradebook root
writes, so they stay root's alone (docs/hub.md, *Staff*), and an instructor
could not have moved a due date. A privileged verb that rewrote them for her
would have root write settings built from what staff typed. Here every reader
takes ``due.json`` as JSON: a staff member who writes it can change the dates
and nothing else. It is read on the open file (no link, a regular file
with one name, at most :data:`DUE_LIMIT` bytes), and every entry must be an
assignment name and a date, or the settings are refused in one sentence.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.utils import parse_utc
from traitlets import Dict
from traitlets.config import Configurable

from instructor.coursedir import atomic, gradebook
from instructor.coursedir.data_file import NotData, read_data
from instructor.errors import CourseError

#: the due dates' file in the course directory: {assignment: "YYYY-MM-DD HH:MM:SS UTC"}
DUE_NAME = "due.json"
#: a larger due.json is refused unread (a class's dates take a few hundred bytes)
DUE_LIMIT = 64 * 1024
#: an assignment's name as a due date names it (no path)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class DueDates(Configurable):
    """Due dates by assignment, as the course directory's configuration gives them (from ``due.json``).

    nbgrader reads a due date from the gradebook only; ``course`` copies these
    into it whenever it prepares an assignment, so ``due.json`` stays the one
    place where they are written.
    """

    dates = Dict({}, help="assignment -> due date, e.g. {'01_rnn': '2026-10-05 17:00:00 UTC'}").tag(config=True)


def parse_due(items: list[str]) -> dict[str, str]:
    """``A=DATE`` pairs -> {assignment: normalised UTC date}; one-sentence errors."""
    found = {}
    for item in items:
        name, sep, when = item.partition("=")
        if not sep or not name.strip() or not when.strip():
            raise CourseError(f"--due takes ASSIGNMENT=DATE (e.g. 01_rnn='2026-10-05 17:00 UTC'), not {item!r}.")
        if not _NAME.match(name.strip()):
            raise CourseError(f"--due: {name.strip()!r} is not an assignment name (letters, digits, '.', '_', '-').")
        try:
            found[name.strip()] = parse_utc(when.strip()).strftime("%Y-%m-%d %H:%M:%S UTC")
        except Exception:  # dateutil raises several types
            raise CourseError(f"{when.strip()!r} is not a date (try '2026-10-05 17:00 UTC').") from None
    return found


def apply_due_dates(dates: dict[str, str], db_url: str, assignments: list[str]) -> None:
    """Copy the configured due ``dates`` of ``assignments`` into the gradebook (where nbgrader reads them)."""
    wanted = {a: d for a, d in dates.items() if a in assignments}
    if not wanted:
        return
    with Gradebook(db_url) as gb:
        for name, when in wanted.items():
            gb.update_or_create_assignment(name, duedate=parse_utc(when))


def apply_to_recorded(dates: dict[str, str], db_url: str) -> list[str]:
    """Copy the configured due ``dates`` into the gradebook for the assignments it already records.

    ``course init --due`` calls it, so the formgrader and nbgrader's own
    commands see a new or moved deadline at once, not at the next release or
    grade. Returns the assignments updated; none if nothing was recorded yet.
    """
    if not dates or not gradebook.exists(db_url):
        return []
    with Gradebook(db_url) as gb:
        recorded = [a.name for a in gb.assignments if a.name in dates]
    apply_due_dates(dates, db_url, recorded)
    return recorded


def read_due(course_path: Path) -> dict[str, str]:
    """The due dates of ``<course_path>/due.json`` ({} when there is none), checked on the open file.

    Root reads it (the settings' loader calls this) while staff may write
    it: a link, anything but a regular file with one name, more than
    :data:`DUE_LIMIT` bytes, or an entry that is not an assignment and a date
    is refused, never followed or parsed as anything but JSON.
    """
    path = Path(course_path) / DUE_NAME
    try:
        data = read_data(path, DUE_LIMIT)
    except NotData as why:
        raise CourseError(
            f"{path} is not a file the course reads ({why}): write it with `course init --due`."
        ) from None
    if data is None:
        return {}
    try:
        dates = json.loads(data)
    except ValueError:
        raise CourseError(f"{path} is not JSON: write it with `course init --due`.") from None
    good = isinstance(dates, dict) and all(
        isinstance(k, str) and _NAME.match(k) and isinstance(v, str) and len(v) < 100 for k, v in dates.items()
    )
    if not good:
        raise CourseError(f"{path} must map assignment names to dates: write it with `course init --due`.")
    for when in dates.values():
        try:
            parse_utc(when)
        except Exception:  # dateutil raises several types
            raise CourseError(f"{path}: {when!r} is not a date: write it with `course init --due`.") from None
    return dict(dates)


def write_due(course_path: Path, dates: dict[str, str]) -> bool:
    """Write ``dates`` to ``<course_path>/due.json`` (whole, in place) unless it holds them; True if written."""
    if dates == read_due(course_path):
        return False
    text = json.dumps(dict(sorted(dates.items())), indent=1) + "\n"
    atomic.write_atomic(Path(course_path) / DUE_NAME, text)
    return True
