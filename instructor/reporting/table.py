"""The grade table ``course grade`` and ``course demo`` print: the gradebook's points, and why the rest is missing.

Columns: autograded = test-cell points; by hand = hand points of written
answers / max; pending = points nobody has graded yet; late = the penalty;
status in the CSV's words (:func:`status_words`).
"""

from __future__ import annotations

from dataclasses import dataclass

from nbgrader.api import Gradebook, MissingEntry

from instructor.coursedir import gradebook, reviews
from instructor.coursedir.course_dir import CourseDir
from instructor.grading.record import ANSWER_CHANGED, OVERRIDE_CHANGED, read_results


@dataclass(frozen=True)
class Grade:
    """One submission in the grade table (points from the gradebook)."""

    student: str
    assignment: str
    auto_score: float  # points of the test (code) cells, a grader's override included
    auto_max: float
    manual_max: float  # points of the written answers
    needs_manual: bool
    status: str = "graded"  # as shown: graded, flagged, not graded
    reason: str = ""
    manual_score: float = 0.0  # hand points so far
    pending: float = 0.0  # points of written answers nobody has graded yet
    penalty: float = 0.0  # late-submission penalty
    review: int = 0  # hand-graded cells a regrade flagged again (their autograde score changed)


def grades(course_dir: CourseDir, assignments=(), students=()) -> list[Grade]:
    """Every submission (of the named assignments and students, if any): its points, or why it was not graded."""
    if not course_dir.results.is_dir():
        course_dir.graded_gradebook()
    wanted = lambda s, a: (not assignments or a in assignments) and (not students or s in students)  # noqa: E731
    results_left = {k: v for k, v in read_results(course_dir).items() if wanted(*k)}
    rows = []
    url = course_dir.gradebook_url
    if gradebook.exists(url):
        with Gradebook(url) as gb:
            for assignment in gb.assignments:
                for student in gb.students:
                    if not wanted(student.id, assignment.name):
                        continue
                    try:
                        sub = gb.find_submission(assignment.name, student.id)
                    except MissingEntry:
                        continue
                    result = results_left.pop((student.id, assignment.name), None)
                    if result is not None and not result.status.has_grade:
                        # the gradebook has points nbgrader's own autograde gave; course grade refused it
                        rows.append(
                            Grade(student.id, assignment.name, 0.0, 0.0, 0.0, False, "not graded", result.reason)
                        )
                        continue
                    cells = [g for nb in sub.notebooks for g in nb.grades]
                    rows.append(
                        Grade(
                            student.id,
                            assignment.name,
                            sub.code_score,
                            sub.max_code_score,
                            sub.max_written_score,
                            sub.needs_manual_grade,
                            result.status.shown if result else "graded",
                            _reason(result),
                            manual_score=sub.written_score,
                            pending=gradebook.pending_points(sub),
                            penalty=sub.late_submission_penalty or 0.0,
                            review=sum(g.manual_score is not None and g.needs_manual_grade for g in cells),
                        )
                    )
    for (student, assignment), result in sorted(results_left.items()):
        if not result.status.has_grade:
            rows.append(Grade(student, assignment, 0.0, 0.0, 0.0, False, "not graded", result.reason))
    return sorted(rows, key=lambda r: (r.assignment, r.student))


def _reason(result) -> str:
    """A flag's reasons, or the note of the person who cleared them; and any hand grade taken back."""
    if result is None:
        return ""
    if result.status.shown == "flagged":
        return "; ".join([result.reason, *taken_back(result)])
    cleared = [n for n in result.notes if n.startswith(reviews.CLEARED)]
    return "; ".join(cleared[-1:] + taken_back(result))


def taken_back(result) -> list[str]:
    """The notes of hand grades this grading took back: the answer they graded (or overrode the check of) changed."""
    return [n for n in result.notes if n.startswith((ANSWER_CHANGED, OVERRIDE_CHANGED))] if result is not None else []


def status_words(status: str, pending: float) -> str:
    """The status as the table, the CSV and the README word it."""
    if status == "flagged":
        return "flagged for review"
    if status == "not graded":
        return "not graded"
    return "waiting for a grader" if pending else "complete"


def format_table(rows: list[Grade], isolation: str = "") -> str:
    """The table as text, one line per submission (see the module doc for the columns)."""
    head = (
        f"{'student':16s} {'assignment':16s} {'autograded':>12s} {'by hand':>9s} {'pending':>7s} {'late':>6s}  status"
    )
    lines = ([f"isolation: {isolation}"] if isolation else []) + [head, "-" * len(head)]
    for r in rows:
        if r.status == "not graded":
            lines.append(
                f"{r.student[:16]:16s} {r.assignment[:16]:16s} {'-':>12s} {'-':>9s} {'-':>7s} {'-':>6s}  "
                f"not graded: {r.reason}"
            )
            continue
        auto = f"{r.auto_score:g} / {r.auto_max:g}"
        manual = f"{r.manual_score:g} / {r.manual_max:g}" if r.manual_max else "-"
        pending = f"{r.pending:g}" if r.pending else "-"
        late = f"-{r.penalty:g}" if r.penalty else "-"
        status = [status_words(r.status, r.pending) + (f": {r.reason}" if r.reason else "")]
        if r.review:
            status.append(f"{r.review} hand grade(s) to review again: their autograde score changed")
        lines.append(
            f"{r.student:16s} {r.assignment:16s} {auto:>12s} {manual:>9s} {pending:>7s} {late:>6s}  "
            + "; ".join(status)
        )
    return "\n".join(lines)
