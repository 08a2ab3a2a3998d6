"""When each exchange folder's bytes arrived, as the course saw them: a record that survives a copy of the exchange.

A submission's time must not come from the student's side (the folder name,
``timestamp.txt``), and the exchange's own evidence, the files' change time,
is reset by any copy (a new disk, a restored backup): after one, every
student looks late. nbgrader keeps no log of arrivals, so the course keeps
one (a :class:`~instructor.coursedir.store.Store`, updated under its lock)::

    <dir>/arrivals.json   {"<exchange folder name>": [{"at": "2026-10-05 16:58:12.000000 UTC",
                                                        "sha256": "<the notebooks' bytes>"}, ...], ...}

The first time a course command reads an exchange folder, its arrival (the
latest change time of the folder and its files, which no user can set back)
is written here with a hash of the notebooks it holds. The time stays while
the bytes do: bytes that change after their arrival was recorded (the
student's own folder was writable by her) are a new arrival, at their own
change time, appended; an earlier arrival is never changed. (Issue 42: an
overwrite in place after the due date kept the first, on-time arrival.)

A folder's name holds the student, the assignment, nbgrader's stamp and a
random part, and a name already in the exchange cannot be made again, so
the name identifies the folder across copies.

Once read by root, an exchange folder is sealed (:meth:`Arrivals.seal`): it
and its files are root's, not writable by the student, with their group
kept, so that what was received stays what was received.
"""

from __future__ import annotations

import hashlib
import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, TypeAdapter

from instructor.coursedir.store import Store

if TYPE_CHECKING:
    from instructor.coursedir.course_dir import CourseDir

STORED = "%Y-%m-%d %H:%M:%S.%f UTC"


class Arrival(BaseModel):
    """Bytes of one exchange folder as first seen: when (UTC, as :data:`STORED`) and their hash ("" if not known)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    at: str
    sha256: str = ""


def _history(value):
    """The record of one folder: a list of arrivals; the first form of the file held its time alone."""
    return [{"at": value}] if isinstance(value, str) else value


Record = dict[str, Annotated[list[Arrival], BeforeValidator(_history)]]


def arrivals(course_dir: CourseDir) -> Store[Record]:
    """The store of ``<dir>/arrivals.json``."""
    return Store(course_dir.arrivals, TypeAdapter(Record), dict)


def change_time(submission_dir: Path) -> str:
    """The latest change time of ``submission_dir`` and the files in it, UTC (as :data:`STORED`)."""
    times = [p.lstat().st_ctime for p in [submission_dir, *submission_dir.iterdir()]]
    return datetime.fromtimestamp(max(times), UTC).strftime(STORED)


#: a notebook larger than this is hashed by its size and change time, never read (intake grades none above 20 MB)
HASHED_BYTES = 20 * 2**20 + 1


def notebooks_hash(folder: Path) -> str:
    """sha256 over the name and bytes of each ``*.ipynb`` at the top of ``folder`` (what is graded).

    A notebook that is not a regular file counts by its name and kind only: it
    is never followed (a link swapped in changes the hash all the same). One
    larger than :data:`HASHED_BYTES` (by ``fstat``: a sparse file of gigabytes
    counts whole) counts by its size and modification time, unread; the
    others are read in chunks up to the size ``fstat`` gave.
    """
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.ipynb")):
        digest.update(path.name.encode() + b"\0")
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            digest.update(b"not a regular file\0")
            continue
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                digest.update(b"not a regular file\0")
                continue
            if info.st_size > HASHED_BYTES:
                digest.update(f"too large to read: {info.st_size} bytes, {info.st_mtime_ns}\0".encode())
                continue
            inner, left = hashlib.sha256(), info.st_size
            while left > 0 and (chunk := f.read(min(left, 2**20))):
                inner.update(chunk)
                left -= len(chunk)
            digest.update(inner.digest())
    return digest.hexdigest()


class Arrivals:
    """The record of one course directory, read once; :meth:`save` writes what was seen this run."""

    def __init__(self, course_dir: CourseDir | None):
        self.course_dir = course_dir
        self.known: Record = arrivals(course_dir).read() if course_dir is not None else {}
        self.new: Record = {}
        self.seen: list[Path] = []

    @property
    def recording(self) -> bool:
        """Are arrivals kept (a course directory `course init` made)? Nothing is saved or sealed otherwise."""
        return self.course_dir is not None and self.course_dir.exists

    def of(self, submission_dir: Path) -> str:
        """When the bytes now in ``submission_dir`` arrived: the recorded time while they are unchanged, else
        their change time now (recorded on :meth:`save`)."""
        name, digest = submission_dir.name, notebooks_hash(submission_dir)
        self.seen.append(submission_dir)
        history = self.known.get(name, [])
        if history and history[-1].sha256 in (digest, ""):
            if not history[-1].sha256:  # recorded before hashes were: these bytes are taken as the ones it saw
                self._note(name, Arrival(at=history[-1].at, sha256=digest), replace=True)
            return history[-1].at
        arrived = Arrival(at=change_time(submission_dir), sha256=digest)
        self._note(name, arrived)
        return arrived.at

    def _note(self, name: str, arrival: Arrival, replace: bool = False) -> None:
        history = self.known.setdefault(name, [])
        if replace:
            history[-1] = arrival
        else:
            history.append(arrival)
        self.new[name] = history

    def save(self) -> None:
        """Merge this run's arrivals into the file, under its lock: an arrival recorded meanwhile is kept."""
        if not self.new or not self.recording or self.course_dir is None:
            return
        with arrivals(self.course_dir).update() as record:
            for name, history in self.new.items():
                merged = record.setdefault(name, [])
                for arrival in history:
                    if arrival in merged:
                        continue
                    # a time recorded before hashes were gets its hash; any other arrival is appended
                    unhashed = [i for i, kept in enumerate(merged) if kept.at == arrival.at and not kept.sha256]
                    if unhashed:
                        merged[unhashed[0]] = arrival
                    else:
                        merged.append(arrival)
        self.new = {}

    def seal(self) -> int:
        """As root, make every exchange folder read this run, and its files, root's and not writable by the
        student (group kept, write bits of group and others taken away); returns how many paths changed.

        A file with a second hard link is left alone (it may be somebody else's
        file), links are never followed. Not root, or no arrival kept (sealing
        changes the folder's change time, so only a recorded arrival may be
        sealed): nothing to do (0).
        """
        if os.geteuid() != 0 or not self.recording:
            return 0
        changed = 0
        for folder in self.seen:
            for _, _dirs, files, dir_fd in os.fwalk(folder, follow_symlinks=False):
                changed += _seal(dir_fd)  # the folder itself (fwalk opened it without following a link)
                for name in files:
                    info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                    if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
                        continue
                    try:
                        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
                    except OSError:  # replaced meanwhile
                        continue
                    try:
                        after = os.fstat(fd)
                        if stat.S_ISREG(after.st_mode) and after.st_nlink == 1:
                            changed += _seal(fd)
                    finally:
                        os.close(fd)
        return changed


def _seal(fd: int) -> int:
    """Make the open file or folder ``fd`` root's, group kept, without write for group and others; 1 if changed."""
    info = os.fstat(fd)
    mode = stat.S_IMODE(info.st_mode) & ~(stat.S_IWGRP | stat.S_IWOTH)
    if info.st_uid == 0 and stat.S_IMODE(info.st_mode) == mode:
        return 0
    os.fchown(fd, 0, info.st_gid)
    os.fchmod(fd, mode)
    return 1
