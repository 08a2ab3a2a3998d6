"""The side files of the course directory: one typed reader and one locked writer for all of them.

Beside nbgrader's gradebook the course keeps its own records, each one JSON
file that people read (and, for extensions, edit)::

    <dir>/overrides.json           every grade changed by hand        (overrides.Change, a list)
    <dir>/arrivals.json            when each exchange folder's bytes arrived   (arrivals.Arrival, by folder)
    <dir>/extensions.json          later due dates                    (extensions.Extension, by assignment, student)
    <dir>/reviews/<s>/<a>.json     flags a person cleared             (reviews.Clearing, a list)
    <dir>/results/<s>/<a>.json     one graded submission's record     (grading.submission.Result)

Several accounts write them, at the same time: root's ``course grade``, the
instructor's formgrader (an override saved), a grader's server, ``course
extend``, ``course unflag``. So a write is always an update (:meth:`Store.update`): an
exclusive ``flock`` on the folder's lock file (``<folder>/.course-lock``),
the file read again, the caller's change made to what it holds, and the
whole file written (:func:`~instructor.coursedir.atomic.write_atomic`: a
temporary file renamed into place, keeping the old file's group and mode)
before the lock is let go. A file that exists but cannot be read or parsed
is never written over: the update stops in one sentence. (Writing over an
unreadable ``overrides.json``, root's ``0600``, lost the record of a hand
grade taken back, with no error: issue 43.)

Why pydantic (v2): the files are read, and some written, by people, so a
value that does not fit must be refused naming the field; the JSON keys
include a Python keyword (``from``); and one ``TypeAdapter`` per file both
reads and writes it, where each store had its own ``to_json``/``from_json``.
It is well kept and already in the environment (JupyterHub, the ``hub``
extra, depends on it); msgspec would be a package no other part uses, and
dataclasses would need the hand-written checks this replaces.

Why ``fcntl.flock`` and not the ``filelock`` package: the lock file must
follow the same owner/group/mode rule as the files (root's lock file must
open for the instructor), which ``filelock`` does not do; ``flock`` is let
go by the kernel when its process dies, so no lock outlives a kill.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, NoReturn, TypeVar

from pydantic import TypeAdapter, ValidationError

from instructor.coursedir.atomic import give, keep_for, make_folders, write_atomic
from instructor.coursedir.course_dir import LOCK  # one per folder: updates of different files in it take turns
from instructor.errors import CourseError

T = TypeVar("T")


class Unreadable(CourseError):
    """A side file that exists but cannot be read or does not hold what it should (one sentence)."""


@dataclass(frozen=True)
class Store(Generic[T]):
    """One side file: where it is, the type of what it holds, and what it holds before it exists."""

    path: Path
    shape: TypeAdapter[T]
    empty: Callable[[], T]

    def read(self) -> T:
        """What the file holds (:attr:`empty` if there is no file); :class:`Unreadable` if it cannot be read."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return self.empty()
        except OSError as err:
            raise Unreadable(f"{self.path} cannot be read ({err.strerror}).") from None
        try:
            return self.shape.validate_json(raw)
        except ValidationError as err:
            where = ".".join(str(p) for p in err.errors()[0]["loc"])
            why = err.errors()[0]["msg"]
            raise Unreadable(
                f"{self.path} cannot be read ({why}{' at ' + where if where else ''}); fix it by hand or remove it."
            ) from None

    def read_or_empty(self) -> T:
        """:meth:`read`, or :attr:`empty` when the file cannot be read (for what only shows the records)."""
        try:
            return self.read()
        except Unreadable:
            return self.empty()

    @contextlib.contextmanager
    def update(self) -> Iterator[T]:
        """Lock, read again, let the caller change the value in place, write it whole; see the module doc."""
        with locked(self.path.parent):
            value = self.read()
            yield value
            write_atomic(self.path, self.dump(value))

    def write(self, value: T) -> None:
        """Write ``value`` whole under the folder's lock, replacing what the file held (a record made anew)."""
        with locked(self.path.parent):
            write_atomic(self.path, self.dump(value))

    def remove(self) -> None:
        """Remove the file under the folder's lock (nothing if there is none)."""
        remove(self.path)

    def dump(self, value: T) -> bytes:
        """The file's text: indented for people, keys as the file names them, unset fields left out."""
        return self.shape.dump_json(value, indent=1, by_alias=True, exclude_unset=True) + b"\n"


def remove(path: Path) -> None:
    """Remove the side file at ``path`` under its folder's lock (nothing if there is none)."""
    with locked(path.parent):
        path.unlink(missing_ok=True)


def read_every(paths: Iterable[Path], shape: TypeAdapter[T]) -> dict[Path, T]:
    """What each readable file among ``paths`` holds, by path; a file that cannot be read is left out."""
    found = {}
    for path in paths:
        try:
            found[path] = Store(path, shape, _vanished).read()
        except Unreadable:
            continue
    return found


def _vanished() -> NoReturn:
    raise Unreadable("the file went away while it was read")


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold the exclusive lock of ``folder``'s side files (made on first use, by the folder's rule)."""
    make_folders(folder)
    path = folder / LOCK
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)  # flock needs no write access
    except FileNotFoundError:
        keep = keep_for(path)
        fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        give(fd, keep)
    except OSError as err:
        raise Unreadable(f"{path} cannot be opened to take turns with other writers ({err.strerror}).") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing lets the lock go
