"""Grade a class: the one loop, whichever executor runs the tasks.

This process, the coordinator, is the only writer of the gradebook: it
records each graded submission as soon as it arrives and then lets go of
its notebook, so its memory does not grow with the size of the class. A
rerun skips every submission whose recorded result is up to date
(:mod:`instructor.grading.resume`); ``force=True`` grades them all again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from instructor import sandbox
from instructor.coursedir.course_dir import CourseDir
from instructor.grading import resume
from instructor.grading.class_state import ClassState
from instructor.grading.record import record, record_failure
from instructor.grading.submission import Result, Status, Submission
from instructor.scheduling import dispatch
from instructor.scheduling.progress import Progress
from instructor.scheduling.workers import check_workers


@dataclass
class ClassRun:
    """What a grading run did: each submission's result, and how many were up to date already."""

    results: list[Result] = field(default_factory=list)
    skipped: int = 0
    mode: str = "serial"

    def counts(self) -> dict[str, int]:
        """How many ended graded, flagged and not graded (a failure of the grader counts as not graded)."""
        return {
            shown: sum(r.status.shown == shown for r in self.results) for shown in ("graded", "flagged", "not graded")
        }


def grade_class(
    course_dir: CourseDir,
    subs: list[Submission],
    limits: sandbox.Limits | None = None,
    unsafe: bool = False,
    jobs: int | None = None,
    scheduler: str | None = None,
    force: bool = False,
    log: Callable[[str], None] = print,
    progress: bool = True,
    on_record: Callable[[int], None] | None = None,
    isolation: sandbox.Isolation | None = None,
    state: ClassState | None = None,
) -> ClassRun:
    """Grade what is missing (all with ``force``) in ``course_dir``; record each as it arrives.

    Serially by default; on ``jobs`` local Dask workers, or on the cluster at
    ``scheduler``. ``isolation`` overrides the sandbox a serial run finds
    (the benchmark compares it with none). ``on_record(n)`` is called after
    the n-th submission of this run is recorded (the class benchmark samples
    memory there). ``state``: the class as read once for this run (read here if not given).
    """
    limits = limits or sandbox.Limits()
    run = ClassRun(mode=f"scheduler {scheduler}" if scheduler else f"{jobs} jobs" if jobs else "serial")
    todo = []
    state = state or ClassState.read(course_dir)
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
    if run.skipped:
        log(f"{run.skipped} submission(s) already graded and unchanged: skipped (--force grades them again)")
    bar = Progress(len(subs), done=run.skipped) if progress else None

    def consume(graded: Iterator[Submission]) -> None:
        for n, sub in enumerate(graded, 1):
            try:
                result = record(course_dir, sub, state)
            except Exception as err:  # one submission's crash is its own outcome; the batch goes on
                result = record_failure(course_dir, sub, err, state)
            sub.notebook = None  # the coordinator keeps one line per submission, not the notebook
            run.results.append(result)
            if result.status is not Status.GRADED:
                line = f"  {sub.student}/{sub.assignment}: {result.status.shown}: {result.reason}"
                bar.write(line, log) if bar else log(line)
            if bar:
                bar.update()
            if on_record:
                on_record(n)

    try:
        if not todo:
            pass
        elif jobs or scheduler:
            with dispatch.connect(jobs, scheduler) as client:
                check_workers(client, course_dir.path, list({sub.folder.parent for sub, _ in todo}), unsafe)
                consume(dispatch.on_dask(client, course_dir, todo, limits, unsafe))
        else:
            consume(dispatch.serial(course_dir, todo, limits, unsafe, isolation))
    finally:
        if bar:
            bar.close()
    return run
