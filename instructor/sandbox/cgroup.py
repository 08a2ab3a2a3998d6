"""cgroups for the grading sandbox and for ``course hub``'s users: v2 or v1, whichever this machine mounts.

The one place that knows the layout (:func:`layout`, from ``/proc/self/mountinfo``):

- **v2** (Debian 12, Ubuntu 22.04+, Fedora, RHEL 9): one tree, a cgroup is one
  folder with ``memory.max`` (and ``memory.swap.max`` 0), ``pids.max`` and
  ``cpu.max``; each ancestor hands the controllers down through its
  ``cgroup.subtree_control``. What happened is in ``memory.events``
  (``oom_kill``) and ``pids.events`` (``max``).
- **v1**: a tree per controller, a cgroup is one folder in each (memory,
  pids, and cpu where mounted) with ``memory.limit_in_bytes`` (and
  ``memory.memsw.limit_in_bytes``), ``pids.max``, ``cpu.cfs_quota_us``;
  evidence in ``memory.oom_control`` and ``pids.events``.

As root the files are written directly, under a subtree of our own
(``course-sandbox/<grader pid>-<random>``, ``course-hub/<course>/<user>``). Not a
systemd scope: the sandbox needs root anyway, the machines it is tested on
(this one, CI, the v2 VM of tests/cgroup2) have no systemd as PID 1, and one
code path is the one the tests prove.

A pids limit per sandbox, unlike a per-uid ``RLIMIT_NPROC``, keeps parallel
sandboxes (all uids 65534 and 65533) from starving each other; so does the
cpu controller: the kernel shares CPU time equally between sibling cgroups,
so forty busy processes in one sandbox share that sandbox's part of the
machine (``cpus`` caps it even when CPUs are idle).
"""

from __future__ import annotations

import functools
import os
import signal
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

MOUNTINFO = Path("/proc/self/mountinfo")
#: the sandboxes' subtree
PARENT = "course-sandbox"
#: what a cgroup here limits, by controller: memory and pids are required, cpu is used where present
REQUIRED = ("memory", "pids")
CONTROLLERS = ("memory", "pids", "cpu")
#: a CFS period (v2 cpu.max, v1 cpu.cfs_period_us's default)
PERIOD_US = 100_000


@dataclass(frozen=True)
class Layout:
    """Where this machine's cgroups are and which controllers this process can use.

    ``version`` 2: ``mounts`` is ``{"": <the cgroup2 mount>}``; 1: one mount per
    controller; 0: no usable layout, ``why`` says why.
    """

    version: int
    mounts: dict[str, Path] = field(default_factory=dict)
    controllers: tuple[str, ...] = ()  # of CONTROLLERS, the ones a cgroup here gets
    why: str = ""

    @property
    def usable(self) -> bool:
        """True when memory and process limits can be set (what grading and the hub require)."""
        return all(c in self.controllers for c in REQUIRED)

    def folders(self, name: str) -> list[Path]:
        """The folder(s) of the cgroup ``name`` (``a/b``): one on v2, one per controller on v1 (memory first)."""
        if self.version == 2:
            return [self.mounts[""] / name]
        return [self.mounts[c] / name for c in self.controllers]

    def words(self) -> str:
        """The limits in words, for the isolation line: "memory, process and CPU limits (cgroup v2)"."""
        if not self.usable:
            return f"no memory or process limit ({self.why})"
        cpu = " and CPU" if "cpu" in self.controllers else ""
        return f"memory, process{cpu} limits per cgroup (cgroup v{self.version})"


def _mounts(text: str) -> tuple[Path | None, dict[str, Path]]:
    """The cgroup2 mount and the v1 mount of each controller, from the text of a mountinfo file."""
    v2: Path | None = None
    v1: dict[str, Path] = {}
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        point = Path(left.split()[4].replace("\\040", " "))
        fstype, _source, options = (right.split() + ["", ""])[:3]
        if fstype == "cgroup2" and v2 is None:
            v2 = point
        elif fstype == "cgroup":
            for option in options.split(","):
                if option in CONTROLLERS:
                    v1.setdefault(option, point)
    return v2, v1


def read_layout(mountinfo: Path = MOUNTINFO) -> Layout:
    """The layout as ``mountinfo`` describes it and as this process may write it.

    v2 wins when its mount offers memory and pids (a v2-only machine); on a
    hybrid machine (systemd's ``unified`` beside v1 controllers) v2 has no
    controllers and v1 is used.
    """
    try:
        v2, v1 = _mounts(mountinfo.read_text())
    except OSError as err:
        return Layout(0, why=f"{mountinfo} cannot be read ({err.strerror})")
    if v2 is not None:
        try:
            offered = (v2 / "cgroup.controllers").read_text().split()
        except OSError:
            offered = []
        if all(c in offered for c in REQUIRED):
            if not os.access(v2, os.W_OK):
                return Layout(0, why=f"cgroup v2 at {v2} is not writable by this user: run as root")
            if not _hands_down(v2 / "cgroup.subtree_control"):
                return Layout(0, why=f"cgroup v2 at {v2} cannot hand memory and pids down (a container's own root?)")
            return Layout(2, {"": v2}, tuple(c for c in CONTROLLERS if c in offered))
    if all(c in v1 for c in REQUIRED):
        if not all(os.access(v1[c], os.W_OK) for c in REQUIRED):
            return Layout(0, why="the cgroup v1 memory and pids hierarchies are not writable by this user: run as root")
        return Layout(1, v1, tuple(c for c in CONTROLLERS if c in v1 and os.access(v1[c], os.W_OK)))
    if v2 is None and not v1:
        return Layout(0, why="no cgroup file system is mounted")
    return Layout(0, why="neither cgroup v2 nor v1 offers the memory and pids controllers")


