"""Per-student extensions: a later due date for one student's assignment (``course extend``).

Kept in the course directory, one entry per assignment and student, readable
and editable by a person::

    <dir>/extensions.json
    {"01_rnn": {"amy": {"days": 3, "because": "ill, note from the doctor",
                        "granted_by": "ana", "granted_on": "2026-10-06 09:12 UTC"}}}

An entry holds either ``until`` (the student's own due date, absolute, UTC)
or ``days`` (how much later than the class's due date; fractional days are
allowed: 0.5 is twelve hours). ``until`` stays put when the class's due date
moves; ``days`` moves with it. A new grant replaces the old one: extensions
do not add up (as in nbgrader's ``grant_extension``).

nbgrader stores an extension as a duration added to the assignment's due
date (``SubmittedAssignment.extension``); :func:`extension_for` gives that
duration, and the grading package writes it into the gradebook.
"""

from __future__ import annotations

import getpass
import math
from datetime import UTC, datetime, timedelta
from typing import Annotated

import dateutil.tz
from nbgrader.utils import parse_utc
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    field_serializer,
    field_validator,
    model_validator,
)

from instructor.coursedir.course_dir import CourseDir
from instructor.coursedir.ids import STUDENT_ID_RULE, is_student_id
from instructor.coursedir.store import Store
from instructor.errors import CourseError

#: how dates are written in the file (the form ``course init --due`` writes)
STORED = "%Y-%m-%d %H:%M:%S UTC"
#: how dates are shown
SHOWN = "%Y-%m-%d %H:%M UTC"
#: a longer extension is taken for a typo (a year is longer than any term)
MAX_DAYS = 365
#: a reason is kept to this length
MAX_BECAUSE = 300


class Extension(BaseModel):
    """One student's extension of one assignment, as the file holds it (under its assignment and student)."""

    model_config = ConfigDict(frozen=True)

    # the file's keys, not fields of its entries
    student: str = Field("", exclude=True)
    assignment: str = Field("", exclude=True)
    until: str = ""  # the student's due date (UTC, as STORED), or ""
    days: float | None = None  # or: days after the class's due date
    because: str = ""
    granted_by: str = ""
    granted_on: str = ""  # UTC, as SHOWN

    @field_validator("until")
    @classmethod
    def _until(cls, text: str) -> str:
        """A date written by hand is read as --until reads it, and kept in UTC."""
        return _sentence(lambda: parse_until(text).strftime(STORED)) if text else ""

    @field_validator("days")
    @classmethod
    def _days(cls, days: float | None) -> float | None:
        return None if days is None else _sentence(lambda: parse_days(days))

    @model_validator(mode="after")
    def _one_date(self) -> Extension:
        if bool(self.until) == (self.days is not None):
            raise ValueError("each entry holds either 'until' or 'days'")
        return self

    @field_serializer("days")
    def _whole_days(self, days: float | None) -> float | int | None:
        # whole days are written as whole numbers: the file is read by people too
        return int(days) if days is not None and days.is_integer() else days

    def delay(self, duedate: datetime) -> timedelta:
        """How much later than the class's ``duedate`` (naive UTC) the student's falls."""
        if self.until:
            return parse_utc(self.until) - duedate
        if self.days is None:
            raise ValueError("an extension holds either 'until' or 'days'")
        return timedelta(days=self.days)

    def student_due(self, duedate: datetime | None) -> datetime | None:
        """The student's own due date (naive UTC), given the class's; None if it depends on a date not set."""
        if self.until:
            return parse_utc(self.until)
        return None if duedate is None else duedate + self.delay(duedate)


def _sentence(check):
    """``check()``, its CourseError turned into the ValueError a validator raises (its sentence kept)."""
    try:
        return check()
    except CourseError as err:
        raise ValueError(str(err)) from None


def _name(text: str) -> str:
    if not is_student_id(text):
        raise ValueError(f"{text!r} is not a valid student id or assignment name ({STUDENT_ID_RULE})")
    return text


Name = Annotated[str, AfterValidator(_name)]
#: the file: {assignment: {student: extension}}
Granted = dict[Name, dict[Name, Extension]]


# --------------------------------------------------------------------------- checks


def require_ids(student: str, assignment: str) -> None:
    """One sentence if ``student`` or ``assignment`` is no valid name (the roster's id rule for both)."""
    if not is_student_id(student):
        raise CourseError(f"{student!r} is not a valid student id ({STUDENT_ID_RULE}).")
    if not is_student_id(assignment):
        raise CourseError(f"{assignment!r} is not a valid assignment name ({STUDENT_ID_RULE}).")


def class_due(course_dir: CourseDir, assignment: str) -> datetime:
    """The class's due date of ``assignment`` (naive UTC, as nbgrader keeps it); one sentence if none is set."""
    dates = course_dir.due
    if assignment not in dates:
        known = f" (due dates are set for {', '.join(sorted(dates))})" if dates else ""
        raise CourseError(
            f"{assignment} has no due date{known}, so there is nothing to extend: set one with "
            f"`course init --due {assignment}=DATE`."
        )
    return parse_utc(dates[assignment])


