"""A throw-away JupyterLab server for the browser test.

It serves a temporary folder on 127.0.0.1 (a free port, a random token), with
fresh user settings and workspaces, the news and update checks off, and
kernels that run in full mode: ``COURSE_QUICK``, ``CI`` and nbgrader's
variables are removed from their environment, so that 01 trains for real.
The whole process group is killed on exit.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

#: Variables that would make the lab's kernels quick or headless.
HEADLESS_VARIABLES = ("COURSE_QUICK", "CI", "NBGRADER_EXECUTION", "NBGRADER_VALIDATING", "JPY_SESSION_NAME")

#: JupyterLab plugins switched off: the announcements plugin asks for news and
#: updates (a network request and a pop-up the test does not need).
DISABLED_PLUGINS = ("@jupyterlab/apputils-extension:announcements",)


def chromium_path() -> str | None:
    """Debian's chromium (scripts/install-system-packages.sh), or None."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def _base_install_paths() -> dict[str, str]:
    """JUPYTER_PATH and JUPYTER_CONFIG_PATH for a venv that sees its base Python's packages.

    In such a venv (``--system-site-packages``) JupyterLab imports extensions
    installed in the base Python but does not look for their front-end files
    and server settings there: add the base's data and config folders.
    """
    base_site = sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix})["purelib"]
    if sys.prefix == sys.base_prefix or base_site not in sys.path:
        return {}
    found = {}
    for variable, folder in (("JUPYTER_PATH", "share"), ("JUPYTER_CONFIG_PATH", "etc")):
        extra = [str(Path(sys.prefix) / folder / "jupyter"), str(Path(sys.base_prefix) / folder / "jupyter")]
        found[variable] = os.pathsep.join(extra + [p for p in os.environ.get(variable, "").split(os.pathsep) if p])
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """A running server: ``url(path)`` opens a notebook of ``root`` with the token."""

    def __init__(self, root: Path, port: int, token: str, log: Path):
        self.root, self.port, self.token, self.log = root, port, token, log

    def url(self, notebook: str) -> str:
        """The notebook alone in a fresh layout (``reset``: no tabs restored from an earlier page)."""
        return f"http://127.0.0.1:{self.port}/lab/tree/{notebook}?reset&token={self.token}"

    def api(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/api/{path}?token={self.token}"


def _shut_down_kernels(lab: Lab) -> None:
    try:
        with urllib.request.urlopen(lab.api("kernels"), timeout=10) as reply:
            kernels = json.load(reply)
        for kernel in kernels:
            request = urllib.request.Request(lab.api(f"kernels/{kernel['id']}"), method="DELETE")
            urllib.request.urlopen(request, timeout=30).close()
    except OSError:
        pass  # the server is gone already; SIGTERM below is all that is left


@contextmanager
def jupyter_lab(
    root: Path, scratch: Path, timeout: float = 90, python: Path | None = None, extra: tuple[str, ...] = ()
):
    """Start ``jupyter lab`` serving ``root``; yield a :class:`Lab`; kill it at the end.

    ``python``: the interpreter of another environment to run it with (a
    student's venv), which then sees only its own packages; default: this one.
    ``extra``: more options for ``jupyter lab``.
    """
    interpreter = str(python or sys.executable)
    config = scratch / "config"
    (config / "labconfig").mkdir(parents=True, exist_ok=True)
    (config / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {name: True for name in DISABLED_PLUGINS}})
    )
    env = {k: v for k, v in os.environ.items() if k not in HEADLESS_VARIABLES and not k.startswith("PYTEST_")}
    env.update(
        JUPYTER_CONFIG_DIR=str(config),  # the user-level config only; the install's extensions stay on
        JUPYTERLAB_SETTINGS_DIR=str(scratch / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(scratch / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(scratch / "runtime"),
        IPYTHONDIR=str(scratch / "ipython"),
        # this Python first: `jupyter` subcommands and kernels must not fall back to another install
        PATH=os.pathsep.join([str(Path(interpreter).parent), os.environ.get("PATH", "")]),
        **(_base_install_paths() if python is None else {}),
    )
    port, token = _free_port(), secrets.token_hex(16)
    log = scratch / "jupyterlab.log"
    command = [
        interpreter,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--allow-root",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--port-retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        *extra,
    ]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    lab = Lab(root, port, token, log)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {process.returncode}:\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(lab.api("status"), timeout=5) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"jupyter lab did not answer within {timeout:.0f} s:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield lab
    finally:
        _shut_down_kernels(lab)  # kernels run in sessions of their own: stop them through the server
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()
