"""The judge runs in a process of its own, with a memory limit and a time limit per cell.

The values a kernel sends are data, but data can still be made to cost: an
array of shape ``(10**6, 1, 1, 1)`` broadcast against a reference, a set
whose items all hash alike. So the autograder's process never decodes or judges
them itself: one worker process per grader process (started on first use,
reused, started again after a failure) does, under ``RLIMIT_AS``, with a
deadline per cell and a budget of judging time per submission
(:data:`SUBMISSION_SECONDS`). A cell it could not judge in time or memory
fails, and the submission is flagged.

    python -m instructor.grading.checks.worker     # reads requests on stdin, one JSON line each
"""

from __future__ import annotations

import atexit
import json
import os
import resource
import select
import subprocess
import sys
import threading
import time
from dataclasses import asdict

from course.draws import use_seed, use_variant
from instructor.grading.checks.judge import Fault, Verdict, imported_names, judge, trusted_imports
from instructor.grading.checks.split import Plan, plan

#: the worker's address space (numpy, MyGrad and the course's modules take about 300 MB of it)
MEMORY_MB = 1536
#: seconds to judge one cell (the course's cells take milliseconds)
SECONDS = 20.0
#: seconds to judge all the cells of one submission: past it, every cell left fails unjudged (and is flagged)
SUBMISSION_SECONDS = 60.0
#: seconds for the worker to start (imports)
START_SECONDS = 60.0


class Worker:
    """One judge process, shared by the threads of a grader process (one request at a time)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        env = {**os.environ, "COURSE_JUDGE_MEMORY_MB": str(MEMORY_MB)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "instructor.grading.checks.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        if self._read(proc, START_SECONDS) != {"ready": True}:
            self._stop(proc)
            raise RuntimeError("the judge process did not start")
        return proc

    @staticmethod
    def _read(proc: subprocess.Popen, seconds: float):
        """One JSON line from ``proc`` within ``seconds``, or None (late, dead or garbled)."""
        if proc.stdout is None:
            raise ValueError("the judge process was started without a pipe for its answers")
        ready, _, _ = select.select([proc.stdout], [], [], seconds)
        if not ready:
            return None
        line = proc.stdout.readline()
        try:
            return json.loads(line) if line else None
        except ValueError:
            return None

    @staticmethod
    def _stop(proc: subprocess.Popen | None) -> None:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()

    def judge(
        self,
        found: Plan,
        setup: tuple[str, ...],
        sent: dict[int, dict],
        seconds: float | None = None,
        seed: int | None = None,
        variant: int | None = None,
    ) -> Verdict:
        """The verdict on ``found``'s cell, judged in the worker within ``seconds`` (default :data:`SECONDS`),
        its hidden inputs drawn from ``seed`` and the student's parameters from ``variant``; a failed verdict if
        the worker gave none."""
        seconds = SECONDS if seconds is None else seconds
        request = (
            json.dumps(
                {
                    "cell": found.cell,
                    "source": found.source,
                    "setup": list(setup),
                    "sent": {str(k): v for k, v in sent.items()},
                    "seed": seed,
                    "variant": variant,
                }
            )
            + "\n"
        )
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._proc = self._start()
            if self._proc.stdin is None:
                raise ValueError("the judge process was started without a pipe for its requests")
            start = time.monotonic()
            try:
                self._proc.stdin.write(request.encode())
                self._proc.stdin.flush()
                answer = self._read(self._proc, seconds)
            except (BrokenPipeError, OSError):
                answer = None
            if answer is None or "verdict" not in answer:
                late = time.monotonic() - start >= seconds
                self._stop(self._proc)
                self._proc = None
                why = f"took more than {seconds:g} s" if late else f"needed more than {MEMORY_MB} MB or failed"
                return Verdict(
                    False,
                    1,
                    Fault.JUDGE_STOPPED,
                    f"the grader stopped judging this cell: its values {why}",
                    broken=True,
                )
        return Verdict(**answer["verdict"])

    def close(self) -> None:
        with self._lock:
            self._stop(self._proc)
            self._proc = None


_WORKER = Worker()
atexit.register(_WORKER.close)


class Budget:
    """The judging time one submission has left (:data:`SUBMISSION_SECONDS` in all), spent cell by cell."""

    def __init__(self, seconds: float | None = None):
        self.total = SUBMISSION_SECONDS if seconds is None else seconds
        self.spent = 0.0

    def left(self) -> float:
        return self.total - self.spent


def judge_isolated(
    found: Plan,
    setup: tuple[str, ...],
    sent: dict[int, dict],
    budget: Budget | None = None,
    seed: int | None = None,
    variant: int | None = None,
) -> Verdict:
    """:func:`~instructor.grading.checks.judge.judge`, in the worker process (see the module doc).

    With a ``budget`` (one per submission), a cell gets at most what is left
    of it; once it is spent, a cell fails without being judged.
    """
    if budget is None:
        return _WORKER.judge(found, setup, sent, seed=seed, variant=variant)
    if budget.left() <= 0:
        return Verdict(
            False,
            1,
            Fault.JUDGE_STOPPED,
            f"the grader stopped judging: this submission used its {budget.total:g} s of judging time before this cell",
            broken=True,
        )
    start = time.monotonic()
    try:
        return _WORKER.judge(found, setup, sent, min(SECONDS, budget.left()), seed, variant)
    finally:
        budget.spent += time.monotonic() - start


def serve() -> int:
    """The worker's loop: a request per line in, a verdict per line out."""
    limit = int(os.environ.get("COURSE_JUDGE_MEMORY_MB", MEMORY_MB)) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    out = sys.stdout
    sys.stdout = sys.stderr  # a print in a test's own code must not garble the answers
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        try:
            request = json.loads(line)
            setup = tuple(request["setup"])
            found = plan(request["cell"], request["source"], imported_names(trusted_imports(list(setup))))
            sent = {int(k): v for k, v in request["sent"].items()}
            use_seed(request.get("seed"))  # the hidden inputs the kernel drew, drawn again here
            use_variant(request.get("variant"))  # and the student's own parameters
            verdict = judge(found, trusted_imports(list(setup)), sent)
        except MemoryError:
            verdict = Verdict(
                False,
                1,
                Fault.JUDGE_STOPPED,
                f"the grader stopped judging this cell: its values needed more than {limit // 2**20} MB",
                broken=True,
            )
        except Exception as err:  # a request the worker cannot read is a cell it cannot judge
            verdict = Verdict(
                False,
                1,
                Fault.JUDGE_STOPPED,
                f"the grader could not judge this cell ({type(err).__name__})",
                broken=True,
            )
        out.write(json.dumps({"verdict": asdict(verdict)}) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(serve())