@functools.lru_cache(maxsize=1)
def layout() -> Layout:
    """This machine's layout (read once per process)."""
    return read_layout()


def available() -> bool:
    """True when this process may create cgroups with memory and process limits (v2 or v1)."""
    return layout().usable


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


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
        return True
    except OSError:
        return False


def _hands_down(control: Path) -> bool:
    """True when the v2 root's ``cgroup.subtree_control`` enables memory and pids for new cgroups, enabled now if
    need be (what every new cgroup needs; it fails where processes live in a non-root cgroup, e.g. a container's
    namespace root)."""
    try:
        have = control.read_text().split()
    except OSError:
        return False
    wanted = [c for c in REQUIRED if c not in have]
    return not wanted or _write(control, " ".join(f"+{c}" for c in wanted))


def _counters(path: Path) -> dict[str, int]:
    """A flat-keyed file (``memory.events``, ``pids.events``, ``memory.oom_control``) as numbers; {} if unreadable."""
    try:
        pairs = (line.split() for line in path.read_text().splitlines())
        return {p[0]: int(p[1]) for p in pairs if len(p) == 2 and p[1].lstrip("-").isdigit()}
    except OSError:
        return {}


@dataclass(frozen=True)
class Budget:
    """What one cgroup may use: memory of all its processes together, how many processes, CPUs' time."""

    memory_mb: int
    processes: int
    cpus: float = 0.0  # CPUs' time per wall-clock second; 0: no cap, an equal share with siblings


