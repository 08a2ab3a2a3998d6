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

import contextlib
import os
import secrets
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


#: opens a folder as a descriptor to walk from: O_PATH needs only the right to pass through it, as a path does
_FOLDER = os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC


def _others_change(info: os.stat_result) -> bool:
    """Can an account other than root and this process rename or replace what the folder ``info`` holds?"""
    owner = info.st_uid not in (0, os.geteuid())
    return owner or bool(info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def open_folder(folder: Path, make: bool = False) -> int:
    """A descriptor of ``folder``, reached from ``/`` one name at a time; with ``make``, missing folders are made
    (each by its parent's rule, see the module doc).

    A name inside a folder that another account can change (the staff's group-writable course directory, a
    folder someone else owns) is opened without following a link: a link planted there, or swapped in while
    this runs, raises ``OSError`` (ELOOP or ENOTDIR) rather than take root's or the instructor's write
    elsewhere (issue 58). Links in folders only root and this process write are followed as usual.
    """
    fd = os.open("/", _FOLDER)
    try:
        for name in Path(os.path.abspath(folder)).parts[1:]:
            info = os.fstat(fd)
            flags = _FOLDER | (os.O_NOFOLLOW if _others_change(info) else 0)
            try:
                inner = os.open(name, flags, dir_fd=fd)
            except FileNotFoundError:
                if not make:
                    raise
                keep = _new_in(info, 0o2770, 0o700)
                try:
                    os.mkdir(name, 0o700, dir_fd=fd)
                    made = True
                except FileExistsError:  # made by another writer meanwhile
                    made = False
                if made:  # its owner, group and mode need a descriptor opened for reading: ours, just made
                    inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
                    give(inner, keep)
                else:
                    inner = os.open(name, _FOLDER | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
        return fd
    except BaseException:
        os.close(fd)
        raise


def make_folders(folder: Path) -> None:
    """``mkdir -p`` where each new folder follows its parent's rule (see the module doc), links as
    :func:`open_folder` takes them."""
    os.close(open_folder(folder, make=True))


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, then rename it into place.

    The folder is reached as :func:`open_folder` reaches it, and the temporary file made and renamed in it by
    descriptor: a link swapped in for the folder meanwhile changes nothing.
    """
    folder = open_folder(path.parent, make=True)
    try:
        try:
            info = os.stat(path.name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            info = None
        if info is None or stat.S_ISLNK(info.st_mode):  # a link is replaced, never followed
            keep = _new_in(os.fstat(folder), 0o660, 0o600)
        else:
            keep = Keep(info.st_uid if os.geteuid() == 0 else -1, info.st_gid, stat.S_IMODE(info.st_mode))
        tmp = f".{path.name}.{secrets.token_hex(6)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(tmp, flags, 0o600, dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(text.encode() if isinstance(text, str) else text)
                f.flush()
                give(f.fileno(), keep)
                os.fsync(f.fileno())
            os.replace(tmp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=folder)
            except FileNotFoundError:
                pass
            raise
    finally:
        os.close(folder)


def write_own(path: Path, text: str, mode: int) -> None:
    """Write ``text`` to ``path`` whole (a file beside it, renamed into place; a link there is replaced, never
    followed), as the writer's own file with ``mode``: for files whose owner says who may change them (root's
    settings on the hub, the hub's own state), where :func:`write_atomic` would keep the staff's rule."""
    fd, draft = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            os.fchmod(f.fileno(), mode)
        os.replace(draft, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(draft)
        raise
