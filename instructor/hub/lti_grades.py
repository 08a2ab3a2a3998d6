"""The course's grades into the LMS's gradebook through Assignment and Grade Services (AGS).

In: the graded course directory, read exactly as ``course export`` reads it
(:func:`instructor.reporting.export.rows`, with the student's due dates,
extensions, ``course grade``'s results and the exchange), and the cell rule of
``course export --format canvas`` (:func:`instructor.reporting.canvas.cell`):
a score is sent only when it is final, ``complete`` (the export's ``score``:
raw score minus the late penalty) or ``not submitted`` once the student's
due date has passed (0). An assignment whose class due date has not passed
(or has none, or was never released to the exchange) sends nothing at all,
not even its line item. Out: :class:`Plan`, then :func:`send`'s :class:`Sent`.

On the platform, each assignment is one line item, found by its
``resourceId`` (the assignment's name) and ``tag`` (the course's id), made
if missing, its ``scoreMaximum`` and ``label`` put right if they differ.
Each score goes to the member whose ``user_id`` the roster's person matched
(:mod:`instructor.hub.lti_roster`). A score the platform already holds (its
result, read first: the ``result.readonly`` scope) is not sent again, so a
second send changes nothing; a changed grade (a regrade, an override) is
sent with a new timestamp, later than any sent before, as AGS requires.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from nbgrader.api import Gradebook
from nbgrader.utils import parse_utc

from instructor.coursedir import journal
from instructor.coursedir.course_dir import CourseDir
from instructor.grading.record import read_results
from instructor.hub.lti_services import LINEITEM, LINEITEMS, RESULTS, SCORE, ServiceError, Services, sub_url
from instructor.reporting.canvas import cell, why_empty
from instructor.reporting.export import released_in, rows, student_due
from instructor.settings import COURSE_ID

#: a score the platform holds is this one if it differs by less (points, as floats)
SAME = 1e-6


@dataclass(frozen=True)
class Score:
    """One final grade: ``given`` of ``maximum`` points for ``student`` in ``assignment``."""

    student: str
    assignment: str
    given: float
    maximum: float
    submitted: bool


@dataclass
class Plan:
    """What the course's grades say to send, and what is held back and why."""

    assignments: dict[str, float] = field(default_factory=dict)  # due assignment -> its points, in order
    scores: list[Score] = field(default_factory=list)
    held: list[tuple[str, str, str]] = field(default_factory=list)  # (student, assignment, why no score yet)
    not_due: list[tuple[str, str]] = field(default_factory=list)  # (assignment, why nothing of it is sent)


def class_due(course_dir: CourseDir, name: str, gradebook_due: datetime | None) -> datetime | None:
    """The class's due date of an assignment: the settings' (``course init --due``), else the gradebook's."""
    written = course_dir.due.get(name)
    return parse_utc(written) if written else gradebook_due


def plan(course_dir: CourseDir, now: datetime | None = None) -> Plan:
    """The scores to send, from the grades ``course export`` writes (never computed again here)."""
    now = now or datetime.now(UTC).replace(tzinfo=None)
    released = released_in(course_dir)
    out = Plan()
    with Gradebook(course_dir.graded_gradebook()) as gb:
        journal.require_explained(course_dir, gb)  # a score no tool wrote stops the send, as it stops the export
        due = []
        for a in gb.assignments:
            when = class_due(course_dir, a.name, a.duedate)
            if released is not None and not released(a.name):
                out.not_due.append((a.name, "not released to the course's exchange"))
            elif when is None:
                out.not_due.append((a.name, "no due date is set"))
            elif when > now:
                out.not_due.append((a.name, f"due {when:%Y-%m-%d %H:%M} UTC"))
            else:
                due.append(a.name)
                out.assignments[a.name] = float(a.max_score)
        students = {s.id for s in gb.students}
        found = rows(
            gb,
            due,
            (),
            read_results(course_dir),
            now=now,
            due_of=student_due(course_dir, course_dir.due),
            released=released,
        )
    for row in found:
        if not due or row["student_id"] not in students:
            continue  # an ungraded submission of someone off the roster: `course export` lists it
        if cell(row):
            given = float(row["score"]) if row["status"] == "complete" else 0.0
            out.scores.append(
                Score(row["student_id"], row["assignment"], given, float(row["max_score"]), row["status"] == "complete")
            )
        else:
            out.held.append((row["student_id"], row["assignment"], f"{row['status']}: {why_empty(row)}".rstrip(": ")))
    return out


