"""Start JupyterHub in the foreground; Ctrl-C (or SIGTERM) stops it, every user's server and the proxy."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from instructor.hub import cgroups
from instructor.hub.config import HubSettings

#: what the idle culler's command line holds (config.hub_config starts it as a hub service)
CULLER = "jupyterhub_idle_culler"


def command(s: HubSettings) -> list[str]:
    return [sys.executable, "-m", "jupyterhub", "-f", str(s.config_file)]


def children(pid: int, marker: str) -> list[int]:
    """The processes whose parent is ``pid`` and whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue  # it ended while we looked
        if parent == pid and marker in line:
            found.append(int(entry.name))
    return found


def stop_culler(hub_pid: int) -> int:
    """SIGTERM the hub's idle culler before the hub stops it: JupyterHub would SIGINT it and wait its
    ``interrupt_timeout`` (30 s) each Ctrl-C; returns how many were sent the signal."""
    culled = children(hub_pid, CULLER)
    for pid in culled:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    return len(culled)


def run(s: HubSettings) -> int:
    """Run the hub until it exits or is told to stop; returns its exit status (0 when stopped on request)."""
    # its own session: a Ctrl-C reaches only us, and the hub gets one orderly SIGTERM
    hub = subprocess.Popen(command(s), cwd=s.state, start_new_session=True)
    stopping: list[int] = []

    def stop(signum, frame):
        if not stopping:
            stopping.append(signum)
            stop_culler(hub.pid)
            hub.send_signal(signal.SIGTERM)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        status = hub.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if hub.poll() is None:
            hub.kill()
            hub.wait()
        if cgroups.available():  # this hub's users only: another course's hub keeps its own
            cgroups.leftovers(cgroups.hub_name(s.hub_dir))
    return 0 if stopping else status
