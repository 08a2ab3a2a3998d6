"""Progress of a long grading run on stderr: counts and an ETA; and what the run tells the instructor as it goes.

On a terminal, a tqdm bar; otherwise (CI logs, ``nohup``, a pipe) one line
every ``every`` seconds and one at the end, so a log stays short.
:class:`Shown` is what the class loop is handed to report to
(:func:`instructor.grading.class_run.record_class`): the run once it is
split, and after each recorded result.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from tqdm import tqdm

from instructor.grading.class_run import ClassRun
from instructor.grading.submission import Status


class Progress:
    """Count finished submissions out of ``total``; ``done`` were finished before this run."""

    def __init__(self, total: int, done: int = 0, stream=None, every: float = 30.0, desc: str = "grading"):
        self.stream = stream or sys.stderr
        self.total, self.count, self.start_count = total, done, done
        self.every, self.desc = every, desc
        self.start = self.last = time.monotonic()
        self.bar = None
        if self.stream.isatty():
            self.bar = tqdm(
                total=total,
                initial=done,
                desc=desc,
                unit="submission",
                file=self.stream,
                dynamic_ncols=True,
                smoothing=0.1,
            )

    def update(self, n: int = 1) -> None:
        self.count += n
        if self.bar is not None:
            self.bar.update(n)
            return
        now = time.monotonic()
        if now - self.last >= self.every or self.count >= self.total:
            self.last = now
            print(self.line(now), file=self.stream, flush=True)

    def write(self, text: str, log=print) -> None:
        """Print a line (``log``) without breaking the bar."""
        if self.bar is None:
            log(text)
            return
        with self.bar.external_write_mode():
            log(text)

    def line(self, now: float | None = None) -> str:
        """``grading: 40/200 (20 %), 3.1 s each, about 8 min left``."""
        now = time.monotonic() if now is None else now
        new = self.count - self.start_count
        text = f"{self.desc}: {self.count}/{self.total} ({100 * self.count // max(self.total, 1)} %)"
        if new:
            each = (now - self.start) / new
            left = each * (self.total - self.count)
            text += f", {each:.1f} s each, about {_duration(left)} left"
        return text

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class Shown:
    """What a grading run of ``total`` submissions tells the instructor, given the run as it goes (a context manager).

    Once the run is split (:meth:`split`): how many were up to date and skipped
    (``log``), then, with ``bar``, a :class:`Progress` from there. After each
    recorded result (:meth:`recorded`): a line for one that did not end graded, the bar moved on, and
    ``on_record(n)`` for the n-th of this run (the class benchmark samples
    memory there). Leaving the ``with`` lets the bar go, whatever happened.
    """

    def __init__(
        self,
        total: int,
        log: Callable[[str], None] = print,
        bar: bool = True,
        on_record: Callable[[int], None] | None = None,
    ):
        self.total, self.log, self.with_bar, self.on_record = total, log, bar, on_record
        self.bar: Progress | None = None

    def split(self, run: ClassRun) -> None:
        """How many were up to date and skipped; the bar starts from there."""
        if run.skipped:
            self.log(f"{run.skipped} submission(s) already graded and unchanged: skipped (--force grades them again)")
        self.bar = Progress(self.total, done=run.skipped) if self.with_bar else None

    def recorded(self, run: ClassRun) -> None:
        """A line for a result that did not end graded; the bar moved on; ``on_record``."""
        result = run.results[-1]
        if result.status is not Status.GRADED:
            line = f"  {result.student}/{result.assignment}: {result.status.shown}: {result.reason}"
            self.bar.write(line, self.log) if self.bar else self.log(line)
        if self.bar:
            self.bar.update()
        if self.on_record:
            self.on_record(len(run.results) - run.skipped)

    def __enter__(self) -> Shown:
        return self

    def __exit__(self, *exc) -> None:
        if self.bar:
            self.bar.close()


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
