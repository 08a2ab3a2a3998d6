"""When each exchange folder arrived, as the course first saw it: a record that survives a copy of the exchange.

A submission's time must not come from the student's side (the folder name,
``timestamp.txt``), and the exchange's own evidence, the files' change time,
is reset by any copy (a new disk, a restored backup): after one, every
student looks late. nbgrader keeps no log of arrivals, so the course keeps
one. The first time a course command reads an exchange folder, its arrival
(the latest change time of the folder and its files, which no user can set
back) is written here and never changed::

    <dir>/arrivals.json   {"<exchange folder name>": "2026-10-05 16:58:12.000000 UTC", ...}

A folder's name holds the student, the assignment, nbgrader's stamp and a
random part, and a name already in the exchange cannot be made again, so
the name identifies the folder across copies.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from instructor.coursedir.atomic import write_atomic

ARRIVALS = "arrivals.json"
STORED = "%Y-%m-%d %H:%M:%S.%f UTC"


def change_time(submission_dir: Path) -> str:
    """The latest change time of ``submission_dir`` and the files in it, UTC (as :data:`STORED`)."""
    times = [p.lstat().st_ctime for p in [submission_dir, *submission_dir.iterdir()]]
    return datetime.fromtimestamp(max(times), UTC).strftime(STORED)


def read(course_path: Path) -> dict[str, str]:
    try:
        found = json.loads((Path(course_path) / ARRIVALS).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


class Arrivals:
    """The record of one course directory, read once; :meth:`save` writes what was first seen this run."""

    def __init__(self, course_path: Path | None):
        self.course_path = course_path
        self.known = read(course_path) if course_path is not None else {}
        self.new: dict[str, str] = {}

    def of(self, submission_dir: Path) -> str:
        """When ``submission_dir`` arrived: the recorded time, else its change time now (recorded on :meth:`save`)."""
        if submission_dir.name in self.known:
            return self.known[submission_dir.name]
        seen = change_time(submission_dir)
        self.known[submission_dir.name] = self.new[submission_dir.name] = seen
        return seen

    def save(self) -> None:
        if self.new and self.course_path is not None and (Path(self.course_path) / "nbgrader_config.py").is_file():
            write_atomic(
                Path(self.course_path) / ARRIVALS, json.dumps({**read(self.course_path), **self.new}, indent=1)
            )
            self.new = {}
