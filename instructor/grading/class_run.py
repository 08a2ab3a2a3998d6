"""A class graded and recorded: what is up to date kept, the rest graded by the tasks given, each recorded on arrival.

The coordinating process is the only writer of the gradebook: it records
each graded submission as soon as it arrives and then lets go of its
notebook, so its memory does not grow with the size of the class::

    record_class(course_dir, subs, state, tasks, force, watch)
        1. split      a submission whose recorded result is up to date is kept (resume); force: none is
        2. watch      told the run once it is split (watch.split: how many were kept)
        3. tasks      the rest graded where the caller runs them (here, or on Dask workers), as they finish
        4. record     each one recorded (grading.record), then told to watch (watch.recorded)

Where the tasks run and what the instructor sees are the caller's
(:func:`instructor.scheduling.loop.grade_class`): both are handed in, so this
loop reads the class once, decides, and writes through the record stage only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Protocol

from instructor.coursedir.course_dir import CourseDir
from instructor.grading import resume
from instructor.grading.class_state import ClassState
from instructor.grading.record import record, record_failure
from instructor.grading.submission import Result, Submission

#: tasks to grade: (submission as intake found it, its fingerprint)
Todo = list[tuple[Submission, dict]]
#: where the tasks run: the tasks in, graded submissions out as they finish
Tasks = Callable[[Todo], Generator[Submission, None, None]]


@dataclass
class ClassRun:
    """What a grading run did: each submission's result, and how many were up to date already."""

    results: list[Result] = field(default_factory=list)
    skipped: int = 0
    mode: str = "serial"

    def counts(self) -> dict[str, int]:
        """How many ended graded, flagged and not graded (a failure of the autograder counts as not graded)."""
        return {
            shown: sum(r.status.shown == shown for r in self.results) for shown in ("graded", "flagged", "not graded")
        }


class Watch(Protocol):
    """What a grading run tells as it goes (:class:`instructor.scheduling.progress.Shown` shows it)."""

    def split(self, run: ClassRun) -> None:
        """The submissions are split: ``run.skipped`` were up to date and kept."""

    def recorded(self, run: ClassRun) -> None:
        """One more result is recorded: ``run.results[-1]``."""


def record_class(
    course_dir: CourseDir,
    subs: list[Submission],
    state: ClassState,
    tasks: Tasks,
    force: bool,
    watch: Watch,
    mode: str = "serial",
) -> ClassRun:
    """Keep what is up to date in ``state`` (nothing with ``force``), grade the rest with ``tasks``, record each.

    ``watch.split(run)`` is called once the submissions are split, ``watch.recorded(run)`` after each result.
    """
    run = ClassRun(mode=mode)
    todo = []
    for sub in subs:
        print_ = resume.fingerprint(course_dir, sub)
        kept = None if force else resume.recorded(state, sub, print_)
        if kept is not None and kept.status.has_grade and sub.key not in state.in_gradebook:
            kept = None  # the gradebook lost it (deleted, another database): grade again
        if kept is not None:
            run.results.append(kept)
        else:
            todo.append((sub, print_))
    run.skipped = len(run.results)
    watch.split(run)
    if not todo:
        return run
    with contextlib.closing(tasks(todo)) as graded:  # a Dask cluster the tasks started goes with them
        for sub in graded:
            try:
                result = record(course_dir, sub, state)
            except Exception as err:  # one submission's crash is its own outcome; the batch goes on
                result = record_failure(course_dir, sub, err, state)
            sub.notebook = None  # the coordinator keeps one line per submission, not the notebook
            run.results.append(result)
            watch.recorded(run)
    return run