@dataclass
class Sent:
    """What one send did on the platform."""

    items_made: list[str] = field(default_factory=list)
    items_updated: list[str] = field(default_factory=list)
    sent: list[Score] = field(default_factory=list)
    unchanged: int = 0
    not_in_lms: list[tuple[str, str]] = field(default_factory=list)  # (student, assignment): no LMS user to send to


def line_items(services: Services, url: str) -> dict[str, dict[str, Any]]:
    """The course's line items on the platform, by resourceId (only those tagged with the course's id)."""
    found: dict[str, dict[str, Any]] = {}
    for item in services.get_all(url, LINEITEMS, "the line items"):
        if isinstance(item, dict) and item.get("tag") == COURSE_ID and item.get("resourceId") and item.get("id"):
            found.setdefault(str(item["resourceId"]), item)
    return found


def timestamp() -> str:
    """Now, as AGS wants it (ISO 8601 with milliseconds, UTC)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def send(services: Services, the_plan: Plan, user_ids: dict[str, str]) -> Sent:
    """Put the plan's line items and scores on the platform; skip what it already holds."""
    url = services.lineitems_url
    assert url, "Services.from_hub asks lti13.json for lineitems_url"
    done = Sent()
    items = line_items(services, url)
    for name, maximum in the_plan.assignments.items():
        want = {"scoreMaximum": maximum, "label": name, "resourceId": name, "tag": COURSE_ID}
        item = items.get(name)
        if item is None:
            item = services.post(url, LINEITEM, want, f"making the line item of {name}")
            if not isinstance(item, dict) or not item.get("id"):
                raise ServiceError(f"{url} made the line item of {name} but did not say its id.")
            done.items_made.append(name)
        elif float(item.get("scoreMaximum", 0)) != maximum or item.get("label") != name:
            item = services.put(str(item["id"]), LINEITEM, {**item, **want}, f"updating the line item of {name}")
            done.items_updated.append(name)
        assert isinstance(item, dict)
        items[name] = item
    for name in the_plan.assignments:
        item_url = str(items[name]["id"])
        held = {
            str(r.get("userId")): r
            for r in services.get_all(sub_url(item_url, "results"), RESULTS, f"the results of {name}")
            if isinstance(r, dict)
        }
        for score in (s for s in the_plan.scores if s.assignment == name):
            user = user_ids.get(score.student)
            if user is None:
                done.not_in_lms.append((score.student, name))
                continue
            if _holds(held.get(user), score):
                done.unchanged += 1
                continue
            services.post(
                sub_url(item_url, "scores"),
                SCORE,
                {
                    "userId": user,
                    "scoreGiven": score.given,
                    "scoreMaximum": score.maximum,
                    "activityProgress": "Completed" if score.submitted else "Initialized",
                    "gradingProgress": "FullyGraded",
                    "timestamp": timestamp(),
                },
                f"the score of {score.student} in {name}",
                accept="application/json",
            )
            done.sent.append(score)
    return done


def _holds(result: dict[str, Any] | None, score: Score) -> bool:
    """Does the platform's result already say this score (points out of the same maximum)?"""
    if result is None or result.get("resultScore") is None:
        return False
    try:
        given, maximum = float(result["resultScore"]), float(result.get("resultMaximum", 1))
    except (TypeError, ValueError):
        return False
    return abs(given - score.given) < SAME and abs(maximum - score.maximum) < SAME
