"""The command line that starts the executor in a sandbox: bubblewrap's arguments, the binds, the two users.

The sandbox (bubblewrap, as root) is a private filesystem that holds only

    /sandbox/work   the files the release ships; the notebook's cwd (the kernel's, read-write)
    /sandbox/out    the job, the prepared notebook (the executor's alone, deleted before any
                    cell runs) and the executor's "started" mark (the executor's, read-only
                    to the kernel; the result comes down a pipe)
    /sandbox/home   a scratch home (the kernel's; matplotlib's font cache copied in)
    /tmp            a small tmpfs

plus, read-only, ``/usr``, ``/etc``, the interpreter, the venv, the package
the notebooks import (``course``) and the executor script. Not visible: the
course directory (source/, gradebook, other students), ``solutions/``,
``tests/``, the grader's own code (``instructor``, also where the venv holds
it: :func:`hidden`), ``/root``, the grader's environment (:func:`environment`
is the kernel's whole environment). No network (loopback only), its own PID
namespace (it cannot see or signal the grader).

The executor and the kernel are two users: the executor (:data:`NOBODY`)
starts with :data:`EXECUTOR_CAPS` only, starts the kernel through
``setpriv`` (:data:`KERNEL_LAUNCH`) as :data:`KERNEL_UID` with no
capabilities at all, then keeps only CAP_KILL (to interrupt and stop the
kernel). So the kernel can neither signal, trace nor read the executor (nor
its ``/proc`` files), nor write its files.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from course.draws import VARIANT_ENV
from instructor.errors import CourseError
from instructor.sandbox import cgroup
from instructor.sandbox.limits import Limits

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

#: the script the sandbox runs (it imports nothing of the grader)
EXECUTOR = Path(__file__).resolve().with_name("executor.py")
#: where the sandbox sees it
EXECUTOR_INSIDE = "/sandbox/executor.py"

#: the package the notebooks import: the only course code the sandbox binds
STUDENT_PACKAGE = "course"
#: the grader's packages, never visible inside
GRADER_PACKAGES = ("instructor", "course_data")
#: packages of the venv the kernel never needs, covered like the grader's: ipykernel imports debugpy whenever
#: it finds it (about 0.1 s of every kernel start), for a debugger no grading run attaches
UNNEEDED_PACKAGES = ("debugpy",)


def package_dir(name: str) -> Path:
    """Where package ``name`` is installed (found, not imported)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise CourseError(f"The package {name} is not installed: reinstall the course (pip install -e .).")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def readonly_roots() -> list[str]:
    """Interpreter, venv, the site folders on sys.path outside both and the student package, bound read-only.

    A site folder outside the prefixes is one a ``.pth`` file of the venv names (a venv that borrows another's
    packages): the kernel, the same interpreter, imports from it. Only folders named as site folders are bound,
    never a checkout that an editable install puts on sys.path (it holds the solutions).
    """
    prefixes = {sys.base_prefix, sys.prefix}
    sites = {
        entry
        for entry in sys.path
        if Path(entry).name in ("site-packages", "dist-packages")
        and Path(entry).is_dir()
        and not any(Path(entry).is_relative_to(prefix) for prefix in prefixes)
    }
    return sorted(prefixes | sites | {str(package_dir(STUDENT_PACKAGE))})


def hidden(roots: list[str]) -> list[str]:
    """The grader's packages, and the installed ones of :data:`UNNEEDED_PACKAGES`, where a bound root holds them
    (a venv they were installed into).

    They are covered by an empty folder inside the sandbox: student code reads
    neither the grader nor the data builder.
    """
    grader = [package_dir(name) for name in GRADER_PACKAGES]
    unneeded = [package_dir(name) for name in UNNEEDED_PACKAGES if importlib.util.find_spec(name) is not None]
    return sorted(str(p) for p in grader + unneeded if any(p.is_relative_to(root) for root in roots))


def bwrap_args(
    roots: list[str],
    binds: dict[str, str],
    tmp_mb: int = 64,
    env: dict[str, str] | None = None,
    chdir: str = "/",
    files: dict[str, str] | None = None,
) -> list[str]:
    """bubblewrap's command up to the executor's: ``roots`` read-only, ``binds`` (host -> inside) read-write,
    ``files`` (host -> inside) read-only, ``env`` the whole environment, then ``setpriv`` to :data:`NOBODY`."""
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
    for folder in hidden(roots):
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


def environment(prefix: str, home: str, variant_seed: int | None = None) -> dict[str, str]:
    """The kernel's whole environment: nothing of the grader's (``variant_seed``: the student's, for
    ``course.draws.variant``)."""
    variant = {} if variant_seed is None else {VARIANT_ENV: str(int(variant_seed))}
    return variant | {
        "PATH": f"{prefix}/bin:/usr/bin:/bin",
        "HOME": home,
        "USER": "student",
        "LANG": "C.UTF-8",
        "NBGRADER_EXECUTION": "autograde",
        "COURSE_QUICK": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        # `python -m ipykernel_launcher` would put the work folder first on sys.path: a student's file there
        # (ipykernel_launcher.py, zmq.py) would run while the kernel starts, before any cell. IPython puts the
        # folder back once it has started, so the notebook's cells still import the student's own modules.
        "PYTHONSAFEPATH": "1",
        "MPLCONFIGDIR": f"{home}/.config/matplotlib",
        "IPYTHONDIR": f"{home}/.ipython",
        "JUPYTER_RUNTIME_DIR": "/tmp/jupyter-runtime",
        "JUPYTER_PLATFORM_DIRS": "1",
    }


def limited(command: list[str], limits: Limits, cg: cgroup.Cgroup | None) -> list[str]:
    """``command`` started inside the cgroups, under rlimits (a shell and prlimit, no preexec_fn).

    The grader may run several sandboxes from threads; Python code between
    fork and exec (``preexec_fn``) is not safe there.
    """
    size = limits.file_mb * 2**20
    rlimits = [f"--cpu={limits.cpu_seconds}", f"--fsize={size}", "--core=0", "--nofile=1024"]
    if cg is None:  # no memory cgroup: bound each process's address space instead
        rlimits.append(f"--as={limits.memory_mb * 2**20}")
    joins = " && ".join(f"echo $$ > {procs}" for procs in cg.procs_files) if cg else "true"
    return ["/bin/sh", "-c", f'{joins} && exec "$@"', "sandbox", "prlimit", *rlimits, "--", *command]
