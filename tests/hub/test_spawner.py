"""Staff open a student's notebook: nothing she submitted runs as them (issue 58).

Jupyter starts a kernel in the folder of the notebook it opens, and ``python
-m ipykernel_launcher`` puts that folder first on ``sys.path``: a file
submitted beside the notebook and named as a module the kernel imports at
start ran as whoever opened it; a link to nbgrader's ``/formgrader?path=`` her
submitted folder ran her ``nbgrader_config.py``. Real accounts (a student and
an instructor in the staff group), a course directory shared as ``course hub``
shares it, the environment :class:`CourseSpawner` gives a staff member's
server and the staff's Jupyter settings. About 30 s (two Jupyter servers and
one kernel started as the instructor).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from shlex import quote
from types import SimpleNamespace
from unittest import mock

import nbformat
import pytest

from instructor.hub import accounts, config
from instructor.hub.staff import People
from tests.hub.harness import INSTRUCTOR, STUDENTS, course, free_port_block, processes_of, remove_accounts
from tests.hub.namespace import wrap
from tests.system import require_root, require_tools

BOB = STUDENTS[1]
GROUP = f"staffspawn{INSTRUCTOR.removeprefix('teach')}"
ASSIGNMENT = "01_rnn"
#: what a student's planted module does when imported: leave a mark naming who ran it
PLANTED = "import os\nopen({mark!r}, 'w').write(str(os.getuid()))\n"

#: a server extension of the test's: ``GET /probe/syspath`` answers the server's sys.path once it runs
PROBE = """
import json, sys
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web


class Probe(JupyterHandler):
    @web.authenticated
    def get(self):
        self.finish(json.dumps(sys.path))


def _jupyter_server_extension_points():
    return [{"module": "course_probe"}]


def _load_jupyter_server_extension(app):
    app.web_app.add_handlers(".*$", [(url_path_join(app.web_app.settings["base_url"], "probe/syspath"), Probe)])
"""


@pytest.fixture(scope="module")
def hub():
    require_root("the test makes Unix accounts")
    require_tools("unshare", "useradd", "runuser")
    remove_accounts((BOB, INSTRUCTOR), GROUP)
    scratch = Path(tempfile.mkdtemp(prefix="course-spawner-test-", dir="/tmp"))
    os.chmod(scratch, 0o755)
    try:
        for name in (BOB, INSTRUCTOR):
            subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", name], check=True)
            os.chmod(f"/home/{name}", 0o700)
        course_dir, _ = course(scratch)
        marks = scratch / "marks"
        marks.mkdir(mode=0o1777)
        os.chmod(marks, 0o1777)
        made = accounts.Made(scratch / "state" / "made.json")
        gid = accounts.staff_group(GROUP, [INSTRUCTOR], made)
        # the Jupyter settings `course hub` writes for staff servers (the formgrader and the course's pages)
        settings = config.HubSettings(
            course_id="seqmodels",
            course_dir=course_dir,
            exchange=scratch / "exchange",
            hub_dir=scratch / "hub",
            people=People(frozenset(STUDENTS), frozenset({INSTRUCTOR}), frozenset()),
        )
        config.write(settings)
        probe = scratch / "probe"
        (probe / "config" / "jupyter_server_config.d").mkdir(parents=True)
        (probe / "course_probe.py").write_text(PROBE)
        (probe / "config" / "jupyter_server_config.d" / "course_probe.json").write_text(
            json.dumps({"ServerApp": {"jpserver_extensions": {"course_probe": True}}})
        )
        for folder in (probe, probe / "config", probe / "config" / "jupyter_server_config.d"):
            os.chmod(folder, 0o755)
        yield SimpleNamespace(
            scratch=scratch, course_dir=course_dir, marks=marks, gid=gid, settings=settings, probe=probe
        )
    finally:
        remove_accounts((BOB, INSTRUCTOR), GROUP)
        shutil.rmtree(scratch, ignore_errors=True)


def staff_env(hub, user: str) -> dict[str, str]:
    """What ``CourseSpawner`` gives ``user``'s server on top of JupyterHub's own variables (here a bare PATH)."""
    from jupyterhub.spawner import LocalProcessSpawner

    from instructor.hub.spawner import CourseSpawner

    spawner = CourseSpawner(
        staff={user},
        course_dir=str(hub.course_dir),
        staff_config=str(hub.settings.staff_config),
        student_config=str(hub.settings.student_config),
        privileged="",
    )
    spawner.user = SimpleNamespace(name=user)
    base = {"PATH": "/usr/bin:/bin", "HOME": f"/home/{user}", "USER": user, "LANG": "C.UTF-8"}
    with mock.patch.object(LocalProcessSpawner, "get_env", lambda self: dict(base)):
        return spawner.get_env()


def as_staff(hub, user: str, command: list[str], extra: dict | None = None, **popen) -> subprocess.Popen:
    """``command`` as ``user`` in the course directory with a staff server's environment (the spawner's preexec
    enters the course directory and sets umask 002), and ``extra`` variables."""
    variables = [f"{k}={v}" for k, v in {**staff_env(hub, user), **(extra or {})}.items()]
    line = " ".join(quote(w) for w in ["runuser", "-u", user, "--", "env", "-i", *variables, *command])
    shell = f"umask 002 && cd {quote(str(hub.course_dir))} && exec {line}"
    return subprocess.Popen(wrap(["sh", "-c", shell], hub.scratch), start_new_session=True, **popen)


def submit(hub, student: str, files: dict[str, str]) -> Path:
    """``files`` written by ``student`` in her home, then copied into submitted/ as root's collect copies them."""
    home = Path(f"/home/{student}") / ASSIGNMENT
    script = "; ".join(
        [f"mkdir -p {quote(str(home))}"] + [f"printf %s {quote(t)} > {quote(str(home / n))}" for n, t in files.items()]
    )
    subprocess.run(["runuser", "-u", student, "--", "sh", "-c", script], check=True)
    target = hub.course_dir / "submitted" / student / ASSIGNMENT
    shutil.copytree(home, target, dirs_exist_ok=True)
    accounts.share_course_dir(hub.course_dir, hub.gid)
    return target


