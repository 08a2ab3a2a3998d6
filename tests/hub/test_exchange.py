"""The exchange is the course's: two real student accounts attack it from a shell, as from their kernels.

Root lays the exchange out (`course init` as root) and releases 01_rnn;
then amy and bob, Unix accounts of their own, run what a notebook's `!`
line could: rename the course's folder, plant folders and files, list
``inbound``, touch a classmate's submission. Each is refused by the kernel;
fetch and submit with the hub's student settings still work, and bob fetches
root's release byte for byte. No hub or browser: about 20 s.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path
from shlex import quote
from types import SimpleNamespace

import pytest

from instructor.hub.config import student_nbgrader_config
from tests.hub.harness import STUDENTS, course, remove_accounts
from tests.hub.namespace import as_student
from tests.system import require_root, require_tools

AMY, BOB = STUDENTS
ASSIGNMENT = "01_rnn"


@pytest.fixture(scope="module")
def exchange():
    require_root("the test makes Unix accounts")
    require_tools("unshare", "useradd", "runuser")
    from instructor.cli import main

    remove_accounts(STUDENTS)
    scratch = Path(tempfile.mkdtemp(prefix="course-exchange-test-", dir="/tmp"))
    os.chmod(scratch, 0o755)
    try:
        for name in STUDENTS:
            subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", name], check=True)
            os.chmod(f"/home/{name}", 0o700)
        course_dir, root = course(scratch)
        assert main(["release-to-exchange", ASSIGNMENT, "--course-dir", str(course_dir)]) == 0
        settings = scratch / "student"
        settings.mkdir()
        (settings / "nbgrader_config.py").write_text(
            student_nbgrader_config(SimpleNamespace(course_id="seqmodels", exchange=root))  # type: ignore[arg-type]
        )
        os.chmod(settings, 0o755)
        yield SimpleNamespace(scratch=scratch, root=root, course=root / "seqmodels", settings=settings)
    finally:
        remove_accounts(STUDENTS)
        shutil.rmtree(scratch, ignore_errors=True)


def shell(x, user: str, script: str) -> subprocess.CompletedProcess:
    """``script`` run as ``user`` in her terminal (:func:`as_student`)."""
    return as_student(x.scratch, x.settings, user, script)


def refused(done: subprocess.CompletedProcess) -> bool:
    return done.returncode != 0 and "Permission denied" in done.stderr + done.stdout


def test_the_exchange_is_roots_with_only_inbound_open(exchange):
    modes = {
        p: (os.lstat(p).st_uid, stat.S_IMODE(os.lstat(p).st_mode))
        for p in (exchange.root, exchange.course, exchange.course / "outbound", exchange.course / "inbound")
    }
    assert modes == {
        exchange.root: (0, 0o755),
        exchange.course: (0, 0o755),
        exchange.course / "outbound": (0, 0o755),
        exchange.course / "inbound": (0, 0o1733),
    }
    print(shell(exchange, AMY, f"ls -la {exchange.root} {exchange.course} {exchange.course / 'outbound'}").stdout)


def test_a_student_cannot_rename_replace_or_plant(exchange):
    c = exchange.course
    for attack in (
        f"mv {c} {exchange.root}/old",  # the takeover of issue 42
        f"mkdir {exchange.root}/seqmodels2",
        f"mv {c}/outbound {c}/old-outbound",
        f"mkdir {c}/outbound2",
        f"mkdir {c}/outbound/{ASSIGNMENT}/planted",
        f"cp /etc/hostname {c}/outbound/{ASSIGNMENT}/planted.ipynb",
        f"sh -c 'echo {{}} > {c}/outbound/{ASSIGNMENT}/{ASSIGNMENT}.ipynb'",
        f"rm -rf {c}/outbound/{ASSIGNMENT}",
        f"ls {c}/inbound",
        f"ls {c}/feedback",
    ):
        done = shell(exchange, AMY, attack)
        assert refused(done), (attack, done)
    assert sorted(p.name for p in exchange.root.iterdir()) == ["seqmodels"]


def test_submissions_stay_their_owners(exchange):
    fetched = shell(
        exchange, AMY, f"python -m nbgrader fetch_assignment {ASSIGNMENT} && python -m nbgrader submit {ASSIGNMENT}"
    )
    assert fetched.returncode == 0, fetched.stderr[-2000:]
    (mine,) = [p for p in (exchange.course / "inbound").iterdir() if p.name.startswith(f"{AMY}+")]
    info = os.lstat(mine)
    assert info.st_uid == int(subprocess.run(["id", "-u", AMY], capture_output=True, text=True).stdout)
    assert stat.S_IMODE(info.st_mode) == 0o755  # nbgrader's own submit leaves it 0777
    for attack in (
        f"mv {quote(str(mine))} {mine.parent}/{BOB}+moved",
        f"rm -rf {quote(str(mine))}",
        f"touch {quote(str(mine / 'extra.ipynb'))}",
        f"echo {{}} > {quote(str(mine / (ASSIGNMENT + '.ipynb')))}",
    ):
        done = shell(exchange, BOB, attack)
        assert refused(done) or "Operation not permitted" in done.stderr, (attack, done)
    # bob fetches what root released, byte for byte
    done = shell(
        exchange, BOB, f"python -m nbgrader fetch_assignment {ASSIGNMENT} && cat {ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    released = (exchange.course / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
    assert done.stdout == released
