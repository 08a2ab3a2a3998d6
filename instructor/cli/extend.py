"""course extend: a later due date for one student's assignment, its late penalty recomputed."""

from __future__ import annotations

import sys
from datetime import timedelta

from instructor.cli.options import add_course_dir, add_db
from instructor.coursedir import directory, extensions
from instructor.coursedir.course_dir import EXTENSIONS, CourseDir
from instructor.coursedir.extensions import SHOWN, Extension
from instructor.errors import CourseError
from instructor.grading.extension import Extended, PenaltyChange, due_or_none, extend, remove_extension

NAME = "extend"
HELP = "Give one student a later due date for an assignment (or remove it); the late penalty follows."
EXAMPLES = f"""\
what it does:
  keeps the extension in <dir>/{EXTENSIONS} (who extended, when, why).
  If the submission is already graded, its late penalty is computed again
  at once, by the course directory's late rule, from the student's own due
  date: the grade table, `course export` (its duedate column is the
  student's) and the formgrader follow; run `course feedback` again for
  pages made before. A submission graded later (`course grade`) uses it
  too. A new extension replaces the student's earlier one; they do not add
  up. A student not on the roster gets it, with a warning.

  --until DATE   the student's due date (UTC unless a zone is given); it
                 stays put if the class's due date moves
  --days N       N days after the class's due date (fractions allowed: 0.5
                 is twelve hours); it moves with the class's due date

examples:
  course extend amy 01_rnn --days 3 --because "ill; doctor's note"
  course extend bob 02_seq2seq --until "2026-10-20 12:00 UTC"
  course extend --list
  course extend amy 01_rnn --remove
"""


def add_arguments(p):
    p.add_argument("student", nargs="?", help="student id, as in the grade table")
    p.add_argument("assignment", nargs="?", help="assignment, e.g. 01_rnn")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--until", metavar="DATE", help="the student's due date, e.g. '2026-10-08 17:00 UTC'")
    what.add_argument("--days", metavar="N", help="days after the class's due date (fractions allowed)")
    what.add_argument("--remove", action="store_true", help="remove the student's extension")
    what.add_argument("--list", action="store_true", help="list every extension (of STUDENT and A, if given)")
    p.add_argument("--because", default="", metavar="TEXT", help="why (kept with the extension)")
    add_course_dir(p)
    add_db(p)


def run(args) -> int:
    course_dir = CourseDir.at(directory.resolve(args.course_dir), db=args.db)
    print(f"course directory: {course_dir.path}")
    if args.list:
        print(format_listing(course_dir, args.student, args.assignment))
        return 0
    if not (args.student and args.assignment):
        raise CourseError("name the student and the assignment (course extend STUDENT A --days N), or use --list.")
    if args.remove:
        gone = remove_extension(course_dir, args.student, args.assignment)
        ext = gone.extension
        due, penalty = _due_words(gone, None), _penalty_words(gone.change)
        print(f"{ext.student}/{ext.assignment}: extension removed; {due}; {penalty}")
        return 0
    if args.until is None and args.days is None:
        raise CourseError("give the new due date with --until DATE or --days N (or use --remove or --list).")
    done = extend(course_dir, args.student, args.assignment, until=args.until, days=args.days, because=args.because)
    ext, earlier = done.extension, done.earlier
    if not done.on_roster:  # kept all the same: the roster may be imported later
        print(
            f"course extend: warning: {ext.student} is not on the roster ({course_dir.roster_file}); the "
            "extension is kept, and counts once they are on it and graded.",
            file=sys.stderr,
        )
    replaced = f" (replaces the extension by {earlier.granted_by} on {earlier.granted_on})" if earlier else ""
    print(f"{ext.student}/{ext.assignment}: {_due_words(done, ext)}{replaced}; {_penalty_words(done.change)}")
    return 0


def _due_words(done: Extended, ext: Extension | None) -> str:
    """'due 2026-10-08 17:00 UTC (3 days after the class's)'; without ``ext``, the class's due date."""
    class_due = done.class_due
    if ext is None:
        return f"due {class_due:{SHOWN}} (the class's)" if class_due else "the class's due date (none is set)"
    due = ext.student_due(class_due)
    if due is None:
        return f"due {ext.days:g} day(s) after the class's, which is not set"
    return f"due {due:{SHOWN}} ({span(due - class_due)} after the class's)" if class_due else f"due {due:{SHOWN}}"


def _penalty_words(change: PenaltyChange | None) -> str:
    """'late penalty 2.7 -> 0', or what happens to a submission not graded yet."""
    if change is None:
        return "not graded yet: `course grade` will use it"
    return f"late penalty {change.before:g} -> {change.after:g}"


def span(delta: timedelta) -> str:
    """A duration in words: '3 days', '1 day 12 hours', '45 minutes'; a negative one starts with '-'."""
    sign, minutes = ("-" if delta < timedelta(0) else ""), round(abs(delta.total_seconds()) / 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [
        f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in ((days, "day"), (hours, "hour"), (minutes, "minute")) if n
    ]
    return sign + (" ".join(parts) or "0 minutes")


def format_listing(course_dir: CourseDir, student: str | None = None, assignment: str | None = None) -> str:
    """Every extension as a table: the student's due date, how much later than the class's, who extended, when, why."""
    rows = [
        e
        for e in extensions.listing(course_dir)
        if (not student or e.student == student) and (not assignment or e.assignment == assignment)
    ]
    if not rows:
        return f"no extension ({course_dir.extensions})"
    head = (
        f"{'student':16s} {'assignment':16s} {'due (student)':20s}  {'later by':16s} {'extended by':12s} "
        f"{'extended on':20s}  because"
    )
    lines = [head, "-" * len(head)]
    for e in rows:
        class_due = due_or_none(course_dir, e.assignment)
        due = e.student_due(class_due)
        shown = f"{due:{SHOWN}}" if due else "?"
        later = span(due - class_due) if due and class_due else f"{e.days:g} day(s)" if e.days else "?"
        if due and class_due and due <= class_due:  # the class's due date moved past an --until
            later = "none (class's later)"
        lines.append(
            f"{e.student:16s} {e.assignment:16s} {shown:20s}  {later:16s} {e.granted_by[:12]:12s} "
            f"{e.granted_on:20s}  {e.because}"
        )
    return "\n".join(lines)
