"""Three ways to run the grading tasks of a class, one interface: submissions in, graded submissions out.

:func:`runner` picks one (a :data:`~instructor.grading.class_run.Tasks`) for the class loop to call:

* :func:`serial`: every task in this process, one after another (the baseline);
* :func:`on_dask` with :func:`connect` ``(jobs=N)``: a ``LocalCluster`` of N
  worker processes, one thread each;
* :func:`on_dask` with :func:`connect` ``(scheduler=ADDRESS)``: a running
  cluster (``dask scheduler`` and ``dask worker`` processes, on an HPC queue,
  Kubernetes, ...).

A task is :func:`grade_task`: stages 2-4 of one submission
(:func:`instructor.grading.pipeline.grade`), which writes nothing shared.
Results come back in the order they finish.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Generator, Iterator
from contextlib import contextmanager

from instructor import sandbox
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError, first_line
from instructor.grading.class_run import Tasks, Todo
from instructor.grading.pipeline import grade
from instructor.grading.submission import Status, Submission
from instructor.scheduling.workers import require_workers

#: how long to wait for a scheduler given by --scheduler
CONNECT_TIMEOUT = "20s"


def runner(
    course_dir: CourseDir,
    limits: sandbox.Limits,
    unsafe: bool,
    jobs: int | None = None,
    scheduler: str | None = None,
    isolation: sandbox.Isolation | None = None,
) -> Tasks:
    """Where the tasks run: in this process one after another (``isolation``: the sandbox, found if not given),
    or on ``jobs`` local Dask workers, or on the cluster at ``scheduler`` (connected, and its workers checked,
    only when there are tasks)."""

    def on_workers(todo: Todo) -> Generator[Submission, None, None]:
        with connect(jobs, scheduler) as client:
            require_workers(client, course_dir, list({sub.folder.parent for sub, _ in todo}), unsafe)
            yield from on_dask(client, course_dir, todo, limits, unsafe)

    if jobs or scheduler:
        return on_workers
    return lambda todo: serial(course_dir, todo, limits, unsafe, isolation)


def grade_task(
    course_dir: CourseDir,
    sub: Submission,
    limits: sandbox.Limits,
    unsafe: bool,
    fingerprint: dict,
    isolation: sandbox.Isolation | None = None,
) -> Submission:
    """One submission, on whichever process runs it; the sandbox is the one found there unless given.

    ``course_dir`` travels whole (settings and gradebook URL as the coordinator read them).
    """
    graded = grade(course_dir, sub, limits, isolation or sandbox.detect(), unsafe)
    graded.fingerprint = fingerprint
    return graded


def serial(course_dir: CourseDir, todo: Todo, limits, unsafe, isolation=None) -> Generator[Submission, None, None]:
    """Each task in this process, in turn."""
    for sub, print_ in todo:
        yield grade_task(course_dir, sub, limits, unsafe, print_, isolation)


@contextmanager
def connect(jobs: int | None = None, scheduler: str | None = None):
    """A Dask client: a fresh local cluster of ``jobs`` processes, or the cluster at ``scheduler``."""
    from distributed import Client, LocalCluster  # a second to import; a serial run never needs it

    if scheduler:
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as err:
            raise CourseError(f"no Dask scheduler answers at {scheduler} ({first_line(err, 120)}).") from None
        with client:
            yield client
        return
    # one thread per worker: each task runs a kernel in the sandbox, which uses a core
    with (
        LocalCluster(
            n_workers=jobs,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.ERROR,
            memory_limit=0,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def on_dask(client, course_dir: CourseDir, todo: Todo, limits, unsafe) -> Iterator[Submission]:
    """Each task on the cluster of ``client``; a task whose worker died ends ``grader failed``."""
    from distributed import as_completed

    pending = {}
    for sub, print_ in todo:
        fut = client.submit(
            grade_task,
            course_dir,
            sub,
            limits,
            unsafe,
            print_,
            pure=False,
            key=f"grade-{sub.student}-{sub.assignment}-{uuid.uuid4().hex[:8]}",
        )
        pending[fut.key] = (fut, sub, print_)
    for fut in as_completed([f for f, _, _ in pending.values()]):
        _, sub, print_ = pending.pop(fut.key)
        try:
            graded = fut.result()
        except Exception as err:  # a worker died (KilledWorker) or lost its connection: the batch goes on
            graded = sub.as_found()
            graded.end(
                Status.GRADER_FAILED,
                f"the grader failed on this submission ({type(err).__name__}: "
                f"{first_line(err, 120) if str(err) else 'no message'})",
            )
            graded.log.append(f"{sub.student}/{sub.assignment}: the Dask task failed: {err!r}")
            graded.fingerprint = print_
        fut.release()  # the worker drops the executed notebook too
        yield graded
