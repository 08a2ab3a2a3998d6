"""A Dask cluster of separate processes, as an instructor starts one by hand.

``dask scheduler`` plus ``dask worker --nthreads 1`` processes, each its own
command; the class bench's ``scheduler`` mode and the tests grade on it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from instructor.errors import CourseError

WORKERS = 2


class Cluster:
    """``dask scheduler`` plus ``workers`` x ``dask worker --nthreads 1``, as separate commands."""

    def __init__(self, folder: Path, workers: int = WORKERS):
        self.folder, self.workers = folder, workers
        self.procs: list[subprocess.Popen] = []
        folder.mkdir(parents=True, exist_ok=True)
        self.file = folder / "scheduler.json"
        self.log = (folder / "dask.log").open("w")

    def __enter__(self) -> str:
        dask = [sys.executable, "-m", "dask"]
        scheduler = [
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(self.file),
        ]
        worker = [
            "worker",
            "--scheduler-file",
            str(self.file),
            "--nthreads",
            "1",
            "--nworkers",
            "1",
            "--no-dashboard",
            "--memory-limit",
            "0",
        ]
        for command in [scheduler] + [worker] * self.workers:
            self.procs.append(
                subprocess.Popen([*dask, *command], stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
            )
        from distributed import Client

        deadline = time.monotonic() + 120
        while not self.file.is_file():
            if time.monotonic() > deadline or self.procs[0].poll() is not None:
                raise CourseError(f"dask scheduler did not start (see {self.folder / 'dask.log'}).")
            time.sleep(0.2)
        with Client(scheduler_file=str(self.file), timeout="60s") as client:
            client.wait_for_workers(self.workers, timeout=120)
            return client.scheduler.address

    def __exit__(self, *exc) -> None:
        for proc in reversed(self.procs):  # workers first, then the scheduler
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.log.close()
