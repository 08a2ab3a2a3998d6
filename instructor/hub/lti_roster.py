"""The LMS's membership list (NRPS) beside the course's roster and staff.csv: who is where, and in which role.

In: the members of the course's context as the platform's Names and Role
Provisioning Service lists them (``memberships_url``, each a dict with
``user_id``, ``roles``, and, if the LMS shares them, ``email``, ``name``,
``given_name``, ``family_name``, ``lis_person_sourcedid``, ``status``), the
roster's rows (:func:`instructor.coursedir.roster.read_roster_file`) and
staff.csv's ``{id: role}``. Out: :class:`Comparison`, whose :meth:`~Comparison.lines`
name every difference, and the rows ``course lms roster --add`` imports.

A member is the course's person whose roster (or staff.csv) e-mail is the
member's ``email`` (what a launch logs in by: :mod:`instructor.hub.lti`),
else whose id is the member's ``lis_person_sourcedid`` (the student number
of an LMS fed by the institution's records). Roles, as a launch maps them
(:func:`instructor.hub.lti.lms_rank`): Instructor -> instructor,
TeachingAssistant -> grader, Learner -> student; a member with none of them
(a Mentor, an observer) is named and left alone.

Nobody is dropped: a person on the roster the LMS does not list, staff the
LMS does not list, a member the roster lacks, an inactive member, a role
that differs, each is a line. Only students are ever added (``--add``), and
only to the roster: staff.csv says who is instructor (it is root's; an LMS
role never makes anyone staff here).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from instructor.coursedir.ids import is_student_id
from instructor.hub import lti
from instructor.hub.staff import is_login

LEARNER = "Learner"


@dataclass(frozen=True)
class Member:
    """One person of the LMS's course, with the course role the platform's roles map to ("" for none)."""

    user_id: str
    role: str
    email: str = ""
    name: str = ""
    given_name: str = ""
    family_name: str = ""
    sourcedid: str = ""
    status: str = "Active"

    @property
    def words(self) -> str:
        """How a line names the member: name, e-mail, the LMS's id."""
        return " ".join(filter(None, [self.name or self.sourcedid, f"<{self.email}>" if self.email else ""])) + (
            f" (LMS user {self.user_id})"
        )


def course_role(roles: Any) -> str:
    """instructor, grader, student, or "" for a member with no role the course maps (see above)."""
    rank = lti.RANKS[lti.lms_rank(roles)]
    if rank != "student":
        return rank
    names = [r for r in roles if isinstance(r, str)] if isinstance(roles, list) else []
    return "student" if any(r == LEARNER or r.endswith(f"membership#{LEARNER}") for r in names) else ""


def members(payload: list[Any]) -> list[Member]:
    """The NRPS ``members`` array as :class:`Member` (an entry without ``user_id`` is skipped: nothing names it)."""
    found = []
    for m in payload:
        if not isinstance(m, dict) or not m.get("user_id"):
            continue

        def text(key: str, m: dict = m) -> str:
            value = m.get(key)
            return value.strip() if isinstance(value, str) else ""

        found.append(
            Member(
                str(m["user_id"]),
                course_role(m.get("roles")),
                text("email").lower(),
                text("name"),
                text("given_name"),
                text("family_name"),
                text("lis_person_sourcedid"),
                text("status") or "Active",
            )
        )
    return found