def stop(process: subprocess.Popen, user: str) -> None:
    """SIGTERM (the server shuts its kernels down), then SIGKILL; whatever of ``user``'s this left, by pid."""
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        if process.poll() is None:
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                pass
            try:
                process.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                pass
    for row in processes_of((user,)):
        try:
            os.kill(int(row.split()[1]), signal.SIGKILL)
        except (ProcessLookupError, ValueError, IndexError):
            pass


def _api(port: int, token: str, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read() or b"{}")


def ask_kernel(hub, user: str, kernel: str, deadline: float) -> dict:
    """Where the started kernel found zmq, and its sys.path, asked through its connection file (read as root);
    {} when it never answered (it was the student's launcher, or died)."""
    from jupyter_client import BlockingKernelClient

    connection = Path(f"/home/{user}/.local/share/jupyter/runtime/kernel-{kernel}.json")
    while not connection.exists():
        if time.monotonic() > deadline or any(hub.marks.iterdir()):
            return {}
        time.sleep(0.5)
    client = BlockingKernelClient(connection_file=str(connection))
    client.load_connection_file()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=max(1.0, deadline - time.monotonic()))
        found: dict = {}
        code = "import json, sys, zmq; print(json.dumps({'zmq': zmq.__file__, 'path': sys.path}))"
        client.execute_interactive(
            code,
            timeout=60,
            output_hook=lambda m: found.update(json.loads(m["content"]["text"])) if m["msg_type"] == "stream" else None,
        )
        return found
    except RuntimeError:  # wait_for_ready: the kernel died
        return {}
    finally:
        client.stop_channels()