class Group:
    """One cgroup ``name`` (``course-sandbox/123-ab12``) in every controller of the layout."""

    def __init__(self, name: str, where: Layout | None = None):
        """The cgroup as it stands (see :meth:`create`)."""
        self.name = name
        self.layout = where or layout()
        self.folders = self.layout.folders(name)
        self.held: tuple[str, ...] = ()  # the limits written by create: "memory", "processes", "cpu"

    def _folder(self, controller: str) -> Path:
        if self.layout.version == 2:
            return self.folders[0]
        return self.layout.mounts[controller] / self.name

    def _hand_down(self) -> None:
        """v2: every ancestor below the mount enables the controllers for its children (memory and pids
        must take; cpu may fail, e.g. while a realtime thread runs outside the root)."""
        root = self.layout.mounts[""]
        parts = Path(self.name).parts
        for depth in range(len(parts)):
            folder = root.joinpath(*parts[:depth])
            control = folder / "cgroup.subtree_control"
            have = control.read_text().split() if control.exists() else []
            wanted = [c for c in self.layout.controllers if c not in have]
            if wanted and not _write(control, " ".join(f"+{c}" for c in wanted)):
                for c in wanted:  # one by one: the required ones must take
                    if not _write(control, f"+{c}") and c in REQUIRED:
                        raise OSError(f"cannot enable the {c} controller in {control}")
            if depth + 1 < len(parts):
                (root.joinpath(*parts[: depth + 1])).mkdir(exist_ok=True)

    def create(self, budget: Budget) -> Group:
        """Make the cgroup (its parents too) and write ``budget``; :attr:`held` says which limits were set."""
        if self.layout.version == 2:
            self._hand_down()
        for folder in self.folders:
            folder.mkdir(parents=True, exist_ok=True)
        memory, processes, cpu = self._limit_v2(budget) if self.layout.version == 2 else self._limit_v1(budget)
        self.held = tuple(name for name, ok in (("memory", memory), ("processes", processes), ("cpu", cpu)) if ok)
        return self

    def _limit_v2(self, budget: Budget) -> tuple[bool, bool, bool]:
        """memory.max (and memory.swap.max 0 where the kernel accounts swap), pids.max, cpu.max: which took."""
        folder = self.folders[0]
        memory = _write(folder / "memory.max", str(budget.memory_mb * 2**20))
        if (folder / "memory.swap.max").exists():  # no swapping past the limit either
            _write(folder / "memory.swap.max", "0")
        processes = _write(folder / "pids.max", str(budget.processes))
        cap = f"{int(PERIOD_US * budget.cpus)} {PERIOD_US}" if budget.cpus > 0 else f"max {PERIOD_US}"
        return memory, processes, "cpu" in self.layout.controllers and _write(folder / "cpu.max", cap)

    def _limit_v1(self, budget: Budget) -> tuple[bool, bool, bool]:
        """memory.limit_in_bytes (and memory.memsw.limit_in_bytes, swap included), pids.max, cpu.cfs_quota_us."""
        limit = str(budget.memory_mb * 2**20)
        memory = _write(self._folder("memory") / "memory.limit_in_bytes", limit)
        swap = self._folder("memory") / "memory.memsw.limit_in_bytes"
        if swap.exists():
            _write(swap, limit)
        processes = _write(self._folder("pids") / "pids.max", str(budget.processes))
        cpu = "cpu" in self.layout.controllers
        if cpu and budget.cpus > 0:  # at most `cpus` CPUs' time per period, however many processes run
            cpu = _write(self._folder("cpu") / "cpu.cfs_quota_us", str(int(PERIOD_US * budget.cpus)))
        return memory, processes, cpu

    @property
    def procs_files(self) -> list[Path]:
        """What a process writes its pid into to join (every controller's folder)."""
        return [folder / "cgroup.procs" for folder in self.folders]

    def members(self) -> list[int]:
        """The processes inside ([] if the cgroup is gone)."""
        try:
            return [int(p) for p in (self._folder("pids") / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def out_of_memory(self) -> bool:
        """True if the memory limit was reached: the OOM killer ended a process (v2 ``oom_kill``, v1 ``oom_kill``
        or ``under_oom``), or the limit was hit (v2 ``max``, v1 ``failcnt``: the kernel may thrash a long time
        reclaiming instead of killing anything)."""
        memory = self._folder("memory")
        if self.layout.version == 2:
            events = _counters(memory / "memory.events")
            return any(events.get(k, 0) > 0 for k in ("oom_kill", "oom", "max"))
        control = _counters(memory / "memory.oom_control")
        try:
            failed = int((memory / "memory.failcnt").read_text())
        except (OSError, ValueError):
            failed = 0
        return control.get("oom_kill", 0) > 0 or control.get("under_oom", 0) == 1 or failed > 0

    def hit_process_limit(self) -> bool:
        """True if a fork or a thread was refused at ``pids.max`` (``pids.events``: ``max``, both layouts)."""
        return _counters(self._folder("pids") / "pids.events").get("max", 0) > 0

    def memory_peak_mb(self) -> float | None:
        """The most memory the cgroup used (v2 ``memory.peak``, v1 ``memory.max_usage_in_bytes``), in MB."""
        name = "memory.peak" if self.layout.version == 2 else "memory.max_usage_in_bytes"
        try:
            return int((self._folder("memory") / name).read_text()) / 2**20
        except (OSError, ValueError):
            return None

    def kill(self) -> int:
        """SIGKILL every process inside until none is left; returns how many there were."""
        killed = set(self.members())
        if killed and self.layout.version == 2:
            _write(self.folders[0] / "cgroup.kill", "1")  # the kernel's own, where it has it (5.14+)
        for _ in range(50):
            left = self.members()
            if not left:
                break
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.add(pid)
                except ProcessLookupError:
                    pass
            time.sleep(0.05)
        return len(killed)

    def destroy(self) -> int:
        """Kill every process still inside, then remove the cgroup; returns how many were killed."""
        killed = self.kill()
        for folder in self.folders:
            for _ in range(20):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # busy for a moment after the last kill; or a fake tree's files
                    time.sleep(0.05)
        return killed

    def children(self) -> list[str]:
        """The names of the cgroups directly below this one."""
        folder = self._folder("pids")
        return sorted(f"{self.name}/{f.name}" for f in folder.iterdir() if f.is_dir()) if folder.is_dir() else []

    def remove_tree(self) -> int:
        """Kill and remove every cgroup below this one, then this one; returns how many processes were killed."""
        killed = sum(Group(child, self.layout).remove_tree() for child in self.children())
        return killed + self.destroy()


def sweep_orphans() -> int:
    """Empty and remove the sandbox cgroups of graders that were killed before they could; returns how many.

    A grader killed outright (SIGKILL, a lost Dask worker) never runs
    :meth:`Cgroup.destroy`; its cgroups, and anything still inside them, would
    stay. Each cgroup is named after the process that made it, so the next
    sandbox cleans up after the dead one and never touches a living grader's.
    """
    swept = 0
    for name in Group(PARENT).children():
        if left_by_dead_grader(Path(name).name):
            Group(name).destroy()
            swept += 1
    return swept


class Cgroup(Group):
    """The cgroup of one sandbox: ``course-sandbox/<creator pid>-<random>``."""

    @classmethod
    def create_for_sandbox(cls, budget: Budget) -> Cgroup:
        """A new cgroup for one sandbox, with its limits (after sweeping the dead graders' ones)."""
        sweep_orphans()
        made = cls(f"{PARENT}/{prefix()}{uuid.uuid4().hex[:12]}")
        made.create(budget)
        return made

    def pids_left(self) -> list[int]:
        return self.members()
