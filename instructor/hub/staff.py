"""Who is on the hub: staff from ``<course dir>/staff.csv``, students from the roster.

``staff.csv`` has two columns, ``id,role``; the role is ``instructor`` (hub
admin, the formgrader) or ``grader`` (the formgrader). Ids follow the roster's
rule and must also be valid Unix login names, since each person gets an account.

The file says who is admin, and the course directory it lives in is the
whole staff group's to write (issue 58): a grader could remove it and write
his own naming himself instructor. So it is read on the open file (no link,
a regular file with one name, at most 64 kB, writable by its owner alone)
and only when its owner is root, the account reading it, or an instructor of
the last accepted start (:func:`recorded_instructors`, in the hub's state,
root's alone); anyone else's file is refused in one sentence.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import pwd
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from instructor.coursedir import roster
from instructor.errors import CourseError

if TYPE_CHECKING:
    from instructor.coursedir.course_dir import CourseDir

STAFF_NAME = "staff.csv"
ROLES = ("instructor", "grader")
#: what Debian's useradd accepts without --badname (and JupyterHub keeps as is: lower case)
_LOGIN = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
#: the largest staff.csv read
MAX_BYTES = 64 * 1024
#: in the hub's state folder: the instructors of the last start, who may own staff.csv
INSTRUCTORS_NAME = "instructors.json"


def is_login(name: str) -> bool:
    return bool(_LOGIN.match(name))


@dataclass(frozen=True)
class People:
    """The hub's users: ``students`` (the roster), ``instructors`` and ``graders`` (staff.csv)."""

    students: frozenset[str]
    instructors: frozenset[str]
    graders: frozenset[str]
    #: {e-mail: id} of the roster's students and staff.csv's people who have one
    emails: dict[str, str] = field(default_factory=dict)

    @property
    def staff(self) -> frozenset[str]:
        return self.instructors | self.graders

    @property
    def everyone(self) -> frozenset[str]:
        return self.students | self.staff


def _owner(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


class Untrusted(Exception):
    """A file someone other than its trusted owners could have written; the text says what is wrong with it."""


def read_trusted(path: Path, owners: set[int]) -> str:
    """The text of ``path``, read on the open file; :class:`Untrusted` unless it is a regular file with one name,
    at most :data:`MAX_BYTES`, owned by one of ``owners`` and writable by nobody else (``FileNotFoundError`` if
    there is none)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as err:  # ELOOP: a link
        raise Untrusted("a symbolic link" if err.errno == errno.ELOOP else err.strerror) from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            raise Untrusted("not a regular file with one name")
        if info.st_uid not in owners or info.st_mode & 0o022:
            raise Untrusted(f"owner {_owner(info.st_uid)}, mode {stat.S_IMODE(info.st_mode):04o}")
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise Untrusted(f"more than {MAX_BYTES // 1024} kB")
    return data.decode("utf-8-sig", errors="replace")


def recorded_instructors(state: Path) -> frozenset[str]:
    """The instructors ``course hub`` accepted at its last start (``state/instructors.json``, root's)."""
    try:
        names = json.loads(read_trusted(state / INSTRUCTORS_NAME, {0, os.geteuid()}))
    except (OSError, ValueError, Untrusted):
        return frozenset()
    return frozenset(n for n in names if isinstance(n, str) and is_login(n)) if isinstance(names, list) else frozenset()


def record_instructors(state: Path, names) -> None:
    """Remember ``names`` as the instructors who may own staff.csv at the next start."""
    state.mkdir(parents=True, exist_ok=True)
    os.chmod(state, 0o700)
    draft = state / f".{INSTRUCTORS_NAME}.draft"
    draft.write_text(json.dumps(sorted(names)) + "\n")
    os.chmod(draft, 0o600)
    os.replace(draft, state / INSTRUCTORS_NAME)


def owners(instructors=()) -> set[int]:
    """Who may own staff.csv: root, the account reading it, and the accounts of ``instructors``."""
    found = {0, os.geteuid()}
    for name in instructors:
        try:
            found.add(pwd.getpwnam(name).pw_uid)
        except KeyError:
            pass
    return found


def read_staff(path: Path, instructors=(), emails: dict[str, str] | None = None) -> dict[str, str]:
    """``{id: role}`` from a staff CSV, checked; the file must be root's or one of ``instructors``' (see above).

    An optional third column, ``email``, goes into ``emails`` (``{e-mail: id}``): LTI names people by e-mail."""
    try:
        text = read_trusted(path, owners(instructors))
    except Untrusted as err:
        raise CourseError(
            f"{path} could have been written by someone other than root or an instructor ({err}): it says who is "
            "instructor, so `course hub` takes it only from root or an instructor of its last start (docs/hub.md)."
        ) from None
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    found: dict[str, str] = {}
    for line, row in enumerate(rows, start=2):
        name, role = (row.get("id") or "").strip(), (row.get("role") or "").strip().lower()
        if not name:
            continue
        if role not in ROLES:
            raise CourseError(f"{path}, line {line}: role {role!r} is not one of {', '.join(ROLES)}.")
        found[name] = role
        email = (row.get("email") or "").strip().lower()
        if email and emails is not None:
            emails[email] = name
    return found


def people(course_dir: CourseDir, instructors=()) -> People:
    """Students and staff of ``course_dir``; a one-sentence error if either is missing.

    ``instructors``: those of the last accepted start, who may own staff.csv besides root.
    """
    path = course_dir.path / STAFF_NAME
    staff_emails: dict[str, str] = {}
    try:
        staff = read_staff(path, instructors, staff_emails)
    except FileNotFoundError:
        raise CourseError(
            f"{path} does not exist: name the instructors and graders there "
            f"(two columns, `id,role`, role instructor or grader)."
        ) from None
    if "instructor" not in staff.values():
        raise CourseError(f"{path} names no instructor.")
    students = roster.roster(course_dir)
    if not students:
        raise CourseError(f"{course_dir.path} has no roster: run `course roster import class.csv` first.")
    both = students & set(staff)
    if both:
        raise CourseError(f"{', '.join(sorted(both))} is both on the roster and in {path}.")
    bad = sorted(n for n in students | set(staff) if not is_login(n))
    if bad:
        raise CourseError(
            f"{', '.join(bad)}: each person gets a Unix account, so ids must be lower-case "
            "login names (a letter or _, then letters, digits, _ or -, at most 32)."
        )
    emails = {
        row["email"].strip().lower(): row["id"]
        for row in roster.read_roster_file(course_dir.roster_file)
        if (row.get("email") or "").strip()
    }
    twice = sorted(e for e in staff_emails if e in emails)
    if twice:
        raise CourseError(f"{', '.join(twice)} is the e-mail of a student on the roster and of staff in {path}.")
    emails.update(staff_emails)
    return People(
        frozenset(students),
        frozenset(n for n, r in staff.items() if r == "instructor"),
        frozenset(n for n, r in staff.items() if r == "grader"),
        emails,
    )
