"""A class on a throw-away hub: a course directory, three people, ``course hub`` running in its namespace.

The students and the instructor are real Unix accounts (made by ``course
hub``, removed at the end). Everything lives in a scratch folder under /tmp
that every user may traverse (pytest's own temporary folder is root's alone,
which no student's server could enter).
"""

from __future__ import annotations

import csv
import ctypes
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from instructor.paths import REPO_ROOT
from tests.hub.namespace import enter, wrap

#: names of this run's people: a run of its own never meets accounts left by another (or made by it)
RUN = secrets.token_hex(3)
STUDENTS = (f"amy{RUN}", f"bob{RUN}")
INSTRUCTOR = f"teach{RUN}"
GRADER = f"grade{RUN}"
PEOPLE = (*STUDENTS, INSTRUCTOR, GRADER)
#: the staff's Unix group of this run (`course hub --staff-group`)
STAFF_GROUP = f"staff{RUN}"


def free_port_block(size: int = 3) -> int:
    """A port whose next ``size - 1`` ports are free too (the hub's and the proxy's APIs)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + size >= 65535:
            continue
        try:
            for p in range(port, port + size):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
            return port
        except OSError:
            continue
    raise RuntimeError("no free block of ports")


def remove_accounts(names=PEOPLE, group=STAFF_GROUP) -> None:
    for name in names:
        subprocess.run(["userdel", "--remove", name], capture_output=True)
    subprocess.run(["groupdel", group], capture_output=True)


@dataclass
class Hub:
    pid: int
    port: int
    scratch: Path
    course_dir: Path
    exchange: Path
    hub_dir: Path
    log: Path
    process: subprocess.Popen

    def stop(self, timeout: float = 90) -> int:
        """Ctrl-C, as the instructor would; returns ``course hub``'s exit status."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGINT)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        return self.process.returncode

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def password(self, user: str) -> str:
        with open(self.hub_dir / "state" / "initial-passwords.csv", newline="") as f:
            return {r["id"]: r["password"] for r in csv.DictReader(f)}[user]

    def as_user(self, user: str, command: list[str]) -> subprocess.CompletedProcess:
        """``command`` run as ``user`` in the hub's view of the machine (what their terminal would do)."""
        return subprocess.run(
            enter(self.pid, ["runuser", "-u", user, "--", *command]),
            capture_output=True,
            text=True,
            cwd="/",
            timeout=120,
        )


def course(scratch: Path, students=STUDENTS) -> tuple[Path, Path]:
    """A course directory with ``students`` on its roster and the instructor and the grader in staff.csv."""
    from instructor.cli import main

    course_dir, exchange = scratch / "course", scratch / "exchange"
    assert main(["init", str(course_dir), "--exchange", str(exchange)]) == 0
    roster = scratch / "class.csv"
    roster.write_text(
        "id,first_name,last_name,email\n"
        + "".join(f"{s},{s.removesuffix(RUN).title()},Test,{s}@example.edu\n" for s in students)
    )
    assert main(["roster", "import", str(roster), "--course-dir", str(course_dir)]) == 0
    (course_dir / "staff.csv").write_text(
        f"id,role,email\n{INSTRUCTOR},instructor,{INSTRUCTOR}@example.edu\n{GRADER},grader,{GRADER}@example.edu\n"
    )
    return course_dir, exchange


def _die_with_parent() -> None:
    """In the child: SIGTERM when the test process dies (killed by a timeout), so no hub outlives its run."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@contextmanager
def running_hub(timeout: float = 180, students=STUDENTS, memory_mb: int = 2048, hub_files=None):
    """Start ``course hub`` as an instructor would (as root, in the foreground); yield a :class:`Hub`; Ctrl-C it.

    ``hub_files``: ``{name: text}`` the instructor put in the hub's folder before (root's, 0644: lti13.json)."""
    people = (*students, INSTRUCTOR, GRADER)
    remove_accounts(people)  # a run killed before its clean-up
    scratch = Path(tempfile.mkdtemp(prefix="course-hub-test-", dir="/tmp"))
    os.chmod(scratch, 0o755)
    process = hub = None
    try:
        course_dir, exchange = course(scratch, students)
        # the course's sources where only root reads them: the staff's privileged path releases and grades from there
        private = scratch / "private"
        private.mkdir(mode=0o700)
        shutil.copytree(REPO_ROOT / "solutions", private / "solutions")
        port, hub_dir, log = free_port_block(), scratch / "hub", scratch / "hub.log"
        for name, text in (hub_files or {}).items():
            hub_dir.mkdir(exist_ok=True)
            (hub_dir / name).write_text(text)
            os.chmod(hub_dir / name, 0o644)
        command = [
            sys.executable,
            "-m",
            "instructor",
            "hub",
            "--course-dir",
            str(course_dir),
            "--hub-dir",
            str(hub_dir),
            "--ip",
            "127.0.0.1",
            "--port",
            str(port),
            "--idle-timeout",
            "600",
            "--memory",
            str(memory_mb),
            "--staff-group",
            STAFF_GROUP,
            "--root",
            str(private),
        ]
        with open(log, "wb") as out:
            process = subprocess.Popen(
                wrap(command, scratch),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        hub = Hub(process.pid, port, scratch, course_dir, exchange, hub_dir, log, process)
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"course hub exited with {process.returncode}:\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{hub.base}/hub/login", timeout=5) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the hub did not answer within {timeout:.0f} s:\n{log.read_text()[-3000:]}")
            time.sleep(1)
        yield hub
    finally:
        if process is not None and process.poll() is None:
            Hub.stop(hub)
        remove_accounts(people)
        shutil.rmtree(scratch, ignore_errors=True)


def processes_of(users=PEOPLE) -> list[str]:
    """``user pid command`` of every process the given users still run.

    A zombie (state Z: it has exited and holds no memory, only its entry in the
    process table until its parent reads its exit status) runs nothing and is left out.
    ``-ww``: ps cuts a command line at 80 columns without a terminal, and a checkout in a longer folder than
    /work/venv had ``jupyterhub.singleuser`` cut to ``jupyterhub.single``.
    """
    found = subprocess.run(
        ["ps", "-ww", "-o", "stat=,user:20=,pid=,args=", "-u", ",".join(users)], capture_output=True, text=True
    )
    rows = [line.split(None, 1) for line in found.stdout.splitlines() if line.strip()]
    return [rest for stat, rest in rows if not stat.startswith("Z")]
