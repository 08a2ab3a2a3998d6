"""Run one prepared notebook in a sandbox; get the executed notebook back as data.

The sandbox (bubblewrap, as root) is a private filesystem that holds only

    /sandbox/work   the files the release ships; the notebook's cwd (the kernel's, read-write)
    /sandbox/out    the job, the prepared notebook (the executor's alone, deleted before any
                    cell runs) and the executor's "started" mark (the executor's, read-only
                    to the kernel; the result comes down a pipe)
    /sandbox/home   a scratch home (the kernel's; matplotlib's font cache copied in)
    /tmp            a small tmpfs

(work and home share one size-limited tmpfs on the host, out has a small one
of its own; both are private to root and the sandbox's uids and removed
afterwards; a killed grader's are removed by the next one)

The executor and the kernel are two users: the executor (uid 65534) starts
with CAP_SETUID, CAP_SETGID, CAP_SETPCAP and CAP_KILL only, starts the kernel
through ``setpriv`` as :data:`KERNEL_UID` with no capabilities at all (over
loopback TCP), then keeps only CAP_KILL (to interrupt and stop the kernel).
So the kernel can neither signal, trace nor read the executor (nor its
``/proc`` files), nor write its files. The executed notebook comes back down
a pipe: the grader holds the reading end, the executor the only writing end
(not inherited by the kernel, unreachable through ``/proc``), and the grader
takes the result only from an executor that exited normally.

plus, read-only, ``/usr``, ``/etc``, the interpreter, the venv, the package
the notebooks import (``course``) and the executor script. Not visible: the
course directory (source/, gradebook, other students), ``solutions/``,
``tests/``, the grader's own code (``instructor``, also where the venv holds
it), ``/root``, the grader's environment. Inside, student code runs
as uid 65533 with no capabilities, no network (loopback only), its own PID
namespace (it cannot see or signal the grader), a memory, a pids and a cpu
cgroup of its own (an equal share of the CPUs with every other sandbox), and
rlimits on CPU time and file size. When the executor ends, the
PID namespace dies with it; the grader then kills whatever is left in the
cgroup, so no process outlives the grading of its submission.

Where bubblewrap cannot run, :func:`detect` says so and grading refuses
student work unless the instructor asks for unsafe grading (:func:`unsafe`).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from instructor.errors import CourseError
from instructor.sandbox import cgroup
from instructor.sandbox.limits import Limits

__all__ = ["Isolation", "Execution", "Limits", "detect", "unsafe", "execute"]

#: the executor's uid in the sandbox
NOBODY = 65534
#: the kernel's uid (student code), not the executor's: it cannot signal, trace or replace the
#: executor, nor write its files (65533: unused by the distributions; no name needed, none looked up)
KERNEL_UID = 65533
#: what the executor may do besides what uid 65534 may: start the kernel under KERNEL_UID with no
#: capabilities (setuid, setgid, setpcap: dropped once it runs) and signal it (kill: kept)
EXECUTOR_CAPS = "setuid,setgid,setpcap,kill"
#: the prefix of the kernel's command in the sandbox (the executor runs it): KERNEL_UID, every capability
#: set empty, no way to gain one back
KERNEL_LAUNCH = [
    "setpriv",
    f"--reuid={KERNEL_UID}",
    f"--regid={KERNEL_UID}",
    "--clear-groups",
    "--no-new-privs",
    "--bounding-set=-all",
    "--inh-caps=-all",
    "--ambient-caps=-all",
    "--",
]
#: a result larger than this is not read (the executor caps outputs far below)
MAX_RESULT_BYTES = 64 * 2**20


@dataclass(frozen=True)
class Isolation:
    """Which isolation grades the submissions, in words for the grade report."""

    name: str  # "bubblewrap" or "none"
    detail: str
    safe: bool


def unsafe(reason: str) -> Isolation:
    return Isolation("none", f"none: student code runs with the grader's rights ({reason})", False)


@functools.lru_cache(maxsize=1)
def detect() -> Isolation:
    """bubblewrap if it works here, else an unsafe :class:`Isolation` saying why not.

    ``COURSE_SANDBOX=none`` pretends no sandbox exists (to test the refusal).
    """
    if os.environ.get("COURSE_SANDBOX", "").lower() == "none":
        return unsafe("COURSE_SANDBOX=none")
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return unsafe("bubblewrap is not installed: scripts/install-system-packages.sh installs it")
    if os.geteuid() != 0:
        return unsafe(f"the sandbox needs root to switch to uids {NOBODY} and {KERNEL_UID} and create cgroups")
    why = probe()
    if why:
        return unsafe(f"bubblewrap does not start here: {why}")
    limits = (
        "memory and process limits per sandbox (cgroup v1)"
        if cgroup.available()
        else "no cgroups: memory by rlimit, processes unlimited"
    )
    return Isolation(
        "bubblewrap",
        f"bubblewrap: uid {KERNEL_UID} (executor {NOBODY}), no network, private filesystem, {limits}",
        True,
    )


#: what the probe runs inside: the interpreter, the executor's imports and the student package, as a run needs
#: them, and the switch to the kernel's uid
PROBE = (
    "import sys; sys.modules.setdefault('rfc3987_syntax', None); "  # as the executor does: 1.5 s less
    "import importlib.util as u, nbclient, nbformat, subprocess; "
    "missing = [m for m in ('ipykernel', 'course') if not u.find_spec(m)]; "
    "assert not missing, f'{missing} cannot be imported'; "
    f"assert subprocess.run({KERNEL_LAUNCH!r} + ['true']).returncode == 0, "
    "'the kernel cannot be started under a uid of its own (setpriv)'"
)


def probe() -> str:
    """ "" if a sandbox with the real interpreter and binds starts and imports what grading needs, else why not.

    The real binds matter: an interpreter or a course installed under
    ``/tmp``, a home folder or a conda prefix must be visible inside.
    """
    command = [
        *_bwrap_args(_readonly_roots(), {}, files={str(EXECUTOR): EXECUTOR_INSIDE}),
        sys.executable,
        "-I",
        "-c",
        PROBE,
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"the probe could not run ({type(err).__name__})"
    if done.returncode == 0:
        return ""
    return (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1][:200]


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


#: the script the sandbox runs (it imports nothing of the grader)
EXECUTOR = Path(__file__).resolve().with_name("executor.py")
#: where the sandbox sees it
EXECUTOR_INSIDE = "/sandbox/executor.py"
#: the file the executor writes first (executor.STARTED; the grader does not import the script)
STARTED = "started"


#: the package the notebooks import: the only course code the sandbox binds
STUDENT_PACKAGE = "course"
#: the grader's packages, never visible inside
GRADER_PACKAGES = ("instructor", "course_data")


def _package_dir(name: str) -> Path:
    """Where package ``name`` is installed (found, not imported)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise CourseError(f"The package {name} is not installed: reinstall the course (pip install -e .).")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def _readonly_roots() -> list[str]:
    """Interpreter, venv and the student package, bound read-only."""
    return sorted({sys.base_prefix, sys.prefix, str(_package_dir(STUDENT_PACKAGE))})


