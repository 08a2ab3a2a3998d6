"""A Unix account per person, and the folder modes that keep students apart.

The single-user servers run as their users (JupyterHub's local-process
spawner), so what a student can read is decided by the kernel's permission
checks, not by the notebook interface: homes are 0700, the course directory
is its owner's alone, and nbgrader's exchange hands out only the released
(student) version and keeps ``inbound`` write-only.
"""

from __future__ import annotations

import csv
import os
import pwd
import secrets
import stat
import subprocess
import sys
from pathlib import Path

from instructor.errors import CourseError


def exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def create(names: list[str], passwords: Path) -> list[str]:
    """Make the accounts that do not exist yet (home 0700, a random password); returns who was made.

    The new passwords are appended to ``passwords`` (``id,password``, mode
    0600, root's) for the instructor to hand out; each person changes theirs
    with ``passwd`` in a JupyterLab terminal. Existing accounts are left alone.
    """
    made = []
    for name in sorted(names):
        if exists(name):
            continue
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", name], check=True)
        password = secrets.token_urlsafe(9)
        subprocess.run(["chpasswd"], input=f"{name}:{password}\n", text=True, check=True)
        fresh = not passwords.exists()
        passwords.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(passwords.parent, 0o700)
        with open(os.open(passwords, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "a", newline="") as f:
            writer = csv.writer(f)
            if fresh:
                writer.writerow(["id", "password"])
            writer.writerow([name, password])
        made.append(name)
    for name in names:  # Debian's default home mode is 0755: a neighbour could read every notebook
        os.chmod(pwd.getpwnam(name).pw_dir, 0o700)
    return made


def private_course_dir(course_path: Path) -> bool:
    """Take group and others' rights off the course directory (solutions, gradebook); True if changed."""
    mode = stat.S_IMODE(course_path.stat().st_mode)
    if mode & 0o077:
        os.chmod(course_path, mode & 0o700)
        return True
    return False


def check_exchange(exchange: Path, course_path: Path) -> None:
    """The exchange must be outside the (private) course directory, and open as nbgrader's exchange needs."""
    if exchange.resolve().is_relative_to(course_path.resolve()):
        raise CourseError(
            f"the exchange {exchange} is inside the course directory, which students may not "
            f"enter: run `course init {course_path} --exchange /srv/nbgrader/exchange`."
        )
    exchange.mkdir(parents=True, exist_ok=True)
    os.chmod(exchange, 0o777)


def check_reachable(user: str) -> None:
    """``user`` can run this Python with the course, nbgrader and JupyterHub, or a one-sentence error."""
    probe = subprocess.run(
        ["runuser", "-u", user, "--", sys.executable, "-c", "import course, nbgrader, jupyterhub.singleuser"],
        capture_output=True,
        text=True,
        cwd="/",
    )
    if probe.returncode != 0:
        raise CourseError(
            f"{user} cannot run {sys.executable} with the course installed "
            f"({(probe.stderr.strip().splitlines() or ['no output'])[-1]}): install the course "
            "where every user can read it (a venv under /opt, say), not under /root."
        )
