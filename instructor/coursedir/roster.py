"""The class list: the one roster reader (the rule for a student id is :mod:`.ids`).

``course roster import`` adds a CSV (``id,first_name,last_name,email``) to the
course directory's ``roster.csv`` and to the gradebook; ``course grade``
grades only students on it (or on ``--roster FILE``, read the same way).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING

from nbgrader.api import Gradebook

from instructor.coursedir.data_file import NotData, read_data
from instructor.coursedir.ids import STUDENT_ID_RULE, is_student_id
from instructor.errors import CourseError
from instructor.terminal import bidi_marks

if TYPE_CHECKING:  # root's hub/privileged.py imports this module before its checks: it imports no more than before
    from instructor.coursedir.course_dir import CourseDir

ROSTER_COLUMNS = ["id", "first_name", "last_name", "email"]
#: the largest roster.csv read (a class of thousands is well under it)
ROSTER_LIMIT = 4 * 2**20


def read_roster_file(path: Path) -> list[dict[str, str]]:
    """Rows of a roster CSV (id required; first_name, last_name, email optional), checked."""
    if not path.is_file():
        raise CourseError(f"There is no roster file at {path}.")
    with path.open(newline="", encoding="utf-8-sig") as f:
        return _rows(f, path)


def _rows(f, path: Path) -> list[dict[str, str]]:
    """The checked rows of the roster CSV open as ``f`` (named ``path`` in errors)."""
    reader = csv.DictReader(f)
    if not reader.fieldnames or "id" not in [n.strip() for n in reader.fieldnames]:
        raise CourseError(f"{path} has no 'id' column (expected: {', '.join(ROSTER_COLUMNS)}).")
    rows, seen = [], set()
    for raw in reader:
        line = reader.line_num
        if None in raw:  # more fields than columns: an unquoted comma would shift the email into a wrong one
            raise CourseError(
                f"{path}, line {line}: {len(reader.fieldnames) + len(raw[None])} fields for "
                f"{len(reader.fieldnames)} columns (put a name or email that holds a comma "
                'in double quotes: "Adams, Jr.").'
            )
        row = {k.strip(): (v or "").strip() for k, v in raw.items() if k}
        sid = row.get("id", "")
        if not sid:
            continue
        if not is_student_id(sid):
            raise CourseError(f"{path}, line {line}: {sid!r} is not a valid student id ({STUDENT_ID_RULE}).")
        for column in ("first_name", "last_name", "email"):  # a direction mark shows "evil" as "live"
            if marks := bidi_marks(row.get(column, "")):
                raise CourseError(
                    f"{path}, line {line}: the {column} of {sid!r} holds {', '.join(marks)}, a mark that "
                    "reverses how text reads: remove it."
                )
        if sid in seen:
            raise CourseError(f"{path}, line {line}: student {sid!r} is listed twice.")
        seen.add(sid)
        rows.append({c: row.get(c, "") for c in ROSTER_COLUMNS})
    if not rows:
        raise CourseError(f"{path} lists no student.")
    return rows


def ids(path: Path) -> set[str]:
    """The student ids of a roster file."""
    return {r["id"] for r in read_roster_file(path)}


def roster(course_dir: CourseDir) -> set[str] | None:
    """The ids on the course directory's roster, or None if no roster was imported.

    Read as root reads the staff's course directory on the hub (:mod:`instructor.coursedir.data_file`): a
    link in its place is refused (it could make root read a file of root's and pass its lines on), and so is
    anything but a regular file with one name (a FIFO would stall the reader).
    """
    path = course_dir.roster_file
    try:
        data = read_data(path, ROSTER_LIMIT)
    except NotData as why:
        raise CourseError(
            f"{path} is not a file the course reads ({why}): import the class again with `course roster import`."
        ) from None
    if data is None:
        return None
    return {r["id"] for r in _rows(io.StringIO(data.decode("utf-8-sig"), newline=""), path)}


def import_roster(course_dir: CourseDir, source: Path) -> tuple[int, int]:
    """Add or update the students of ``source`` in the roster and the gradebook; returns (added, updated)."""
    new = read_roster_file(source)
    path = course_dir.roster_file
    merged = {r["id"]: r for r in (read_roster_file(path) if path.is_file() else [])}
    added = sum(r["id"] not in merged for r in new)
    merged.update({r["id"]: r for r in new})
    with Gradebook(course_dir.gradebook_url) as gb:
        for row in new:
            gb.update_or_create_student(
                row["id"],
                first_name=row["first_name"] or None,
                last_name=row["last_name"] or None,
                email=row["email"] or None,
            )
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=ROSTER_COLUMNS)
        writer.writeheader()
        writer.writerows(sorted(merged.values(), key=lambda r: r["id"]))
    return added, len(new) - added
