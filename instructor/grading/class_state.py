"""What a grading run needs of the class, read once: one frozen value the loop and the record stage share.

Before a run grades anything, after intake and after the assignments are in
the gradebook, the course directory is read once::

    ClassState.read(course_dir, roster)
        roster         the student ids intake checked against (None: no roster)
        due            {assignment: due date in the gradebook (naive UTC) or None}
        extensions     {(student, assignment): Extension}  (<dir>/extensions.json)
        reviews        {(student, assignment): [Clearing, ...]}  (<dir>/reviews/)
        in_gradebook   {(student, assignment)} with a submission in the gradebook
        results        {(student, assignment): Result}  (<dir>/results/, unreadable files left out)

The record stage then decides what a graded submission changes from the
submission and this value alone (:func:`instructor.grading.record.decide`,
no I/O): the value itself answers which clearing covers a submission's flags
(:meth:`ClassState.clearing`) and how much later a student's due date falls
(:meth:`ClassState.extension`); it is written in one place
(:mod:`instructor.coursedir.recorded`). A clearing (``course unflag``) or an
extension (``course extend``) made while a run grades counts from the next run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import MappingProxyType

from instructor.coursedir import extensions, gradebook, reviews
from instructor.coursedir.course_dir import CourseDir
from instructor.coursedir.extensions import Extension
from instructor.coursedir.reviews import Clearing
from instructor.coursedir.store import Unreadable, read_every
from instructor.grading.submission import RESULT_SHAPE, Result, Submission

Key = tuple[str, str]


@dataclass(frozen=True)
class ClassState:
    """The class as a grading run found it (see the module doc); every field read-only."""

    roster: frozenset[str] | None = None
    due: Mapping[str, datetime | None] = field(default_factory=lambda: MappingProxyType({}))
    extensions: Mapping[Key, Extension] = field(default_factory=lambda: MappingProxyType({}))
    #: why extensions.json could not be read ("" if it could): a submission recorded with a grade stops on it
    extensions_unreadable: str = ""
    reviews: Mapping[Key, tuple[Clearing, ...]] = field(default_factory=lambda: MappingProxyType({}))
    in_gradebook: frozenset[Key] = frozenset()
    results: Mapping[Key, Result] = field(default_factory=lambda: MappingProxyType({}))

    def clearing(self, sub: Submission) -> Clearing | None:
        """The newest clearing of ``sub``'s very bytes that covers every one of its flags, or None.

        A regrade of the same bytes that raises no flag beyond those cleared stays
        cleared; a new submission, or a new flag, needs a new look.
        """
        sha = sub.fingerprint.get("submission_sha256", "-")
        for entry in reversed(self.reviews.get(sub.key, ())):
            if entry.submission_sha256 == sha and set(sub.flags) <= set(entry.flags):
                return entry
        return None

    def extension(self, key: Key) -> timedelta | None:
        """What nbgrader adds to the class's due date for (student, assignment) ``key``; None for no extension.

        None too without a due date (nothing to be late for), and for an ``until`` that no
        longer falls after a class's due date moved later (:func:`~instructor.coursedir.extensions.delay_of`).
        """
        return extensions.delay_of(self.extensions.get(key), self.due.get(key[1]))

    @classmethod
    def read(cls, course_dir: CourseDir, roster: set[str] | None = None) -> ClassState:
        """The class's state in ``course_dir``: the one read of its side files and gradebook per run.

        A results file cut short or malformed, or not at its own place, is left out (graded again).
        """
        paths = sorted(course_dir.results.glob("*/*.json"))
        results = {
            result.key: result
            for path, result in read_every(paths, RESULT_SHAPE).items()
            if result is not None and path == course_dir.result(*result.key)
        }
        try:
            granted, unreadable = extensions.read(course_dir), ""
        except Unreadable as err:
            granted, unreadable = {}, str(err)
        return cls(
            roster=frozenset(roster) if roster is not None else None,
            due=MappingProxyType(gradebook.due_dates(course_dir.gradebook_url)),
            extensions=MappingProxyType(granted),
            extensions_unreadable=unreadable,
            reviews=MappingProxyType({k: tuple(v) for k, v in reviews.every(course_dir).items()}),
            in_gradebook=frozenset(gradebook.in_gradebook(course_dir.gradebook_url)),
            results=MappingProxyType(results),
        )