@contextmanager
def staff_server(hub, user: str) -> Iterator[tuple[int, str, float]]:
    """A Jupyter server as ``user``, started as the hub starts a staff member's (the course directory, the
    spawner's environment, the staff's Jupyter settings); yields its port, token and a deadline, once it answers."""
    port, token = free_port_block(1), "spawner-test-token"
    server = as_staff(
        hub,
        user,
        [
            sys.executable,
            "-m",
            "jupyter_server",
            f"--ServerApp.root_dir={hub.course_dir}",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            "--ServerApp.open_browser=False",
            f"--IdentityProvider.token={token}",
        ],
        # the test's probe besides: an extension that answers the server's sys.path
        extra={
            "PYTHONPATH": str(hub.probe),
            "JUPYTER_CONFIG_PATH": os.pathsep.join([str(hub.settings.staff_config), str(hub.probe / "config")]),
        },
        stdout=subprocess.DEVNULL,
        stderr=(hub.scratch / "server.log").open("wb"),
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                _api(port, token, "GET", "/api/status")
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise AssertionError((hub.scratch / "server.log").read_text()[-3000:]) from None
                time.sleep(0.5)
        yield port, token, deadline
    finally:
        stop(server, user)


def test_a_students_file_beside_her_notebook_does_not_run_when_staff_open_it(hub):
    """Her ``ipykernel_launcher.py`` and ``zmq.py`` stay unimported when the instructor opens her notebook."""
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    planted = {name: PLANTED.format(mark=str(hub.marks / name)) for name in ("ipykernel_launcher.py", "zmq.py")}
    folder = submit(hub, BOB, {f"{ASSIGNMENT}.ipynb": nbformat.writes(notebook), **planted})
    seen: dict = {}
    with staff_server(hub, INSTRUCTOR) as (port, token, deadline):
        # what JupyterLab does when the notebook is opened: a session, its kernel started in the notebook's folder
        opened = _api(
            port,
            token,
            "POST",
            "/api/sessions",
            {
                "path": str((folder / f"{ASSIGNMENT}.ipynb").relative_to(hub.course_dir)),
                "type": "notebook",
                "name": f"{ASSIGNMENT}.ipynb",
                "kernel": {"name": "python3"},
            },
        )
        seen = ask_kernel(hub, INSTRUCTOR, opened["kernel"]["id"], deadline)
    ran = {p.name: p.read_text() for p in hub.marks.iterdir()}
    assert ran == {}, f"the student's files ran as uid {ran} when the instructor opened her notebook"
    assert seen.get("zmq", "").startswith(str(Path(sys.prefix))), f"the instructor's kernel: {seen}"
    assert str(folder) not in seen["path"] and "" not in seen["path"], seen["path"]


def test_a_staff_server_imports_nothing_from_the_course_directory(hub):
    """The staff's server starts in the course directory, which every member of the staff group writes."""
    mark = hub.marks / "jupyterhub.py"
    planted = hub.course_dir / "jupyterhub.py"
    planted.write_text(PLANTED.format(mark=str(mark)))
    try:
        # the command the hub's configuration starts a server with (instructor/hub/config.py), asked only for help
        done = as_staff(
            hub,
            INSTRUCTOR,
            [sys.executable, "-m", "jupyterhub.singleuser", "--help"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        out, err = done.communicate(timeout=120)
    finally:
        planted.unlink()
    assert not mark.exists(), (
        f"the course directory's jupyterhub.py ran in the instructor's server (uid {mark.read_text()})"
    )
    assert done.returncode == 0, err.decode()[-2000:]


def test_a_link_she_writes_does_not_load_her_settings_in_the_formgrader(hub):
    """nbgrader's ``/formgrader?path=DIR`` loads ``DIR/nbgrader_config.py`` as Python in the server that answers:
    a link in her notebook (a GET, so no XSRF token is asked for) to her own submitted folder ran her file as the
    grader who clicked it."""
    mark = hub.marks / "nbgrader_config.py"
    folder = submit(hub, BOB, {"nbgrader_config.py": PLANTED.format(mark=str(mark))})
    with staff_server(hub, INSTRUCTOR) as (port, token, _):
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/formgrader?path={urllib.parse.quote(str(folder))}",
            headers={"Authorization": f"token {token}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as reply:
                status = reply.status
        except urllib.error.HTTPError as err:
            status = err.code
        # the formgrader itself still answers, on the course directory
        with urllib.request.urlopen(
            urllib.request.Request(
                f"http://127.0.0.1:{port}/formgrader/manage_assignments", headers={"Authorization": f"token {token}"}
            ),
            timeout=60,
        ) as reply:
            assert reply.status == 200
    assert not mark.exists(), f"her nbgrader_config.py ran in the instructor's server (uid {mark.read_text()})"
    assert status == 403, status


def test_the_staff_server_keeps_the_course_directory_off_its_path(hub):
    """Staff write the course directory (a grader as well as the instructor), and the server runs there: once it
    runs, with the formgrader loaded (nbgrader puts its working folder on sys.path), nothing imports from it."""
    with staff_server(hub, INSTRUCTOR) as (port, token, _):
        path = _api(port, token, "GET", "/probe/syspath")
        loaded = _api(port, token, "GET", "/api/me")  # any page: the server answers as the instructor
    assert loaded["identity"]["username"], loaded
    assert str(hub.course_dir) not in path and "" not in path and "." not in path, path
