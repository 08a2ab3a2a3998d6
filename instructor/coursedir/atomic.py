"""Files of the course directory written whole, with the owner, group and mode the course's staff need.

A reader (or a kill) sees the old file or the new one, never half: the text
goes to a temporary file in the same folder, is flushed to disk, and is
renamed into place. Several accounts write the course directory (root's
``course grade``, the instructor's formgrader, a grader's server), so the
file that replaces another keeps that file's group and mode (and, written by
root, its owner), and a new file follows its folder:

* a group-writable folder (the course group's setgid folders that ``course
  hub`` makes): the file is ``0660`` in the folder's group, a new folder
  ``2770`` in it;
* any other folder: ``0600`` (a folder ``0700``), the folder's owner's.

Written by root, a new file or folder belongs to the folder's owner, not to
root, so that the instructor who owns the course directory can rewrite it.
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Keep:
    """Who a file written into place belongs to (``uid`` -1: whoever writes it) and its mode."""

    uid: int
    gid: int
    mode: int


def _shared(folder: os.stat_result) -> bool:
    """Is ``folder`` the staff's (group-writable), so that what is made in it is the group's too?"""
    return bool(folder.st_mode & stat.S_IWGRP)


def _new_in(folder: os.stat_result, mode_shared: int, mode_own: int) -> Keep:
    uid = folder.st_uid if os.geteuid() == 0 else -1
    if _shared(folder):
        return Keep(uid, folder.st_gid, mode_shared)
    return Keep(uid, folder.st_gid if uid != -1 else -1, mode_own)


def keep_for(path: Path) -> Keep:
    """What a file written at ``path`` must be: the existing file's owner, group and mode, else its folder's rule."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        info = None
    if info is None or stat.S_ISLNK(info.st_mode):  # a link is replaced, never followed
        return _new_in(os.stat(path.parent), 0o660, 0o600)
    return Keep(info.st_uid if os.geteuid() == 0 else -1, info.st_gid, stat.S_IMODE(info.st_mode))


def give(fd: int, keep: Keep) -> None:
    """Set ``keep``'s owner, group and mode on the open file ``fd`` (a group the writer is not in is left as made)."""
    if keep.uid != -1 or keep.gid != -1:
        try:
            os.fchown(fd, keep.uid, keep.gid)
        except PermissionError:  # only root gives a file away; a member changes it into its own groups
            pass
    os.fchmod(fd, keep.mode)


def make_folders(folder: Path) -> None:
    """``mkdir -p`` where each new folder follows its parent's rule (see the module doc)."""
    if folder.is_dir():
        return
    make_folders(folder.parent)
    parent = os.stat(folder.parent)
    keep = _new_in(parent, 0o2770, 0o700)
    try:
        folder.mkdir()
    except FileExistsError:  # made by another writer meanwhile
        return
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        give(fd, keep)
    finally:
        os.close(fd)


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, then rename it into place."""
    make_folders(path.parent)
    keep = keep_for(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode() if isinstance(text, str) else text)
            f.flush()
            give(f.fileno(), keep)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
