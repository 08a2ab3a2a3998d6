"""One cgroup (v1: memory, pids and, where the kernel has it, cpu) per sandbox: limits, a kill switch, OOM evidence.

A per-sandbox pids limit, unlike a per-uid ``RLIMIT_NPROC``, keeps parallel
sandboxes (all uids 65534 and 65533) from starving each other; so does the cpu cgroup:
the kernel shares CPU time equally between sibling cgroups, so forty busy
processes in one sandbox share that sandbox's half of the machine, and the
student graded beside it keeps the other half (an optional CFS quota caps a
sandbox even when CPUs are idle).
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PARENT = "course-sandbox"


def available() -> bool:
    """True when this process may create memory and pids cgroups (v1)."""
    return all(os.access(ROOT / c, os.W_OK) and (ROOT / c / "cgroup.procs").exists() for c in ("memory", "pids"))


def cpu_available() -> bool:
    """True when this process may create cpu cgroups (v1) with a CFS quota."""
    return os.access(ROOT / "cpu", os.W_OK) and (ROOT / "cpu" / "cpu.cfs_quota_us").exists()


def prefix(pid: int | None = None) -> str:
    """How the cgroups made by process ``pid`` (default: this one) are named: ``<pid>-``."""
    return f"{os.getpid() if pid is None else pid}-"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        pass
    return True


def left_by_dead_grader(name: str) -> bool:
    """True for a name made by :func:`prefix` whose grader process is gone (cgroups, scratch folders)."""
    creator = name.split("-", 1)[0]
    return creator.isdigit() and not alive(int(creator))


def sweep_orphans() -> int:
    """Empty and remove the cgroups of graders that were killed before they could; returns how many.

    A grader killed outright (SIGKILL, a lost Dask worker) never runs
    :meth:`Cgroup.destroy`; its cgroups, and anything still inside them, would
    stay. Each cgroup is named after the process that made it, so the next
    sandbox cleans up after the dead one and never touches a living grader's.
    """
    swept = 0
    for folder in sorted((ROOT / "pids" / PARENT).glob("*-*")):
        if not left_by_dead_grader(folder.name):
            continue
        Cgroup(folder.name).destroy()
        swept += 1
    return swept


def set_limits(memory: Path, pids: Path, cpu: Path | None, memory_mb: int, processes: int, cpus: float) -> None:
    """Write the limits into existing cgroups: memory (swap included where allowed), processes, CPU time."""
    if cpu is not None and cpus > 0:  # at most `cpus` CPUs' time per period, however many processes run
        period = int((cpu / "cpu.cfs_period_us").read_text())
        (cpu / "cpu.cfs_quota_us").write_text(str(int(period * cpus)))
    limit = str(memory_mb * 2**20)
    (memory / "memory.limit_in_bytes").write_text(limit)
    swap = memory / "memory.memsw.limit_in_bytes"
    if swap.exists():  # no swapping past the limit either
        try:
            swap.write_text(limit)
        except OSError:
            pass
    (pids / "pids.max").write_text(str(processes))


def members(pids: Path) -> list[int]:
    """The processes in the pids cgroup ``pids`` ([] if it is gone)."""
    try:
        return [int(p) for p in (pids / "cgroup.procs").read_text().split()]
    except OSError:
        return []


def kill_and_remove(pids: Path, folders: list[Path]) -> int:
    """SIGKILL every process in ``pids`` (until none is left), then remove ``folders``; returns how many were killed."""
    killed = 0
    for _ in range(50):
        left = members(pids)
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    for folder in folders:
        for _ in range(20):
            try:
                folder.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:  # busy for a moment after the last kill
                time.sleep(0.05)
    return killed


class Cgroup:
    """A memory + pids cgroup pair named ``course-sandbox/<creator pid>-<random>``."""

    def __init__(self, name: str):
        """The cgroups ``course-sandbox/<name>``, as they stand (see :meth:`create`)."""
        self.memory = ROOT / "memory" / PARENT / name
        self.pids = ROOT / "pids" / PARENT / name
        self.cpu = ROOT / "cpu" / PARENT / name if cpu_available() else None

    @property
    def folders(self) -> list[Path]:
        """Every cgroup of this sandbox: a process joins them all."""
        return [self.memory, self.pids] + ([self.cpu] if self.cpu else [])

    @classmethod
    def create(cls, memory_mb: int, processes: int, cpus: float = 0.0) -> Cgroup:
        """A new set for one sandbox, with its limits (after sweeping the dead graders' sets)."""
        sweep_orphans()
        self = cls(f"{prefix()}{uuid.uuid4().hex[:12]}")
        for folder in self.folders:
            folder.mkdir(parents=True)
        set_limits(self.memory, self.pids, self.cpu, memory_mb, processes, cpus)
        return self

    def out_of_memory(self) -> bool:
        """True if the kernel's OOM killer ended a process of this sandbox."""
        try:
            fields = dict(line.split() for line in (self.memory / "memory.oom_control").read_text().splitlines())
            failed = int((self.memory / "memory.failcnt").read_text())
            # failcnt: the limit was reached (the kernel then reclaims, and may thrash
            # for a long time instead of killing anything)
            return int(fields.get("oom_kill", 0)) > 0 or fields.get("under_oom") == "1" or failed > 0
        except (OSError, ValueError):
            return False

    def hit_process_limit(self) -> bool:
        try:
            return int((self.pids / "pids.events").read_text().split()[-1]) > 0
        except (OSError, ValueError, IndexError):
            return False

    def pids_left(self) -> list[int]:
        return members(self.pids)

    def destroy(self) -> int:
        """Kill every process still inside, then remove the cgroups; returns how many were killed."""
        return kill_and_remove(self.pids, self.folders)
