"""Run one prepared notebook in a sandbox (:mod:`instructor.sandbox.command`); read the executed notebook it sends back.

The run's files live in a scratch folder of the host (:mod:`instructor.sandbox.scratch`):
work and home share one size-limited tmpfs, out has a small one of its own.
Inside, student code runs as :data:`~instructor.sandbox.command.KERNEL_UID`
in a memory, a pids and a cpu cgroup of its own (an equal share of the CPUs
with every other sandbox), under rlimits on CPU time and file size. When the
executor ends, the PID namespace dies with it; the grader then kills
whatever is left in the cgroup, so no process outlives the grading of its
submission.

The executed notebook comes back down a pipe: the grader holds the reading
end, the executor the only writing end (not inherited by the kernel,
unreachable through ``/proc``), and the grader takes the result only from an
executor that exited normally.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from instructor.sandbox import cgroup, command, scratch
from instructor.sandbox.command import EXECUTOR, EXECUTOR_INSIDE, KERNEL_LAUNCH, KERNEL_UID, NOBODY
from instructor.sandbox.limits import Limits
from instructor.sandbox.probe import Isolation

#: a result larger than this is not read (the executor caps outputs far below)
MAX_RESULT_BYTES = 64 * 2**20
#: the result's own file system: a notebook that fills its disk still gets its result back
RESULT_MB = MAX_RESULT_BYTES // 2**20 + 16
#: the file the executor writes first (executor.STARTED; the grader does not import the script)
STARTED = "started"


@dataclass
class Execution:
    """What came back from one sandboxed run."""

    status: str  # ok, budget, unresponsive, died, memory, wall_clock, no_result, not_started
    reason: str  # one sentence when status is not ok
    notebook: object | None  # the executed NotebookNode, or None
    seconds: float
    timed_out: list[int] = field(default_factory=list)
    output_cut: list[int] = field(default_factory=list)
    log: str = ""
    processes_killed: int = 0
    hit_process_limit: bool = False
    limits_held: tuple[str, ...] = ()  # of "memory", "processes", "cpu": the cgroup limits the run had
    memory_peak_mb: float | None = None  # the most memory the sandbox used, where the kernel says
    stopped_at: int | None = None  # budget / unresponsive / died: the cell the run stopped in (None: before any)


def _copy_font_cache(home: Path) -> None:
    """matplotlib rebuilds its font list (seconds) unless it finds one."""
    cache = Path(os.environ.get("MPLCONFIGDIR") or Path.home() / ".cache" / "matplotlib")
    target = home / ".config" / "matplotlib"
    target.mkdir(parents=True)
    for path in cache.glob("fontlist-*.json"):
        shutil.copy(path, target / path.name)


def run_notebook(
    nb, files: list[Path], limits: Limits, isolation: Isolation, variant_seed: int | None = None
) -> Execution:
    """Run ``nb`` (a prepared NotebookNode) next to copies of ``files``; see the module doc.

    ``variant_seed`` is the student's: her own parameters (``course.draws.variant``) are drawn from it in
    every cell, whatever ``variants.json`` she handed in says.

    With an unsafe ``isolation`` the same executor runs as a plain child
    process of the grader (same limits where the kernel allows, no isolation).
    """
    import nbformat

    sandboxed = isolation.name == "bubblewrap"
    scratch.sweep()
    folder = scratch.make()
    box, out = folder / "box", folder / "out"
    mounts = []
    try:
        for part, size_mb in ((box, limits.disk_mb), (out, RESULT_MB)):
            part.mkdir()
            if sandboxed and scratch.mount_tmpfs(part, size_mb):
                mounts.append(part)
        work, home = box / "work", box / "home"
        for part in (work, home):
            part.mkdir()
        for path in files:
            shutil.copy(path, work / path.name)
        _copy_font_cache(home)
        inside = (
            {"work": "/sandbox/work", "out": "/sandbox/out", "home": "/sandbox/home"}
            if sandboxed
            else {"work": str(work), "out": str(out), "home": str(home)}
        )
        name = "notebook.ipynb"
        nbformat.write(nb, str(out / name))
        channel, result_fd = os.pipe()  # the result's way out: the grader reads, only the executor writes
        job = {
            "notebook": f"{inside['out']}/{name}",
            "work": inside["work"],
            "out": inside["out"],
            "result_fd": result_fd,
            "kernel_prefix": KERNEL_LAUNCH if sandboxed else [],
            "limits": limits.as_dict(),
        }
        (out / "job.json").write_text(json.dumps(job))  # root's: read-only to both
        # -I: no user site, no PYTHON* variables, and the script's folder not on sys.path
        script = EXECUTOR_INSIDE if sandboxed else str(EXECUTOR)
        started = [sys.executable, "-I", script, f"{inside['out']}/job.json"]
        env = command.environment(sys.prefix, inside["home"], variant_seed)
        if sandboxed:
            for path in [work, home, *home.rglob("*"), *work.rglob("*")]:
                os.chown(path, KERNEL_UID, KERNEL_UID)
            os.chown(out, NOBODY, NOBODY)
            out.chmod(0o755)
            os.chown(out / name, NOBODY, NOBODY)
            (out / name).chmod(0o600)
            binds = {str(work): inside["work"], str(out): inside["out"], str(home): inside["home"]}
            executor = {str(EXECUTOR): EXECUTOR_INSIDE}
            roots = command.readonly_roots()
            started = [*command.bwrap_args(roots, binds, limits.tmp_mb, env, inside["work"], executor), *started]
            env = {}
        return _supervise(started, env, folder, out, work, limits, (channel, result_fd))
    finally:
        scratch.remove(folder, mounts)


def _read_channel(fd: int, into: list) -> None:
    """Read the executor's pipe to its end (at most MAX_RESULT_BYTES + 1 bytes kept)."""
    with os.fdopen(fd, "rb") as pipe:
        data = pipe.read(MAX_RESULT_BYTES + 1)
        while pipe.read(1 << 20):  # drain whatever is beyond the cap, so the writer never blocks
            pass
    into.append(data)


