"""Grade a class: where its tasks run and what the instructor sees, around the one loop that records them.

The loop itself (what is up to date skipped, the rest graded, each recorded
as it arrives by this process, the only writer of the gradebook) is
:func:`instructor.grading.class_run.record_class`; it is handed where the
tasks run (:func:`instructor.scheduling.dispatch.runner`) and what to report
to (:class:`instructor.scheduling.progress.Shown`), both chosen here before
it starts. A rerun skips every submission whose recorded result is up to
date (:mod:`instructor.grading.resume`); ``force=True`` grades them all again.
"""

from __future__ import annotations

from collections.abc import Callable

from instructor import sandbox
from instructor.coursedir.course_dir import CourseDir
from instructor.grading.class_run import ClassRun, record_class
from instructor.grading.class_state import ClassState
from instructor.grading.submission import Submission
from instructor.scheduling import dispatch
from instructor.scheduling.progress import Shown

__all__ = ["ClassRun", "grade_class"]


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
    (the benchmark compares it with none). ``progress``: a bar on stderr;
    ``on_record(n)`` is called after the n-th submission of this run is
    recorded (the class benchmark samples memory there). ``state``: the class
    as read once for this run (read here if not given).
    """
    mode = f"scheduler {scheduler}" if scheduler else f"{jobs} jobs" if jobs else "serial"
    with Shown(len(subs), log, progress, on_record) as shown:
        tasks = dispatch.runner(course_dir, limits or sandbox.Limits(), unsafe, jobs, scheduler, isolation)
        state = state or ClassState.read(course_dir)
        return record_class(course_dir, subs, state, tasks, force, shown, mode)
