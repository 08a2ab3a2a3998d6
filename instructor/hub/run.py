"""Start JupyterHub in the foreground; Ctrl-C (or SIGTERM) stops it, every user's server and the proxy."""

from __future__ import annotations

import signal
import subprocess
import sys

from instructor.hub import cgroups
from instructor.hub.config import HubSettings


def command(s: HubSettings) -> list[str]:
    return [sys.executable, "-m", "jupyterhub", "-f", str(s.config_file)]


def run(s: HubSettings) -> int:
    """Run the hub until it exits or is told to stop; returns its exit status (0 when stopped on request)."""
    # its own session: a Ctrl-C reaches only us, and the hub gets one orderly SIGTERM
    hub = subprocess.Popen(command(s), cwd=s.state, start_new_session=True)
    stopping: list[int] = []

    def stop(signum, frame):
        if not stopping:
            stopping.append(signum)
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
