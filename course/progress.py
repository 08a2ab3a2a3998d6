"""A progress line for long loops: plain text, one line at a time.

A training cell of several minutes should say how far it has got wherever it
runs: in JupyterLab (where the training plot redraws too), under
``jupyter nbconvert --execute`` and under Validate, which keep a cell's text
output but show no widget and no redrawn picture. So the lines are plain
``print`` output on stdout (stderr would colour the cell and, in a test cell,
cost its points), one every ``every`` seconds, each one whole: a bar that
redraws itself in place with carriage returns (tqdm's) leaves a pile of
half-lines in a saved notebook. Quick mode's few steps print only the last line.

In a notebook::

    from course.progress import progress

    for step in progress(n_steps):  # instead of range(n_steps)
        ...

prints, every 30 s, ``step 400 of 2000: 14 s so far, 35.1 ms a step, about
56 s to go``, and at the end ``2000 steps in 70.2 s, 35.1 ms a step``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator

__all__ = ["progress", "duration"]

#: Seconds between two progress lines.
EVERY_SECONDS = 30.0


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``: a time a person reads at a glance."""
    seconds = max(0.0, seconds)
    if seconds < 100:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s"


def progress(
    n_steps: int,
    every: float = EVERY_SECONDS,
    clock: Callable[[], float] = time.perf_counter,
    write: Callable[[str], object] | None = None,
) -> Iterator[int]:
    """Yield 0, 1, ..., ``n_steps - 1`` like ``range(n_steps)``, printing a progress line every ``every`` seconds.

    Each line says the step reached, the time so far, the mean time a step
    and the time left at that pace; the last line, after the loop ends, says
    the whole time. ``clock`` and ``write`` (default: a line on stdout) are
    there for tests.
    """
    if write is None:
        write = _print_line
    started = last = clock()
    for step in range(n_steps):
        yield step
        now = clock()
        done = step + 1
        if now - last >= every and done < n_steps:
            last = now
            per_step = (now - started) / done
            write(
                f"step {done} of {n_steps}: {duration(now - started)} so far, {1000 * per_step:.1f} ms a step, "
                f"about {duration(per_step * (n_steps - done))} to go"
            )
    seconds = clock() - started
    write(f"{n_steps} steps in {seconds:.1f} s, {1000 * seconds / max(n_steps, 1):.1f} ms a step")


def _print_line(line: str) -> None:
    print(line, file=sys.stdout, flush=True)
