"""Part ``busy``: each full-mode training of 01 and 04 on an idle machine and beside two busy processes.

What a student waits for is her full run, and on a shared hub other work runs
beside it. For notebooks 01 and 04 this part times the training cell's work,
the notebook's ``SETTINGS["n_steps"]`` steps inside its ``with fused:`` block
(the bench's own trainer, :func:`benchmarks.models.in_full_mode`), four
times: idle and beside two processes that each keep a core busy (a Python
loop that never waits), each with one BLAS thread (the course's default, see
:mod:`course.runtime`) and with two. Each time is one run; the ratio
busy / idle says how much a busy machine slows the run. With one thread on
two cores shared by three runnable processes, a fair scheduler gives the run
two thirds of a core, so about 1.5 is the floor.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import mygrad as mg
from threadpoolctl import threadpool_limits

from benchmarks.models import MODELS, ModelPart, in_full_mode

#: the models whose full runs this part times (the two notebooks whose training the issue names)
KEYS = ("rnn", "transformer")
#: BLAS threads of the runs: the course's default, and OpenBLAS's own on this 2-core machine
THREADS = (1, 2)
#: how many busy processes run beside the training
BUSY = 2
#: each busy process: a loop that keeps one core busy and never sleeps
BUSY_LOOP = "while True:\n    pass"


@contextmanager
def busy_processes(n: int = BUSY) -> Iterator[list[subprocess.Popen]]:
    """``n`` processes that each keep one core busy for as long as the block runs (the block gets them)."""
    procs = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(n)]
    try:
        time.sleep(0.5)  # let them start before the clock does
        yield procs
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()


def full_run_seconds(part: ModelPart, threads: int) -> float:
    """Seconds for the notebook's ``n_steps`` full-mode training steps, with ``threads`` BLAS threads."""
    with threadpool_limits(threads), mg.mem_guard_off:
        trainer = in_full_mode(part, part.make(part.library))
        steps = int(part.library.SETTINGS["n_steps"])
        start = time.perf_counter()
        for _ in range(steps):
            trainer.step()
        return time.perf_counter() - start


def bench_busy(keys: tuple[str, ...] = KEYS, threads: tuple[int, ...] = THREADS, quiet: bool = False) -> dict:
    """Idle and busy seconds of each model's full run, for each thread count, and their ratio."""
    figures: dict = {}
    for part in (p for p in MODELS if p.key in keys):
        rows = figures.setdefault(part.key, {"model": part.title, "steps": int(part.library.SETTINGS["n_steps"])})
        for n in threads:
            if not quiet:
                print(f"{part.title}: {n} BLAS thread(s), idle ...", flush=True)
            idle = full_run_seconds(part, n)
            if not quiet:
                print(f"{part.title}: {n} BLAS thread(s), beside {BUSY} busy processes ...", flush=True)
            with busy_processes():
                busy = full_run_seconds(part, n)
            rows[f"threads_{n}"] = {
                "idle_s": round(idle, 1),
                "busy_s": round(busy, 1),
                "busy_over_idle": round(busy / idle, 2),
            }
    return figures


def table(figures: dict) -> list[str]:
    """One line per model and thread count: idle and busy seconds, and busy / idle."""
    head = f"{'full-mode training (n_steps)':40s} {'BLAS threads':>12s}"
    lines = [f"{head} {'idle s':>8s} {'busy s':>8s} {'busy/idle':>9s}"]
    for row in figures.values():
        for key, cell in row.items():
            if key.startswith("threads_"):
                lines.append(
                    f"{row['model'] + ', ' + str(row['steps']) + ' steps':40s} {key.split('_')[1]:>12s} "
                    f"{cell['idle_s']:8.1f} {cell['busy_s']:8.1f} {cell['busy_over_idle']:9.2f}"
                )
    lines.append(f"busy: {BUSY} processes each running a Python loop that never waits, beside the training")
    return lines
