"""A Unix account per person, the staff's group, and the folder modes that keep students apart.

The single-user servers run as their users (JupyterHub's local-process
spawner), so what a student can read is decided by the kernel's permission
checks, not by the notebook interface: homes of the accounts ``course hub``
makes are 0700; the course directory is root's and the staff group's
(setgid folders, group-writable files, nothing for others); the exchange is
root's with only ``inbound`` open to students (:mod:`instructor.coursedir.exchange`).

``course hub`` changes only what it made: the accounts and the group it
creates are recorded in ``<hub dir>/state/made.json``; an account that was
there before keeps its home as it was, and system accounts (uid below
``UID_MIN`` of /etc/login.defs, or a shell that cannot log in) are refused as
ids.
"""

from __future__ import annotations

import csv
import grp
import json
import os
import pwd
import secrets
import stat
import subprocess
import sys
from pathlib import Path

from instructor.coursedir import exchange as course_exchange
from instructor.coursedir.course_dir import JOURNALS
from instructor.errors import CourseError

LOGIN_DEFS = Path("/etc/login.defs")
#: shells that let nobody log in
NO_LOGIN = ("nologin", "false")
#: files of the course directory that root reads as settings (nbgrader runs the .py's one line) or as who may do
#: what: staff read them, root writes them
ROOT_ONLY = ("nbgrader_config.json", "nbgrader_config.py", "staff.csv")


def exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def uid_min(login_defs: Path = LOGIN_DEFS) -> int:
    """``UID_MIN`` of /etc/login.defs (1000 where it is missing): the first uid of a person's account."""
    try:
        for line in login_defs.read_text().splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] == "UID_MIN":
                return int(words[1])
    except (OSError, ValueError):
        pass
    return 1000


def system_reason(name: str, first_uid: int) -> str:
    """Why the existing account ``name`` is the system's, not a person's ("" for a person or no account)."""
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        return ""
    if entry.pw_uid < first_uid:
        return f"{name} (uid {entry.pw_uid})"
    if Path(entry.pw_shell).name in NO_LOGIN:
        return f"{name} (shell {entry.pw_shell})"
    return ""


def refuse_system(names, login_defs: Path = LOGIN_DEFS) -> None:
    """One sentence if any of ``names`` is a system account: the hub would log it in and run a server as it."""
    first = uid_min(login_defs)
    found = [r for r in (system_reason(n, first) for n in sorted(names)) if r]
    if found:
        raise CourseError(
            f"{', '.join(found)}: system accounts (uid below {first} or no login shell) cannot be "
            "roster or staff ids; give each person an id of their own."
        )


class Made:
    """What ``course hub`` made on this machine (``state/made.json``): only these it may change or remove."""

    def __init__(self, path: Path):
        self.path = path
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            data = {}
        self.accounts: list[str] = list(data.get("accounts", []))
        self.groups: list[str] = list(data.get("groups", []))

    def add(self, kind: str, name: str) -> None:
        items = getattr(self, kind)
        if name not in items:
            items.append(name)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(self.path.parent, 0o700)
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps({"accounts": self.accounts, "groups": self.groups}, indent=1) + "\n")
        os.replace(temporary, self.path)


def create(names: list[str], passwords: Path, made: Made | None = None) -> list[str]:
    """Make the accounts that do not exist yet (home 0700, a random password); returns who was made.

    The new passwords are appended to ``passwords`` (``id,password``, mode
    0600, root's) for the instructor to hand out; each person changes theirs
    with ``passwd`` in a JupyterLab terminal. Accounts that exist are left as
    they are, their homes too (:func:`open_homes` says which others can read).
    """
    made = made or Made(passwords.parent / "made.json")
    created = []
    for name in sorted(names):
        if exists(name):
            continue
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", name], check=True)
        made.add("accounts", name)
        # Debian's default home mode is 0755: a neighbour could read every notebook
        os.chmod(pwd.getpwnam(name).pw_dir, 0o700)
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
        created.append(name)
    return created


def open_homes(names) -> list[str]:
    """``name (mode)`` of each of ``names`` whose home others may read or enter (not changed here)."""
    found = []
    for name in sorted(names):
        try:
            home = Path(pwd.getpwnam(name).pw_dir)
            mode = stat.S_IMODE(home.stat().st_mode)
        except (KeyError, OSError):
            continue
        if mode & 0o007:
            found.append(f"{name} ({home} {mode:04o})")
    return found