def _hidden(roots: list[str]) -> list[str]:
    """The grader's packages where a bound root holds them (a venv they were installed into).

    They are covered by an empty folder inside the sandbox: student code reads
    neither the grader nor the data builder.
    """
    grader = [_package_dir(name) for name in GRADER_PACKAGES]
    return sorted(str(p) for p in grader if any(p.is_relative_to(root) for root in roots))


def _bwrap_args(
    roots: list[str],
    binds: dict[str, str],
    tmp_mb: int = 64,
    env: dict[str, str] | None = None,
    chdir: str = "/",
    files: dict[str, str] | None = None,
) -> list[str]:
    args = [
        "bwrap",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--chdir",
        chdir,
        "--ro-bind",
        "/usr",
        "/usr",
        "--ro-bind",
        "/etc",
        "/etc",
        "--symlink",
        "usr/bin",
        "/bin",
        "--symlink",
        "usr/lib",
        "/lib",
        "--symlink",
        "usr/sbin",
        "/sbin",
    ]
    if os.path.isdir("/usr/lib64"):
        args += ["--symlink", "usr/lib64", "/lib64"]
    # the small /tmp first: a venv or a clone that lives under the host's /tmp is bound on top of it, not hidden
    args += ["--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--size", str(tmp_mb * 2**20), "--tmpfs", "/tmp"]
    # bwrap makes missing parent folders 0700: uid 65534 could not pass them
    mounts = [*roots, *binds.values(), *(files or {}).values()]
    parents = sorted({str(p) for m in mounts for p in Path(m).parents if str(p) not in ("/", "/tmp")}, key=len)
    for parent in parents:
        args += ["--perms", "0755", "--dir", parent]
    for root in roots:
        args += ["--ro-bind", root, root]
    for folder in _hidden(roots):
        args += ["--perms", "0555", "--tmpfs", folder, "--remount-ro", folder]
    for host, inside in binds.items():
        args += ["--bind", host, inside]
    for host, inside in (files or {}).items():
        args += ["--ro-bind", host, inside]
    for key, value in (env or {}).items():
        args += ["--setenv", key, value]
    caps = ",".join(f"+{cap}" for cap in EXECUTOR_CAPS.split(","))
    return args + [
        "--",
        "setpriv",
        f"--reuid={NOBODY}",
        f"--regid={NOBODY}",
        "--clear-groups",
        "--no-new-privs",
        f"--bounding-set=-all,{caps}",
        f"--inh-caps=-all,{caps}",
        f"--ambient-caps=-all,{caps}",
    ]