def _supervise(
    started: list[str], env: dict, folder: Path, out: Path, work: Path, limits: Limits, pipe: tuple[int, int]
) -> Execution:
    """Start ``started`` in its cgroups, wait for it (at most the wall clock), kill what is left, read the result."""
    budget = cgroup.Budget(limits.memory_mb, limits.processes, limits.cpus)
    cg = cgroup.Cgroup.create_for_sandbox(budget) if cgroup.available() else None
    start = time.monotonic()
    log_path = folder / "log.txt"
    status = reason = ""
    channel, result_fd = pipe
    received: list[bytes] = []
    reader = threading.Thread(target=_read_channel, args=(channel, received), daemon=True)
    try:
        with open(log_path, "wb") as log:
            try:
                proc = subprocess.Popen(
                    command.limited(started, limits, cg),
                    env=env or None,
                    cwd=str(work),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    pass_fds=(result_fd,),
                )
            finally:
                os.close(result_fd)  # the executor holds the only writing end now
            reader.start()
            try:
                code = proc.wait(timeout=limits.wall_clock)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait()
                status = "wall_clock"
                reason = f"the sandbox ran past {limits.wall_clock:g} s and was stopped"
    finally:
        # read the evidence before the cgroups go
        oom = cg.out_of_memory() if cg else False
        many = cg.hit_process_limit() if cg else False
        peak = cg.memory_peak_mb() if cg else None
        killed = cg.destroy() if cg else 0
    held = cg.held if cg else ()
    seconds = time.monotonic() - start
    text = log_path.read_bytes()[-20_000:].decode("utf-8", "replace")
    reader.join(timeout=30)
    # a result counts only from an executor that ended normally (a killed one wrote nothing to trust)
    result = _read_result(received[0]) if received and code == 0 and not status else None
    memory = f"a process used more than the {limits.memory_mb} MB memory limit and was killed"
    if result is None:
        if not status and not (out / STARTED).exists():
            last = (text.strip().splitlines() or ["no message"])[-1][:200]
            status, reason = "not_started", f"the sandbox did not start (exit status {code}: {last})"
        elif not status:
            status, reason = (
                ("memory", memory)
                if oom and code != 0
                else ("no_result", f"the sandbox ended without returning a result (exit status {code})")
            )
        return Execution(status, reason, None, seconds, [], [], text, killed, many, held, peak)
    status, reason = result["status"], result["detail"]
    if status in ("died", "unresponsive") and oom:
        status, reason = "memory", memory
    return Execution(
        status,
        reason if status != "ok" else "",
        result["notebook"],
        seconds,
        result["timed_out"],
        result["output_cut"],
        text,
        killed,
        many,
        held,
        peak,
        result["stopped_at"],
    )


def _read_result(raw: bytes):
    """The executor's result, or None if empty, oversized or malformed (whatever decoding it raises,
    RecursionError included: a result nested too deep for json or nbformat is malformed, not the grader's crash)."""
    import nbformat

    try:
        if not raw or len(raw) > MAX_RESULT_BYTES:
            return None
        data = json.loads(raw.decode("utf-8"))
        data["notebook"] = nbformat.from_dict(data["notebook"])
        nbformat.validate(data["notebook"])
        if data["status"] not in {"ok", "budget", "unresponsive", "died"}:
            return None
        data["timed_out"] = [int(i) for i in data["timed_out"]]
        data["stopped_at"] = None if data.get("stopped_at") is None else int(data["stopped_at"])
        data["output_cut"] = [int(i) for i in data["output_cut"]]
        data["detail"] = str(data["detail"])[:300]
        return data
    except Exception:
        return None
