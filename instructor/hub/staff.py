"""Who is on the hub: staff from ``<course dir>/staff.csv``, students from the roster.

``staff.csv`` has two columns, ``id,role``; the role is ``instructor`` (hub
admin, the formgrader) or ``grader`` (the formgrader). Ids follow the roster's
rule and must also be valid Unix login names, since each person gets an account.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path

from instructor.coursedir import roster
from instructor.errors import CourseError

STAFF_NAME = "staff.csv"
ROLES = ("instructor", "grader")
#: what Debian's useradd accepts without --badname (and JupyterHub keeps as is: lower case)
_LOGIN = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")


def is_login(name: str) -> bool:
    return bool(_LOGIN.match(name))


@dataclass(frozen=True)
class People:
    """The hub's users: ``students`` (the roster), ``instructors`` and ``graders`` (staff.csv)."""

    students: frozenset[str]
    instructors: frozenset[str]
    graders: frozenset[str]
    #: {e-mail: id} of the roster's students who have one
    emails: dict[str, str] = field(default_factory=dict)

    @property
    def staff(self) -> frozenset[str]:
        return self.instructors | self.graders

    @property
    def everyone(self) -> frozenset[str]:
        return self.students | self.staff


def read_staff(path: Path) -> dict[str, str]:
    """``{id: role}`` from a staff CSV, checked."""
    with path.open(newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    found: dict[str, str] = {}
    for line, row in enumerate(rows, start=2):
        name, role = (row.get("id") or "").strip(), (row.get("role") or "").strip().lower()
        if not name:
            continue
        if role not in ROLES:
            raise CourseError(f"{path}, line {line}: role {role!r} is not one of {', '.join(ROLES)}.")
        found[name] = role
    return found


def people(course_path: Path) -> People:
    """Students and staff of the course directory ``course_path``; a one-sentence error if either is missing."""
    path = course_path / STAFF_NAME
    if not path.is_file():
        raise CourseError(
            f"{path} does not exist: name the instructors and graders there "
            f"(two columns, `id,role`, role instructor or grader)."
        )
    staff = read_staff(path)
    if "instructor" not in staff.values():
        raise CourseError(f"{path} names no instructor.")
    students = roster.roster(course_path)
    if not students:
        raise CourseError(f"{course_path} has no roster: run `course roster import class.csv` first.")
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
        for row in roster.read_roster_file(course_path / roster.ROSTER_NAME)
        if (row.get("email") or "").strip()
    }
    return People(
        frozenset(students),
        frozenset(n for n, r in staff.items() if r == "instructor"),
        frozenset(n for n, r in staff.items() if r == "grader"),
        emails,
    )
