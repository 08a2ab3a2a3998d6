"""A memory, CPU and process budget per user's server (cgroup v1, as the grading sandbox uses).

JupyterHub's local-process spawner ignores ``mem_limit`` and ``cpu_limit``
(it only passes them on as variables); a cgroup makes the kernel enforce them:
the server, its kernels and terminals together get at most ``memory_mb``
(the OOM killer ends a process past it), ``cpus`` CPUs' time and
``processes`` processes. Named ``course-hub/<user>``.
"""

from __future__ import annotations

import os
from pathlib import Path

from instructor.sandbox.cgroup import kill_and_remove, members, set_limits

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
        set_limits(self.folders["memory"], self.folders["pids"], self.folders["cpu"], memory_mb, processes, cpus)
        return self

    @property
    def procs_files(self) -> list[str]:
        """What a process writes its pid into to join (from a preexec function: no allocation-heavy code)."""
        return [str(folder / "cgroup.procs") for folder in self.folders.values()]

    def pids(self) -> list[int]:
        return members(self.folders["pids"])

    def kill(self) -> int:
        """SIGKILL every process left inside (kernels started in sessions of their own too); returns how many."""
        return kill_and_remove(self.folders["pids"], [])

    def remove(self) -> None:
        kill_and_remove(self.folders["pids"], list(self.folders.values()))