def parse_until(text: str) -> datetime:
    """``--until DATE`` -> naive UTC, read as nbgrader reads dates (``course init --due`` too).

    A date without a zone is UTC. nbgrader takes a third word as a zone name
    and reads one it does not know (``+02:00``, ``CEST``) as UTC, silently:
    that is refused here, so no extension is off by hours.
    """
    text = " ".join(text.split())  # nbgrader splits on single spaces
    words = text.split(" ")
    if len(words) == 3 and not _known_zone(words[2]):
        raise CourseError(
            f"{words[2]!r} is not a time zone nbgrader knows: write UTC, a name such as "
            "Europe/Berlin, or no zone for UTC."
        )
    try:
        return parse_utc(text)
    except Exception:  # dateutil raises several types
        raise CourseError(f"{text!r} is not a date (try '2026-10-08 17:00 UTC').") from None


def _known_zone(word: str) -> bool:
    """Is ``word`` a zone name nbgrader's parse_utc reads (it takes a bare number as seconds: not offered)?"""
    return not word.lstrip("+-").isdigit() and dateutil.tz.gettz(word) is not None


def parse_days(text: str | float) -> float:
    """``--days N`` -> N, a number of days above 0 and at most :data:`MAX_DAYS` (fractions allowed)."""
    try:
        days = float(text)
    except (TypeError, ValueError):
        raise CourseError(f"--days takes a number of days (e.g. 3, or 0.5 for twelve hours), not {text!r}.") from None
    if not math.isfinite(days) or not 0 < days <= MAX_DAYS:
        raise CourseError(f"--days must be more than 0 and at most {MAX_DAYS}, not {text}.")
    return days


# --------------------------------------------------------------------------- the file


def granted(course_dir: CourseDir) -> Store[Granted]:
    """The store of ``<dir>/extensions.json``."""
    return Store(course_dir.extensions, TypeAdapter(Granted), dict)


def read(course_dir: CourseDir) -> dict[tuple[str, str], Extension]:
    """Every extension of the course directory, by (student, assignment); {} if none was granted.

    A file that cannot be read stops whoever asks, in one sentence: grading on
    without it would quietly give late penalties a person took back.
    """
    return _flat(granted(course_dir).read())


def _flat(nested: Granted) -> dict[tuple[str, str], Extension]:
    return {
        (student, assignment): ext.model_copy(update={"student": student, "assignment": assignment})
        for assignment, students in nested.items()
        for student, ext in students.items()
    }


# --------------------------------------------------------------------------- what `course extend` does


def find(course_dir: CourseDir, student: str, assignment: str) -> Extension | None:
    """The extension of ``student``'s ``assignment``, or None."""
    return read(course_dir).get((student, assignment))


def listing(course_dir: CourseDir) -> list[Extension]:
    """Every extension, by assignment then student."""
    return sorted(read(course_dir).values(), key=lambda e: (e.assignment, e.student))


def grant(
    course_dir: CourseDir,
    student: str,
    assignment: str,
    *,
    until: str | None = None,
    days: str | float | None = None,
    because: str = "",
    by: str | None = None,
) -> Extension:
    """Give ``student`` a later due date for ``assignment`` (replacing any earlier extension); returns it.

    ``until``: the student's due date (a date string), after the class's;
    ``days``: how many days after the class's. Exactly one of them.
    """
    require_ids(student, assignment)
    if (until is None) == (days is None):
        raise CourseError("give the new due date with --until DATE or --days N (one of them).")
    duedate = class_due(course_dir, assignment)
    when: dict = {}
    if until is not None:
        date = parse_until(until)
        if date <= duedate:
            raise CourseError(
                f"{date:{SHOWN}} is not after the class's due date of {assignment} "
                f"({duedate:{SHOWN}}): an extension gives more time, never less."
            )
        when["until"] = date.strftime(STORED)
    elif days is not None:
        when["days"] = parse_days(days)
    ext = Extension(
        student=student,
        assignment=assignment,
        **when,
        because=" ".join(because.split())[:MAX_BECAUSE],
        granted_by=by or getpass.getuser(),
        granted_on=datetime.now(UTC).strftime(SHOWN),
    )
    with granted(course_dir).update() as nested:
        nested.setdefault(assignment, {})[student] = ext
        _in_order(nested)
    return ext


def _in_order(nested: Granted) -> None:
    """Sort the file by assignment, then student (a person reads it)."""
    ordered = {a: dict(sorted(students.items())) for a, students in sorted(nested.items()) if students}
    nested.clear()
    nested.update(ordered)


def remove(course_dir: CourseDir, student: str, assignment: str) -> Extension:
    """Take back ``student``'s extension of ``assignment``; returns what was removed. One sentence if there is none."""
    require_ids(student, assignment)
    with granted(course_dir).update() as nested:
        ext = nested.get(assignment, {}).pop(student, None)
        if ext is None:
            raise CourseError(f"{student} has no extension of {assignment}; `course extend --list` shows them all.")
        _in_order(nested)
    return ext.model_copy(update={"student": student, "assignment": assignment})


def extension_for(course_dir: CourseDir, student: str, assignment: str, duedate: datetime | None) -> timedelta | None:
    """What nbgrader adds to the class's ``duedate`` (naive UTC) for this student; None for no extension.

    None too when the assignment has no due date (nothing to be late for) and
    when an ``until`` no longer falls after a class's due date moved later:
    an extension never makes a student's due date earlier than the class's.
    """
    return delay_of(find(course_dir, student, assignment), duedate)


def delay_of(ext: Extension | None, duedate: datetime | None) -> timedelta | None:
    """:func:`extension_for` of the extension ``ext`` found already (None: none granted), without reading a file."""
    if ext is None or duedate is None:
        return None
    delay = ext.delay(duedate)
    return delay if delay > timedelta(0) else None