def _environment(prefix: str, home: str) -> dict[str, str]:
    """The kernel's whole environment: nothing of the grader's."""
    return {
        "PATH": f"{prefix}/bin:/usr/bin:/bin",
        "HOME": home,
        "USER": "student",
        "LANG": "C.UTF-8",
        "NBGRADER_EXECUTION": "autograde",
        "COURSE_QUICK": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLCONFIGDIR": f"{home}/.config/matplotlib",
        "IPYTHONDIR": f"{home}/.ipython",
        "JUPYTER_RUNTIME_DIR": "/tmp/jupyter-runtime",
        "JUPYTER_PLATFORM_DIRS": "1",
    }


def _copy_font_cache(home: Path) -> None:
    """matplotlib rebuilds its font list (seconds) unless it finds one."""
    cache = Path(os.environ.get("MPLCONFIGDIR") or Path.home() / ".cache" / "matplotlib")
    target = home / ".config" / "matplotlib"
    target.mkdir(parents=True)
    for path in cache.glob("fontlist-*.json"):
        shutil.copy(path, target / path.name)


def _limited(command: list[str], limits: Limits, cg: cgroup.Cgroup | None) -> list[str]:
    """``command`` started inside the cgroups, under rlimits (a shell and prlimit, no preexec_fn).

    The grader may run several sandboxes from threads; Python code between
    fork and exec (``preexec_fn``) is not safe there.
    """
    size = limits.file_mb * 2**20
    rlimits = [f"--cpu={limits.cpu_seconds}", f"--fsize={size}", "--core=0", "--nofile=1024"]
    if cg is None:  # no memory cgroup: bound each process's address space instead
        rlimits.append(f"--as={limits.memory_mb * 2**20}")
    joins = " && ".join(f"echo $$ > {folder / 'cgroup.procs'}" for folder in cg.folders) if cg else "true"
    return ["/bin/sh", "-c", f'{joins} && exec "$@"', "sandbox", "prlimit", *rlimits, "--", *command]


