"""The course's own runs of notebooks (not students' code: that runs in the sandbox): how their kernels talk
(local sockets in the temp folder, not TCP) and one way to run a notebook in its folder."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from nbclient import NotebookClient
from traitlets.config import Config


def kernel_transport(c: Config) -> Config:
    """Talk to kernels over IPC sockets in the temp folder.

    A TCP kernel prints a warning about unencrypted traffic on every start;
    IPC sockets stay on this machine and out of the assignment folders.
    """
    c.KernelManager.transport = "ipc"
    c.KernelManager.ip = os.path.join(tempfile.gettempdir(), f"course-kernel-{os.getpid()}")
    return c


def execute_in(
    nb, folder: Path, env: Mapping[str, str] | None = None, timeout: int = 600, drop: tuple[str, ...] = ()
) -> None:
    """Run every code cell of ``nb`` (changed in place, errors kept as outputs) in a kernel started in
    ``folder``. The kernel gets this process's environment without ``drop`` and with ``env`` on top; this
    process's own is as it was afterwards."""
    saved = dict(os.environ)
    for name in drop:
        os.environ.pop(name, None)
    os.environ.update(env or {})
    try:
        NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            allow_errors=True,
            config=kernel_transport(Config()),
            resources={"metadata": {"path": str(folder)}},
        ).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
