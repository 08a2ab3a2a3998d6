"""Grade a class: one task per submission, serially or on a Dask cluster.

A task is :func:`course.grading.grade_submission` for one submission (stages
2-4: it runs the sandbox and returns an :class:`~course.grading.Outcome`,
writing nothing shared). This process, the coordinator, is the only writer
of the gradebook: it records each outcome as soon as it arrives
(``distributed.as_completed``) and then lets go of it, so its memory does not
grow with the size of the class.

Three ways to run (``course grade``):

* no flag: every task in this process, one after another (the baseline);
* ``--jobs N``: a ``LocalCluster`` of N worker processes, one thread each;
* ``--scheduler ADDRESS``: a running cluster (``dask scheduler`` and
  ``dask worker`` processes, on an HPC queue, Kubernetes, ...).

Workers read the workspace (release, gradebook for SQLite) and the
submissions by path, so they must see them on a filesystem shared with the
coordinator, under the same paths; :func:`check_workers` refuses to start
otherwise. The sandbox needs root, so workers run as root like the
coordinator.

A rerun skips every submission whose recorded outcome is up to date
(:mod:`course.resume`); ``force=True`` grades them all again.
"""

from __future__ import annotations

import logging
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from course import grading, resume, sandbox
from course.errors import CourseError
from course.progress import Progress


#: how long to wait for a scheduler given by --scheduler
CONNECT_TIMEOUT = "20s"


@dataclass
class Run:
    """What a grading run did: each outcome's summary, and how many were up to date already."""

    summaries: list[dict] = field(default_factory=list)  # Outcome.summary() of every submission
    skipped: int = 0
    mode: str = "serial"

    def counts(self) -> dict[str, int]:
        return {s: sum(o["status"] == s for o in self.summaries) for s in ("graded", "flagged", "not graded")}


# --------------------------------------------------------------------------- the task


def grade_task(workspace: str, sub: grading.Submission, limits: sandbox.Limits, unsafe: bool,
               db: str | None, fingerprint: dict) -> grading.Outcome:
    """One submission, on whichever process runs it; the sandbox is the one found there."""
    isolation = sandbox.detect()  # grade_submission refuses to run unsandboxed unless unsafe
    outcome = grading.grade_submission(Path(workspace), sub, limits, isolation, unsafe, db)
    outcome.fingerprint = fingerprint
    return outcome


def _worker_sees(token_path: str, token: str, folders: list[str]) -> str:
    """Run on each worker: "" if it sees the workspace and submissions and has a sandbox, else why not."""
    try:
        if Path(token_path).read_text() != token:
            return f"it sees another {Path(token_path).parent} (not the coordinator's)"
    except OSError:
        return f"it cannot read the workspace {Path(token_path).parent}"
    for folder in folders:
        if not Path(folder).is_dir():
            return f"it cannot read the submissions folder {folder}"
    return ""


def _worker_sandbox() -> tuple[bool, str]:
    isolation = sandbox.detect()
    return isolation.safe, isolation.detail


def check_workers(client, workspace: Path, folders: list[Path], unsafe: bool) -> int:
    """Refuse in one sentence unless every worker sees the workspace and submissions (and has a sandbox)."""
    workers = client.scheduler_info().get("workers", {})
    if not workers:
        client.wait_for_workers(1, timeout=60)
    token = uuid.uuid4().hex
    token_path = workspace / f".course-worker-check-{token}"
    token_path.write_text(token)
    try:
        seen = client.run(_worker_sees, str(token_path), token, sorted({str(f) for f in folders}))
        sandboxes = client.run(_worker_sandbox)
    finally:
        token_path.unlink(missing_ok=True)
    for address, why in sorted(seen.items()):
        if why:
            raise CourseError(f"the Dask worker at {address} cannot grade: {why}; workers need the workspace and "
                              "the submissions on a filesystem they share with this machine, under the same paths.")
    for address, (safe, detail) in sorted(sandboxes.items()):
        if not safe and not unsafe:
            raise CourseError(f"the Dask worker at {address} has no sandbox ({detail}); "
                              "run workers as root with bubblewrap installed, or pass --unsafe.")
    return len(seen)


# --------------------------------------------------------------------------- runners


def _serial(workspace: Path, todo, limits, unsafe, db) -> Iterator[grading.Outcome]:
    for sub, print_ in todo:
        yield grade_task(str(workspace), sub, limits, unsafe, db, print_)


