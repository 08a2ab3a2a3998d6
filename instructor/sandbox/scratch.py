"""The grader's scratch folders in the host's /tmp: one per sandboxed run, private, size-limited, always removed.

A run's folder holds ``box/`` (the sandbox's work and home, one tmpfs the
size of its disk limit) and ``out/`` (the job and the result's side, a small
tmpfs of its own); both are private to root and the sandbox's uids. A grader
that was killed before it removed its folders leaves them to the next one
(:func:`sweep`): a prepared notebook holds the hidden tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from instructor.sandbox import cgroup
from instructor.sandbox.command import NOBODY

#: the grader's scratch folders in the host's /tmp: course-sandbox-<grader pid>-<random>
SCRATCH = "course-sandbox-"


def make() -> Path:
    """A new scratch folder, 0700: the grader's alone, named after this grader (see :data:`SCRATCH`)."""
    return Path(tempfile.mkdtemp(prefix=SCRATCH + cgroup.prefix()))


def mount_tmpfs(folder: Path, size_mb: int) -> bool:
    """Make ``folder`` a private tmpfs of ``size_mb`` (root only): all a sandbox writes, bounded; False if not."""
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m,mode=0700,nosuid,nodev", "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def remove(folder: Path, mounts: list[Path] | None = None) -> None:
    """Unmount ``mounts`` (by default every mount point just inside ``folder``), then delete ``folder``."""
    for mount in mounts if mounts is not None else [p for p in folder.iterdir() if os.path.ismount(p)]:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)
    shutil.rmtree(folder, ignore_errors=True)


def sweep() -> int:
    """Remove the scratch folders of graders that were killed before they could (a prepared notebook
    holds the hidden tests); returns how many. A living grader's folders are never touched."""
    swept = 0
    for folder in Path(tempfile.gettempdir()).glob(f"{SCRATCH}*"):
        if not folder.is_dir() or folder.is_symlink() or folder.lstat().st_uid not in (os.geteuid(), NOBODY):
            continue
        name = folder.name[len(SCRATCH) :]
        if name.split("-", 1)[0].isdigit():
            gone = cgroup.left_by_dead_grader(name)
        else:  # named by an older grader without its pid: gone once it is an hour old
            gone = time.time() - folder.lstat().st_mtime > 3600
        if not gone:
            continue
        remove(folder)
        swept += 1
    return swept