def staff_group(group: str, members, made: Made) -> int:
    """The Unix group of the course's staff, holding exactly ``members``; returns its gid.

    Made (and recorded) if missing; a group of that name that ``course hub``
    did not make is refused in one sentence (its members would get the
    course directory and the privileged path).
    """
    try:
        entry = grp.getgrnam(group)
    except KeyError:
        subprocess.run(["groupadd", group], check=True, capture_output=True)
        made.add("groups", group)
        entry = grp.getgrnam(group)
    if group not in made.groups:
        raise CourseError(
            f"the group {group} exists and `course hub` did not make it: name another with --staff-group "
            "(its members would share the course directory and grade as root)."
        )
    if sorted(entry.gr_mem) != sorted(members):
        subprocess.run(["gpasswd", "--members", ",".join(sorted(members)), group], check=True, capture_output=True)
    return entry.gr_gid


def share_course_dir(course_path: Path, gid: int) -> int:
    """Give the course directory to root and the staff group; returns how many entries changed.

    Folders become ``2770`` (setgid: what anyone of the group makes there
    keeps the group), files ``g+rw`` with nothing for others, all of group
    ``gid``; :data:`ROOT_ONLY` files are root's ``0640`` (root reads the
    settings in the privileged path) when root's, and
    left as they are when not (never made root's: see ``course hub``'s
    checks). Links are not followed, and neither is a link swapped in while
    the walk runs (it goes by descriptor); a file with a second hard link, a
    FIFO, a socket or a device is left alone (it may be somebody else's).
    """
    changed = 0
    top = str(course_path.resolve())
    # each grade journal stays writable by its author alone (coursedir.journal): never made the group's
    journals = os.path.join(top, JOURNALS)
    # by directory descriptor, each entry changed through a descriptor opened without following links: the staff
    # write this tree, and an entry checked by path could be swapped for a link before root changes it (issue 58)
    for folder, subfolders, files, dirfd in os.fwalk(top, follow_symlinks=False):
        for name in [".", *subfolders, *files]:
            if folder == journals and name != ".":
                continue
            changed += _share_entry(dirfd, name, folder == top, gid)
    return changed


def _share_entry(dirfd: int, name: str, at_top: bool, gid: int) -> int:
    """One entry of :func:`share_course_dir`, named ``name`` in the folder open as ``dirfd``; how many changes."""
    if name == ".":
        fd = os.dup(dirfd)
    else:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
        try:
            fd = os.open(name, flags, dir_fd=dirfd)
        except OSError:  # a link (ELOOP), or gone: left alone
            return 0
    try:
        info = os.fstat(fd)
        if not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):  # a FIFO, a socket, a device
            return 0
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:  # it may be somebody else's file
            return 0
        root_only = at_top and name in ROOT_ONLY
        if root_only and info.st_uid != 0:
            # never adopt one: a grader's own staff.csv or nbgrader_config.py made root's here would pass as
            # root's (issue 58); `course hub` refuses it, and an instructor's staff.csv stays hers
            return 0
        if stat.S_ISDIR(info.st_mode):
            mode = (stat.S_IMODE(info.st_mode) | 0o2770) & ~0o007
        elif root_only:
            mode = 0o640
        else:
            mode = (stat.S_IMODE(info.st_mode) | 0o660) & ~0o6007
        owner = 0 if root_only or (at_top and name == ".") else -1
        changed = 0
        if info.st_gid != gid or (owner == 0 and info.st_uid != 0):
            os.fchown(fd, owner, gid)
            changed += 1
        if stat.S_IMODE(info.st_mode) != mode:
            os.fchmod(fd, mode)
            changed += 1
        return changed
    finally:
        os.close(fd)


def set_up_exchange(exchange: Path, course_path: Path, course_id: str) -> list[str]:
    """The exchange outside the (private) course directory, laid out as the course's; returns what changed."""
    if exchange.resolve().is_relative_to(course_path.resolve()):
        raise CourseError(
            f"the exchange {exchange} is inside the course directory, which students may not "
            f"enter: run `course init {course_path} --exchange /srv/nbgrader/exchange`."
        )
    return course_exchange.lay_out(exchange, course_id)


def require_reachable(user: str) -> None:
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
