"""Every change of a grade no autograder made: a grader's override of a test cell, a hand grade sent back.

nbgrader's gradebook keeps a grade's ``auto_score`` and ``manual_score``
(the override, or a written answer's hand grade) but not who typed it or
when: its formgrader records no user. The course keeps its own record of overrides,
one entry per change, never rewritten (a :class:`~instructor.coursedir.store.Store`:
every writer appends under its lock)::

    <dir>/overrides.json   [{"student", "assignment", "cell", "from", "to", "by", "at", "seen_by", "what",
                             "answer"}, ...]

* ``what = "override"``: a test cell's ``manual_score`` differs from what the
  autograder gave. Found by :func:`observe` (``course grade``, ``export`` and
  ``report`` run it): ``from`` is the autograded score, ``to`` the override;
  ``by`` is empty (the formgrader does not say) and ``at`` is when a course
  command first saw it, so it was made at that time or before (``seen_by``
  names the account that ran the command). ``answer`` is the sha256 of the
  answer cell the override credited, as the autograded notebook held it.
* ``what = "hand grade reset"``: ``course grade`` took back a hand grade
  because the written answer it graded changed (``from`` the old points,
  ``to`` None); ``by`` is ``course grade`` and ``at`` exact.
* ``what = "override reset"``: the same for an override of a test cell whose
  answer changed: the cell goes back to its autograded score and waits for a
  grader (``from`` the override, ``to`` None).
"""

from __future__ import annotations

import hashlib
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, TypeAdapter

from instructor.cells import grade_id, is_graded_test, task_of
from instructor.coursedir import gradebook, journal
from instructor.coursedir.store import Store
from instructor.errors import CourseError

if TYPE_CHECKING:
    from instructor.coursedir.course_dir import CourseDir

SHOWN = "%Y-%m-%d %H:%M UTC"


class Change(BaseModel):
    """One entry of the overrides file (the module doc says what each field holds)."""

    # extra keys are kept as they were written (a later version's, a person's note); "from" is a keyword
    model_config = ConfigDict(extra="allow", frozen=True)

    student: str
    assignment: str
    cell: str
    from_: float = Field(0.0, validation_alias=AliasChoices("from", "from_"), serialization_alias="from")
    to: float | None = None
    by: str = ""
    at: str = ""
    seen_by: str = ""
    what: str = "override"
    #: sha256 of the source of the answer cell an override credited ("" if not known)
    answer: str = ""

    def shown(self) -> dict:
        """The entry as the file spells it (``from``, not ``from_``), for tables and pages."""
        return self.model_dump(by_alias=True)

    def key(self) -> tuple:
        """The same override seen twice has the same key (student, assignment, cell, from, to)."""
        return self.student, self.assignment, self.cell, self.from_, self.to


def overrides_store(course_dir: CourseDir) -> Store[list[Change]]:
    """The store of ``<dir>/overrides.json``."""
    return Store(course_dir.overrides, TypeAdapter(list[Change]), list)


def now() -> str:
    return datetime.now(UTC).strftime(SHOWN)


def entries(course_dir: CourseDir) -> list[Change]:
    """Every change recorded, oldest first ([] if none or unreadable)."""
    return overrides_store(course_dir).read_or_empty()


def add(course_dir: CourseDir, *new: Change) -> None:
    """Append entries: under the overrides file's lock, read again, written whole (a kill leaves the old list).

    An entry whose :meth:`Change.key` the overrides file holds already is an override
    seen again (the formgrader and ``course grade`` both note it) and is not
    added twice. An overrides file that cannot be read stops here, in one sentence,
    rather than be written over.
    """
    if not new:
        return
    with overrides_store(course_dir).update() as changes:
        known = {e.key() for e in changes if e.what == "override"}
        for entry in new:
            if entry.what != "override" or entry.key() not in known:
                changes.append(entry)
                known.add(entry.key())


def credited_answers(nb) -> dict[str, str]:
    """test cell grade_id -> sha256 of the source of the answer cell it checks, in notebook ``nb``.

    The answer is the cell of the test's task (``metadata.course.task``), else
    the nearest answer cell above the test: the code a student writes
    (nbgrader ``solution``, not graded by hand).
    """
    found: dict[str, str] = {}
    above = None
    by_id = {grade_id(c): c for c in nb.cells if grade_id(c)}
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution") and not meta.get("grade"):
            above = cell
        elif is_graded_test(cell):
            answer = by_id.get(task_of(cell) or "") or above
            if answer is not None and answer.get("metadata", {}).get("nbgrader", {}).get("solution"):
                found[str(grade_id(cell))] = hashlib.sha256(answer.source.encode()).hexdigest()
    return found


def credited_in(path: Path) -> dict[str, str]:
    """:func:`credited_answers` of the notebook at ``path``; {} if there is none or it cannot be read."""
    try:
        return credited_answers(nbformat.read(str(path), as_version=4))
    except (OSError, ValueError, AttributeError, KeyError):
        return {}