@contextmanager
def connect(jobs: int | None = None, scheduler: str | None = None):
    """A Dask client: a fresh local cluster of ``jobs`` processes, or the cluster at ``scheduler``."""
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as err:
            raise CourseError(f"no Dask scheduler answers at {scheduler} ({str(err).splitlines()[0][:120]}).") from None
        with client:
            yield client
        return
    # one thread per worker: each task runs a kernel in the sandbox, which uses a core
    with LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, silence_logs=logging.ERROR, memory_limit=0) as cluster, \
            Client(cluster) as client:
        yield client


def _dask(client, workspace: Path, todo, limits, unsafe, db) -> Iterator[grading.Outcome]:
    from distributed import as_completed

    pending = {}
    for sub, print_ in todo:
        fut = client.submit(grade_task, str(workspace), sub, limits, unsafe, db, print_, pure=False,
                            key=f"grade-{sub.student}-{sub.assignment}-{uuid.uuid4().hex[:8]}")
        pending[fut.key] = (fut, sub, print_)
    for fut in as_completed([f for f, _, _ in pending.values()]):
        _, sub, print_ = pending.pop(fut.key)
        try:
            outcome = fut.result()
        except Exception as err:  # a worker died (KilledWorker) or lost its connection: the batch goes on
            outcome = grading.Outcome(sub.student, sub.assignment, "not graded",
                                      reason=f"the grader failed on this submission ({type(err).__name__}: "
                                             f"{str(err).splitlines()[0][:120] if str(err) else 'no message'})",
                                      log=f"{sub.student}/{sub.assignment}: the Dask task failed: {err!r}")
            outcome.fingerprint = print_
        fut.release()  # the worker drops the executed notebook too
        yield outcome


# --------------------------------------------------------------------------- the coordinator


def _in_gradebook(workspace: Path, db: str | None) -> set[tuple[str, str]]:
    """(student, assignment) of every submission the gradebook holds."""
    from nbgrader.api import Gradebook, SubmittedAssignment

    from course import gradebook

    db_url = gradebook.url(workspace, db)
    if not gradebook.exists(db_url):
        return set()
    with Gradebook(db_url) as gb:
        return {(s.student.id, s.assignment.name) for s in gb.db.query(SubmittedAssignment).all()}


def grade_class(workspace: Path, subs: list[grading.Submission], limits: sandbox.Limits | None = None,
                unsafe: bool = False, db: str | None = None, jobs: int | None = None,
                scheduler: str | None = None, force: bool = False, log: Callable[[str], None] = print,
                progress: bool = True, on_record: Callable[[int], None] | None = None) -> Run:
    """Grade what is missing (all with ``force``), record each outcome as it arrives; return the summaries.

    ``on_record(n)`` is called after the n-th outcome of this run is recorded
    (the class benchmark samples memory there).
    """
    limits = limits or sandbox.Limits()
    run = Run(mode=f"scheduler {scheduler}" if scheduler else f"{jobs} jobs" if jobs else "serial")
    todo = []
    in_book = set() if force else _in_gradebook(workspace, db)
    for sub in subs:
        print_ = resume.fingerprint(workspace, sub)
        kept = None if force else resume.recorded(workspace, sub, print_)
        if kept is not None and kept["status"] != "not graded" and (sub.student, sub.assignment) not in in_book:
            kept = None  # the gradebook lost it (deleted, another database): grade again
        if kept is not None:
            run.summaries.append(kept)
        else:
            todo.append((sub, print_))
    run.skipped = len(run.summaries)
    if run.skipped:
        log(f"{run.skipped} submission(s) already graded and unchanged: skipped (--force grades them again)")
    bar = Progress(len(subs), done=run.skipped) if progress else None

    def consume(outcomes: Iterator[grading.Outcome]) -> None:
        for n, outcome in enumerate(outcomes, 1):
            grading.record(workspace, outcome, db)
            summary = outcome.summary()
            outcome.notebook = None  # the coordinator keeps one line per submission, not the notebook
            run.summaries.append(summary)
            if outcome.status != "graded":
                line = f"  {outcome.student}/{outcome.assignment}: {outcome.status}: {outcome.reason}"
                bar.write(line, log) if bar else log(line)
            if bar:
                bar.update()
            if on_record:
                on_record(n)

    try:
        if not todo:
            pass
        elif jobs or scheduler:
            with connect(jobs, scheduler) as client:
                folders = {sub.folder.parent for sub, _ in todo}
                check_workers(client, workspace, folders, unsafe)
                consume(_dask(client, workspace, todo, limits, unsafe, db))
        else:
            consume(_serial(workspace, todo, limits, unsafe, db))
    finally:
        if bar:
            bar.close()
    return run