@dataclass
class Comparison:
    """The LMS's members matched to the course's people, and every difference."""

    matched: dict[str, Member] = field(default_factory=dict)  # course id -> member
    roster_only: list[str] = field(default_factory=list)  # on the roster, not in the LMS
    staff_only: list[str] = field(default_factory=list)  # in staff.csv, not in the LMS
    lms_students: list[Member] = field(default_factory=list)  # the LMS's Learners the roster lacks
    lms_staff: list[Member] = field(default_factory=list)  # the LMS's Instructors/TAs staff.csv lacks
    other_roles: list[Member] = field(default_factory=list)  # no Learner, Instructor or TA role
    inactive: list[tuple[str, Member]] = field(default_factory=list)  # matched, but not Active in the LMS
    roles_differ: list[tuple[str, str, str]] = field(default_factory=list)  # (id, the course's role, the LMS's)

    @property
    def differences(self) -> int:
        lists: list[list[Any]] = [
            self.roster_only,
            self.staff_only,
            self.lms_students,
            self.lms_staff,
            self.other_roles,
            self.inactive,
            self.roles_differ,
        ]
        return sum(len(x) for x in lists)

    def user_ids(self) -> dict[str, str]:
        """{course id: LMS user id} of the matched, active members (whom grades go to)."""
        return {cid: m.user_id for cid, m in self.matched.items() if m.status == "Active"}

    def lines(self) -> list[str]:
        """One line per difference, grouped, each naming the person."""
        out = []
        for title, names in (
            ("on the roster, not in the LMS (kept on the roster)", self.roster_only),
            ("in staff.csv, not in the LMS (kept in staff.csv)", self.staff_only),
        ):
            if names:
                out.append(f"{title}: {len(names)}")
                out += [f"  {n}" for n in names]
        for title, people in (
            ("Learners in the LMS, not on the roster (`--add` adds them)", self.lms_students),
            (
                "Instructors or TAs in the LMS, not in staff.csv (root adds them there, if they are staff)",
                self.lms_staff,
            ),
            ("in the LMS with no Learner, Instructor or TeachingAssistant role (left alone)", self.other_roles),
        ):
            if people:
                out.append(f"{title}: {len(people)}")
                out += [f"  {m.words}" for m in people]
        if self.inactive:
            out.append(f"not active in the LMS (no grade is sent to them): {len(self.inactive)}")
            out += [f"  {cid}: {m.status}" for cid, m in self.inactive]
        if self.roles_differ:
            out.append(f"roles that differ (the course's role stands; staff.csv decides): {len(self.roles_differ)}")
            out += [
                f"  {cid}: {ours} here, {theirs or 'no mapped role'} in the LMS"
                for cid, ours, theirs in self.roles_differ
            ]
        return out


def compare(
    found: list[Member], roster_rows: list[dict[str, str]], staff: dict[str, str], staff_emails: dict[str, str]
) -> Comparison:
    """Match the LMS's members to the roster's rows, staff.csv's ``{id: role}`` and its ``{e-mail: id}``.

    By e-mail first, then by student number (``lis_person_sourcedid`` = the course's id)."""
    course = {r["id"]: "student" for r in roster_rows} | dict(staff)
    by_email = {r["email"].strip().lower(): r["id"] for r in roster_rows if r.get("email", "").strip()}
    by_email |= {e.lower(): sid for e, sid in staff_emails.items()}
    c = Comparison()
    for m in found:
        cid = by_email.get(m.email) if m.email else None
        if cid is None and m.sourcedid in course:
            cid = m.sourcedid
        if cid is None or cid in c.matched:
            if m.role == "student":
                c.lms_students.append(m)
            elif m.role:
                c.lms_staff.append(m)
            else:
                c.other_roles.append(m)
            continue
        c.matched[cid] = m
        if m.status != "Active":
            c.inactive.append((cid, m))
        if m.role != course[cid]:
            c.roles_differ.append((cid, course[cid], m.role))
    c.roster_only = sorted(r["id"] for r in roster_rows if r["id"] not in c.matched)
    c.staff_only = sorted(s for s in staff if s not in c.matched)
    return c


def new_rows(lms_students: list[Member], taken: set[str]) -> tuple[list[dict[str, str]], list[str]]:
    """Roster rows for the LMS's Learners the roster lacks, and a line for each who cannot get an id.

    The id is the member's ``lis_person_sourcedid`` if it is one (a login name,
    since each student gets a Unix account), else the part of the e-mail
    before ``@``; an id already taken, or none, is named, not guessed."""
    rows, refused = [], []
    for m in lms_students:
        candidates = [m.sourcedid.lower(), m.email.split("@")[0].lower() if m.email else ""]
        sid = next((c for c in candidates if c and is_login(c) and is_student_id(c)), "")
        if not sid:
            refused.append(f"  {m.words}: no student number or e-mail that is a login name; add her by hand")
        elif sid in taken:
            refused.append(f"  {m.words}: the id {sid} is taken; add her by hand under another")
        else:
            taken.add(sid)
            first = m.given_name or (m.name.split()[0] if m.name else "")
            last = m.family_name or (" ".join(m.name.split()[1:]) if m.name else "")
            rows.append({"id": sid, "first_name": first, "last_name": last, "email": m.email})
    return rows, refused
