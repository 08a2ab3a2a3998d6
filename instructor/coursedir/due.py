"""Due dates: written in the course directory's settings, copied into the gradebook."""

from __future__ import annotations

from nbgrader.api import Gradebook
from nbgrader.utils import parse_utc
from traitlets import Dict
from traitlets.config import Configurable

from instructor.coursedir import gradebook
from instructor.errors import CourseError


class DueDates(Configurable):
    """Due dates by assignment, kept in the course directory's configuration.

    nbgrader reads a due date from the gradebook only; ``course`` copies these
    into it whenever it prepares an assignment, so the config file stays the
    one place where they are written.
    """

    dates = Dict({}, help="assignment -> due date, e.g. {'01_rnn': '2026-10-05 17:00:00 UTC'}").tag(config=True)


def parse_due(items: list[str]) -> dict[str, str]:
    """``A=DATE`` pairs -> {assignment: normalised UTC date}; one-sentence errors."""
    found = {}
    for item in items:
        name, sep, when = item.partition("=")
        if not sep or not name.strip() or not when.strip():
            raise CourseError(f"--due takes ASSIGNMENT=DATE (e.g. 01_rnn='2026-10-05 17:00 UTC'), not {item!r}.")
        try:
            found[name.strip()] = parse_utc(when.strip()).strftime("%Y-%m-%d %H:%M:%S UTC")
        except Exception:  # dateutil raises several types
            raise CourseError(f"{when.strip()!r} is not a date (try '2026-10-05 17:00 UTC').") from None
    return found


def apply_due_dates(dates: dict[str, str], db_url: str, assignments: list[str]) -> None:
    """Copy the configured due ``dates`` of ``assignments`` into the gradebook (where nbgrader reads them)."""
    wanted = {a: d for a, d in dates.items() if a in assignments}
    if not wanted:
        return
    with Gradebook(db_url) as gb:
        for name, when in wanted.items():
            gb.update_or_create_assignment(name, duedate=parse_utc(when))


def apply_to_recorded(dates: dict[str, str], db_url: str) -> list[str]:
    """Copy the configured due ``dates`` into the gradebook for the assignments it already records.

    ``course init --due`` calls it, so the formgrader and nbgrader's own
    commands see a new or moved deadline at once, not at the next release or
    grade. Returns the assignments updated; none if nothing was recorded yet.
    """
    if not dates or not gradebook.exists(db_url):
        return []
    with Gradebook(db_url) as gb:
        recorded = [a.name for a in gb.assignments if a.name in dates]
    apply_due_dates(dates, db_url, recorded)
    return recorded