def execute(nb, files: list[Path], limits: Limits, isolation: Isolation) -> Execution:
    """Run ``nb`` (a prepared NotebookNode) next to copies of ``files``; see the module doc.

    With an unsafe ``isolation`` the same executor runs as a plain child
    process of the grader (same limits where the kernel allows, no isolation).
    """
    import nbformat

    sandboxed = isolation.name == "bubblewrap"
    sweep_scratch()
    scratch = Path(tempfile.mkdtemp(prefix=SCRATCH + cgroup.prefix()))  # 0700: the grader's alone
    box, out = scratch / "box", scratch / "out"
    mounts = []
    try:
        for folder, size_mb in ((box, limits.disk_mb), (out, RESULT_MB)):
            folder.mkdir()
            if sandboxed and _mount_tmpfs(folder, size_mb):
                mounts.append(folder)
        work, home = box / "work", box / "home"
        for folder in (work, home):
            folder.mkdir()
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
        command = [sys.executable, "-I", script, f"{inside['out']}/job.json"]
        env = _environment(sys.prefix, inside["home"])
        if sandboxed:
            for path in [work, home, *home.rglob("*"), *work.rglob("*")]:
                os.chown(path, KERNEL_UID, KERNEL_UID)
            os.chown(out, NOBODY, NOBODY)
            out.chmod(0o755)
            os.chown(out / name, NOBODY, NOBODY)
            (out / name).chmod(0o600)
            binds = {str(work): inside["work"], str(out): inside["out"], str(home): inside["home"]}
            executor = {str(EXECUTOR): EXECUTOR_INSIDE}
            command = [*_bwrap_args(_readonly_roots(), binds, limits.tmp_mb, env, inside["work"], executor), *command]
            env = {}
        return _run(command, env, scratch, out, work, limits, (channel, result_fd))
    finally:
        _remove_scratch(scratch, mounts)


#: the grader's scratch folders in the host's /tmp: course-sandbox-<grader pid>-<random>
SCRATCH = "course-sandbox-"
#: the result's own file system: a notebook that fills its disk still gets its result back
RESULT_MB = MAX_RESULT_BYTES // 2**20 + 16


def _mount_tmpfs(folder: Path, size_mb: int) -> bool:
    """Make ``folder`` a private tmpfs of ``size_mb`` (root only): all a sandbox writes, bounded; False if not."""
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m,mode=0700,nosuid,nodev", "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def _remove_scratch(folder: Path, mounts: list[Path] | None = None) -> None:
    for mount in mounts if mounts is not None else [p for p in folder.iterdir() if os.path.ismount(p)]:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)
    shutil.rmtree(folder, ignore_errors=True)


def sweep_scratch() -> int:
    """Remove the scratch folders of graders that were killed before they could (a prepared notebook
    holds the hidden tests); returns how many. A living grader's folders are never touched."""
    swept = 0
    for folder in Path(tempfile.gettempdir()).glob(f"{SCRATCH}*"):
        if not folder.is_dir() or folder.is_symlink() or folder.lstat().st_uid not in (os.geteuid(), NOBODY):
            continue
        name = folder.name[len(SCRATCH) :]
        if name.split("-", 1)[0].isdigit():
            gone = cgroup.left_by_dead_grader(name)
        else:  # named by an older grader without its pid: gone once it is an hour old
            gone = time.time() - folder.lstat().st_mtime > 3600
        if not gone:
            continue
        _remove_scratch(folder)
        swept += 1
    return swept


def _read_channel(fd: int, into: list) -> None:
    """Read the executor's pipe to its end (at most MAX_RESULT_BYTES + 1 bytes kept)."""
    with os.fdopen(fd, "rb") as pipe:
        data = pipe.read(MAX_RESULT_BYTES + 1)
        while pipe.read(1 << 20):  # drain whatever is beyond the cap, so the writer never blocks
            pass
    into.append(data)


def _run(
    command: list[str], env: dict, scratch: Path, out: Path, work: Path, limits: Limits, pipe: tuple[int, int]
) -> Execution:
    cg = cgroup.Cgroup.create(limits.memory_mb, limits.processes, limits.cpus) if cgroup.available() else None
    start = time.monotonic()
    log_path = scratch / "log.txt"
    status = reason = ""
    channel, result_fd = pipe
    received: list[bytes] = []
    reader = threading.Thread(target=_read_channel, args=(channel, received), daemon=True)
    try:
        with open(log_path, "wb") as log:
            try:
                proc = subprocess.Popen(
                    _limited(command, limits, cg),
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
        killed = cg.destroy() if cg else 0
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
        return Execution(status, reason, None, seconds, log=text, processes_killed=killed, hit_process_limit=many)
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
        data["output_cut"] = [int(i) for i in data["output_cut"]]
        data["detail"] = str(data["detail"])[:300]
        return data
    except Exception:
        return None
