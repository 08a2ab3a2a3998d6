"""Run ``course hub`` as a deployment would see this machine: Python readable by every user, no answers in sight.

On these machines Python lives under /root (mode 0700), where no student's
server could start it, and the repository beside it holds ``solutions/`` and
its git history. A real class installs the course where everyone can read it
and keeps the repository away from students. The test gets the same view
without changing the machine: ``course hub`` runs in a mount namespace of its
own (``unshare --mount``) in which /root shows only the Python installation
(mode 0711) and ``solutions/`` and ``.git`` are empty, and /etc/sudoers.d is
an empty folder of its own (the sudo rule ``course hub`` writes for the staff
lives and dies with the namespace). Every server the hub starts inherits that
view; the rest of the machine sees nothing of it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from instructor.paths import REPO_ROOT

#: folders of the repository that students must not see (hidden tests, reference answers, their history)
HIDDEN = ("solutions", ".git")


def _python_folders() -> list[Path]:
    """The installation folders of this Python that sit under /root."""
    found = []
    for prefix in {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}:
        if prefix.is_relative_to("/root"):
            found.append(prefix)
    return sorted(found)


def wrap(command: list[str], scratch: Path) -> list[str]:
    """``command`` run by ``unshare --mount`` after the mounts described above (run as root)."""
    view = scratch / "rootview"
    view.mkdir(mode=0o711, parents=True, exist_ok=True)
    os.chmod(view, 0o711)
    steps = ["mount --make-rprivate /"]
    binds = _python_folders()
    for prefix in binds:
        inside = view / prefix.relative_to("/root")
        inside.mkdir(parents=True, exist_ok=True)
        steps.append(f"mount --bind {shlex.quote(str(prefix))} {shlex.quote(str(inside))}")
    if binds:
        steps.append(f"mount --rbind {shlex.quote(str(view))} /root")
    for name in HIDDEN:
        if (REPO_ROOT / name).is_dir():
            steps.append(f"mount -t tmpfs -o size=1m,mode=0755 tmpfs {shlex.quote(str(REPO_ROOT / name))}")
        elif (REPO_ROOT / name).exists():  # a work tree's .git is a file naming the repository
            steps.append(f"mount --bind /dev/null {shlex.quote(str(REPO_ROOT / name))}")
    if Path("/etc/sudoers.d").is_dir():
        steps.append("mount -t tmpfs -o size=1m,mode=0755 tmpfs /etc/sudoers.d")
    script = " && ".join(steps) + ' && exec "$@"'
    return ["unshare", "--mount", "sh", "-c", script, "sh", *command]


def enter(pid: int, command: list[str]) -> list[str]:
    """``command`` run in the mount namespace of process ``pid`` (the hub's): to act as a user there."""
    return ["nsenter", f"--target={pid}", "--mount", *command]


def as_student(scratch: Path, settings: Path, user: str, script: str) -> subprocess.CompletedProcess:
    """``script`` run by ``sh`` as ``user`` in their home, with the hub's student settings ``settings`` (as their
    JupyterLab terminal would), in the mount view of :func:`wrap`."""
    env = [f"HOME=/home/{user}", f"JUPYTER_CONFIG_PATH={settings}", f"PATH={Path(sys.executable).parent}:/usr/bin:/bin"]
    command = ["runuser", "-u", user, "--", "env", *env, "sh", "-c", f"cd && {script}"]
    return subprocess.run(wrap(command, scratch), capture_output=True, text=True, timeout=300)
