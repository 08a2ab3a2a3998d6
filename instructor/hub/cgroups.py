"""A memory, CPU and process budget per user's server (cgroup v1, as the grading sandbox uses).

JupyterHub's local-process spawner ignores ``mem_limit`` and ``cpu_limit``
(it only passes them on as variables); a cgroup makes the kernel enforce them:
the server, its kernels and terminals together get at most ``memory_mb``
(the OOM killer ends a process past it), ``cpus`` CPUs' time and
``processes`` processes. Named ``course-hub/<user>``.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PARENT = "course-hub"
CONTROLLERS = ("memory", "pids", "cpu")


def available() -> bool:
    """True when this process may create memory, pids and cpu cgroups (v1)."""
    return all(os.access(ROOT / c, os.W_OK) and (ROOT / c / "cgroup.procs").exists() for c in CONTROLLERS)


class UserCgroup:
    """The cgroups of one user's server: ``/sys/fs/cgroup/<controller>/course-hub/<user>``."""

    def __init__(self, user: str):
        self.folders = {c: ROOT / c / PARENT / user for c in CONTROLLERS}

    def create(self, memory_mb: int, cpus: float, processes: int) -> UserCgroup:
        self.kill()  # a server left by an earlier hub
        for folder in self.folders.values():
            folder.mkdir(parents=True, exist_ok=True)
        limit = str(memory_mb * 2**20)
        (self.folders["memory"] / "memory.limit_in_bytes").write_text(limit)
        swap = self.folders["memory"] / "memory.memsw.limit_in_bytes"
        if swap.exists():  # no swapping past the limit either
            try:
                swap.write_text(limit)
            except OSError:
                pass
        period = int((self.folders["cpu"] / "cpu.cfs_period_us").read_text())
        (self.folders["cpu"] / "cpu.cfs_quota_us").write_text(str(int(period * cpus)))
        (self.folders["pids"] / "pids.max").write_text(str(processes))
        return self

    @property
    def procs_files(self) -> list[str]:
        """What a process writes its pid into to join (from a preexec function: no allocation-heavy code)."""
        return [str(folder / "cgroup.procs") for folder in self.folders.values()]

    def pids(self) -> list[int]:
        try:
            return [int(p) for p in (self.folders["pids"] / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def kill(self) -> int:
        """SIGKILL every process left inside (kernels started in sessions of their own too); returns how many."""
        killed = 0
        for _ in range(50):
            left = self.pids()
            if not left:
                break
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
                except ProcessLookupError:
                    pass
            time.sleep(0.05)
        return killed

    def remove(self) -> None:
        self.kill()
        for folder in self.folders.values():
            for _ in range(20):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # busy for a moment after the last kill
                    time.sleep(0.05)
