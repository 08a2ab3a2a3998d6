"""The course directory's settings files are data: read as bytes, checked on the open file, never run.

On the hub root reads them while the staff may write the folder they are in
(and, for ``due.json``, the file itself), so :func:`read_data` opens without
following a link and, on the open file, takes only a regular file with one
name and at most ``limit`` bytes. Anything else is refused in one sentence:
the file, why, and the caller's remedy (how to write it again).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from instructor.errors import CourseError


class NotData(Exception):
    """A file the course does not read as data; its text says why (a link, not a regular file, too large)."""


def read_data(path: Path, limit: int, remedy: str) -> bytes | None:
    """The bytes of ``path`` (None when there is none). Anything but a regular file with one name and at most
    ``limit`` bytes is refused: :class:`~instructor.errors.CourseError` naming the file, why, and ``remedy``."""
    try:
        return _read(path, limit)
    except NotData as why:
        raise CourseError(f"{path} is not a file the course reads ({why}): {remedy}.") from None


def _read(path: Path, limit: int) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise NotData("a symbolic link" if err.errno == errno.ELOOP else err.strerror) from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            raise NotData("not a regular file with one name")
        data = f.read(limit + 1)
    if info.st_size > limit or len(data) > limit:
        raise NotData(f"more than {limit} bytes")
    return data
