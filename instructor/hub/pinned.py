"""The course directory's top folder pinned (sticky) while root reads and runs its settings.

On the hub the course directory is the staff group's (``2770``): each member
may remove or rename any name at its top, root's settings
(``nbgrader_config.json``, ``nbgrader_config.py``) included. Checking them
and then letting ``course`` or nbgrader load them by name left a gap: a grader
who replaced the ``.py`` after the check had his own Python run as root
(issue 58; ``tests/hub/test_privileged.py``). While pinned, the top folder
has the sticky bit, so the kernel lets nobody but a file's owner (and root)
rename or remove it: root's settings stay the file root checked. Staff
can still create and write files there (the gradebook's journal); replacing
a file somebody else owns at the top (``due.json`` written by another
account) fails until the step ends.

Root's steps may overlap (two graders, or ``course hub`` starting): each
holds a shared lock on a file of root's in ``/run`` and the last to end
takes the bit off. A step killed outright leaves the bit on (safe, and
inconvenient for the writes above) until the next of root's steps or
``course hub`` ends.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCKS = Path("/run")


def lock_path(course_path: Path) -> Path:
    digest = hashlib.sha256(str(course_path).encode()).hexdigest()[:16]
    return LOCKS / f"course-pinned-{digest}.lock"


@contextmanager
def pinned(course_path: Path) -> Iterator[None]:
    """Sticky top folder for the duration, as root (anyone else: nothing to pin, the folder is not theirs)."""
    if os.geteuid() != 0:
        yield
        return
    course_path = Path(os.path.realpath(course_path))
    lock = os.open(lock_path(course_path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_SH)
        try:
            top = os.open(course_path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except (FileNotFoundError, NotADirectoryError):
            yield  # no course directory: the caller says so
            return
        try:
            os.fchmod(top, stat.S_IMODE(os.fstat(top).st_mode) | stat.S_ISVTX)
            try:
                yield
            finally:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    pass  # another of root's steps still needs it: the last one takes the bit off
                else:
                    os.fchmod(top, stat.S_IMODE(os.fstat(top).st_mode) & ~stat.S_ISVTX)
        finally:
            os.close(top)
    finally:
        os.close(lock)
