"""The course directory's settings files are data: read as bytes, checked on the open file, never run.

On the hub root reads them while the staff may write the folder they are in
(and, for ``due.json``, the file itself), so :func:`read_data` opens without
following a link and, on the open file, takes only a regular file with one
name and at most ``limit`` bytes. Each caller words its own refusal (which
file, how to write it again) around :class:`NotData`'s reason.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class NotData(Exception):
    """A file the course does not read as data; its text says why (a link, not a regular file, too large)."""


def read_data(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` (None when there is none); :class:`NotData` for anything but a regular file with
    one name and at most ``limit`` bytes."""
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
