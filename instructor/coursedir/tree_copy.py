"""Copies out of the staff's folders for root: by descriptor, no link followed, only plain files.

Root hands nbgrader a folder to copy by path (the student version it
releases, the feedback it returns), and the course directory is the staff's
to write: a link planted there would make root copy a file of root's where
students read, a FIFO would stall the step, a hard link would carry another
account's file. So root first copies what nbgrader will read into a folder
of its own, walking the staff's folder by directory descriptor (``os.fwalk``,
``O_NOFOLLOW`` at every name) and taking only regular files with one name
within a size limit; each file or folder it leaves out gets one line.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def copy_file_at(folder: int, name: str, to: Path, limit: int) -> str:
    """Copy ``name`` of the open ``folder`` to the new file ``to``; returns why it was not copied ('' when it was)."""
    try:
        fd = os.open(name, _FILE, dir_fd=folder)
    except OSError as err:
        return "a link" if err.errno == errno.ELOOP else err.strerror or "cannot be opened"
    with os.fdopen(fd, "rb") as source:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if info.st_nlink != 1:
            return "a file with other names elsewhere (a hard link)"
        if info.st_size > limit:
            return f"over {limit:,} bytes"
        data = source.read(limit + 1)
    if len(data) > limit:  # it grew since fstat
        return f"over {limit:,} bytes"
    made = os.open(to, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(made, "wb") as out:
        out.write(data)
    return ""


def copy_tree(top: Path, into: Path, limit: int, skip=lambda name: False) -> list[str]:
    """Copy the folder ``top`` (not followed if it is a link) into ``into`` (an empty folder of the caller's
    alone), folders and regular files; ``skip(name)`` leaves a name out unsaid. Returns one line per entry
    left out, and why."""
    left_out = []
    for folder, subfolders, files, dirfd in os.fwalk(top, follow_symlinks=False):
        where = Path(folder).relative_to(top)
        kept = []
        for name in subfolders:  # os.fwalk lists a link to a folder here (it does not walk it): named, not made
            if skip(name):
                continue
            if stat.S_ISLNK(os.stat(name, dir_fd=dirfd, follow_symlinks=False).st_mode):
                left_out.append(f"{top.name}/{where / name}: a link, left out")
                continue
            (into / where / name).mkdir(mode=0o755)
            kept.append(name)
        subfolders[:] = kept
        for name in sorted(files):
            if skip(name):
                continue
            why = copy_file_at(dirfd, name, into / where / name, limit)
            if why:
                left_out.append(f"{top.name}/{where / name}: {why}, left out")
    return left_out