def override_of(course_dir: CourseDir, grade, student: str, assignment: str, by: str, seen_by: str) -> Change | None:
    """The overrides file's entry for nbgrader's ``grade`` if it is an override (a test cell's manual score that differs
    from the autograder's), with the answer it credited as the autograded notebook holds it now; else None."""
    if grade.auto_score is None or grade.manual_score is None or grade.manual_score == grade.auto_score:
        return None
    notebook = course_dir.autograded_notebook(student, assignment, grade.notebook.name)  # as the formgrader shows it
    return Change(
        student=student,
        assignment=assignment,
        cell=grade.name,
        from_=grade.auto_score,
        to=grade.manual_score,
        at=now(),
        what="override",
        answer=credited_in(notebook).get(grade.name, ""),
        by=by,
        seen_by=seen_by,
    )


def observe(course_dir: CourseDir, gb, command: str) -> list[Change]:
    """Record every override the gradebook ``gb`` holds that the overrides file lacks; returns the current ones.

    An override is a test cell (one the autograder scored) whose ``manual_score``
    is set and differs from its ``auto_score``. The entries returned are the
    file's, so ``at`` is when the override was first seen.
    """
    known = {e.key(): e for e in entries(course_dir) if e.what == "override"}
    current, new = [], []
    for assignment in gb.assignments:
        for sub in assignment.submissions:
            for notebook in sub.notebooks:
                for grade in notebook.grades:
                    if grade.auto_score is None or grade.manual_score is None or grade.manual_score == grade.auto_score:
                        continue
                    key = (sub.student.id, assignment.name, grade.name, grade.auto_score, grade.manual_score)
                    if key not in known:
                        seen_by = f"{journal.account(os.geteuid())} (course {command})"
                        entry = override_of(course_dir, grade, sub.student.id, assignment.name, by="", seen_by=seen_by)
                        if entry is None:
                            continue
                        known[key] = entry
                        new.append(entry)
                    current.append(known[key])
    add(course_dir, *new)
    return current


def observe_course(course_dir: CourseDir, command: str) -> list[Change]:
    """:func:`observe` on the course directory's own gradebook; [] while it has none (nothing graded)."""
    if not gradebook.exists(course_dir.gradebook_url):
        return []
    with Gradebook(course_dir.gradebook_url) as gb:
        return observe(course_dir, gb, command)


def words(entry: Change) -> str:
    """One override (or reset) in words: cell, from -> to, who, when."""
    to = "needs grading" if entry.to is None else f"{entry.to:g}"
    who = entry.by or "a grader the formgrader does not name"
    when = f"at {entry.at}" if entry.by else f"first seen {entry.at or '?'}"
    return f"{entry.cell}: {entry.from_:g} -> {to} ({entry.what} by {who}, {when})"


# --------------------------------------------------------------------------- grades given by a `course` command


def give(
    course_dir: CourseDir, assignment: str, student: str, cell: str, points: float | None, extra: float | None = None
):
    """Give ``student``'s ``cell`` of ``assignment`` ``points`` by hand (None: take them back), as the formgrader's
    Save does: into the gradebook, into this account's grade journal (opened first) and, for a test cell, into
    the overrides. Returns the cell's scores as saved: ``auto``, ``manual``, ``extra``."""
    me = journal.account(os.geteuid())
    with journal.writer(course_dir) as journalled, Gradebook(course_dir.gradebook_url) as gb:
        try:
            grade = gb.find_grade(cell, assignment, assignment, student)
        except MissingEntry:
            raise CourseError(f"the gradebook has no graded cell {cell!r} in {student}'s {assignment}.") from None
        for value, what in ((points, "POINTS"), (extra, "--extra-credit")):
            if value is not None and not 0 <= value <= (grade.max_score or 0):
                raise CourseError(f"{what} must be between 0 and the cell's {grade.max_score:g} points.")
        grade.manual_score, grade.extra_credit = points, extra
        # as nbgrader's formgrader: a cell with no score at all waits for a grader again
        grade.needs_manual_grade = points is None and grade.auto_score is None
        gb.db.commit()
        journalled.write(journal.hand_line(grade))
        entry = override_of(course_dir, grade, student, assignment, by=me, seen_by="course override")
        saved = {"auto": grade.auto_score, "manual": grade.manual_score, "extra": grade.extra_credit}
    if entry is not None:
        add(course_dir, entry)
    return saved


def accept(course_dir: CourseDir) -> list[dict]:
    """Take every score of the gradebook that no journal line explains as this account's (``accepted`` lines);
    returns the lines written. A journal that cannot be read is not settled here (``course export`` says why)."""
    if not gradebook.exists(course_dir.gradebook_url):
        return []
    with journal.writer(course_dir) as journalled, Gradebook(course_dir.gradebook_url) as gb:
        entries, _ = journal.read_journals(course_dir)
        cells, _ = journal.replay(entries)
        lines = []
        for key, values in sorted(journal.found_in(gb).items()):
            said = cells[key].values if key in cells else {}
            wrong = {k: v for k, v in values.items() if not journal.same(v, said.get(k, (None, None))[0])}
            if wrong:
                lines.append({**journal.line(journal.ACCEPTED, *key), **wrong})
        journalled.write(*lines)
    return lines
