"""What isolation this machine offers: bubblewrap if a real sandbox starts here, else none and why.

Where bubblewrap cannot run, :func:`detect` says so and grading refuses
student work unless the instructor asks for unsafe grading (:func:`unsafe`).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

from instructor.sandbox import cgroup, command
from instructor.sandbox.command import EXECUTOR, EXECUTOR_INSIDE, KERNEL_LAUNCH, KERNEL_UID, NOBODY
from instructor.sandbox.limits import Limits


@dataclass(frozen=True)
class Isolation:
    """Which isolation grades the submissions, in words for the grade report."""

    name: str  # "bubblewrap" or "none"
    detail: str
    safe: bool
    limited: bool = False  # memory and process limits per sandbox can be set here (cgroup v2 or v1)


def unsafe(reason: str) -> Isolation:
    return Isolation("none", f"none: student code runs with the grader's rights ({reason})", False, cgroup.available())


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
    return Isolation(
        "bubblewrap",
        f"bubblewrap: uid {KERNEL_UID} (executor {NOBODY}), no network, private filesystem, {limits_line()}",
        True,
        cgroup.available(),
    )


def limits_line() -> str:
    """Which limits a sandbox gets here, for the isolation line."""
    layout = cgroup.layout()
    if layout.usable:
        return layout.words().replace("per cgroup", "per sandbox")
    return f"{layout.words()}: memory by rlimit, processes unlimited"


def refuse_without_limits(isolation: Isolation, limits: Limits) -> str:
    """One sentence refusing to grade where no memory and process limit can be set ("" when grading may go on)."""
    if isolation.limited or not limits.required:
        return ""
    return (
        f"No memory and process limit can be set for the sandbox here ({cgroup.layout().why}): run as root on a "
        "machine with cgroup v2 or v1, or pass --no-limits to grade without them."
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
    started = [
        *command.bwrap_args(command.readonly_roots(), {}, files={str(EXECUTOR): EXECUTOR_INSIDE}),
        sys.executable,
        "-I",
        "-c",
        PROBE,
    ]
    try:
        done = subprocess.run(started, capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"the probe could not run ({type(err).__name__})"
    if done.returncode == 0:
        return ""
    return (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1][:200]
