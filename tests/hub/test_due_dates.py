"""The instructor moves a due date on the hub, as herself, and root still runs only root's own file (issue 58).

On the hub the settings are root's ``0640`` (root reads them in
the staff's privileged path); ``course init --due`` as the instructor failed
on it with PermissionError. The dates are now data in ``due.json``, which she
writes and root's settings read as JSON, checked. A real instructor account
in the staff group, a course directory shared as ``course hub`` shares it; no
hub: a few seconds.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from shlex import quote
from types import SimpleNamespace

import pytest
from nbgrader.api import Gradebook

from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.hub import accounts
from tests.hub.harness import INSTRUCTOR, course, remove_accounts
from tests.hub.namespace import wrap
from tests.system import require_root, require_tools

GROUP = f"staffdue{INSTRUCTOR.removeprefix('teach')}"


@pytest.fixture(scope="module")
def hub():
    require_root("the test makes Unix accounts")
    require_tools("unshare", "useradd", "runuser")
    remove_accounts((INSTRUCTOR,), GROUP)
    scratch = Path(tempfile.mkdtemp(prefix="course-due-test-", dir="/tmp"))
    os.chmod(scratch, 0o755)
    try:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", INSTRUCTOR], check=True)
        course_dir, _ = course(scratch)
        with Gradebook(CourseDir.at(course_dir).gradebook_url) as gb:  # released once: the gradebook records it
            gb.update_or_create_assignment("01_rnn")
        gid = accounts.staff_group(GROUP, [INSTRUCTOR], accounts.Made(scratch / "state" / "made.json"))
        accounts.share_course_dir(course_dir, gid)
        yield SimpleNamespace(scratch=scratch, course_dir=course_dir, gid=gid)
    finally:
        remove_accounts((INSTRUCTOR,), GROUP)
        shutil.rmtree(scratch, ignore_errors=True)


def as_instructor(hub, *command: str) -> subprocess.CompletedProcess:
    """``command`` as the instructor in the course directory, as her terminal on the hub runs it."""
    env = [
        f"HOME=/home/{INSTRUCTOR}",
        f"COURSE_DIR={hub.course_dir}",
        "PYTHONSAFEPATH=1",
        f"PATH={Path(sys.executable).parent}:/usr/bin:/bin",
    ]
    line = " ".join(quote(w) for w in ["runuser", "-u", INSTRUCTOR, "--", "env", "-i", *env, *command])
    shell = f"umask 002 && cd {quote(str(hub.course_dir))} && {line}"
    return subprocess.run(wrap(["sh", "-c", shell], hub.scratch), capture_output=True, text=True, timeout=300)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_instructor_moves_a_due_date_and_roots_file_stays_roots(hub):
    settings = hub.course_dir / directory.CONFIG_NAME
    before = _digest(settings)
    for when in ("2026-10-05 17:00 UTC", "2026-10-07 09:30 UTC"):  # set, then moved again
        done = as_instructor(hub, sys.executable, "-m", "instructor", "init", "--due", f"01_rnn={when}")
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert "due dates copied into the gradebook: 01_rnn" in done.stdout, done.stdout
    # what root's steps read (`course grade` through the privileged path): the moved date
    assert CourseDir.at(hub.course_dir).due == {"01_rnn": "2026-10-07 09:30:00 UTC"}
    with Gradebook(CourseDir.at(hub.course_dir).gradebook_url) as gb:
        assert str(gb.find_assignment("01_rnn").duedate) == "2026-10-07 09:30:00"
    # the settings root reads are untouched and still root's alone, as the privileged path requires
    info = os.lstat(settings)
    assert (_digest(settings), info.st_uid, stat.S_IMODE(info.st_mode)) == (before, 0, 0o640)
    data = os.lstat(hub.course_dir / directory.SETTINGS_NAME)
    assert (data.st_uid, stat.S_IMODE(data.st_mode)) == (0, 0o640)
    due = os.lstat(hub.course_dir / "due.json")
    assert due.st_gid == hub.gid and due.st_mode & 0o060 == 0o060 and not due.st_mode & 0o007


def test_the_instructor_cannot_change_what_root_reads(hub):
    """A setting other than a due date is root's to change: one sentence, and the settings are left as they were."""
    settings = [hub.course_dir / directory.SETTINGS_NAME, hub.course_dir / directory.CONFIG_NAME]
    before = [_digest(path) for path in settings]
    done = as_instructor(hub, sys.executable, "-m", "instructor", "init", "--late-penalty", "50")
    assert done.returncode != 0 and "is root's (root reads it on the hub)" in done.stderr, done
    assert [_digest(path) for path in settings] == before


def test_root_reads_no_link_the_staff_plant_as_due_dates(hub):
    """due.json made a link to a file only root reads: root's settings refuse it rather than follow it."""
    due = hub.course_dir / "due.json"
    kept = due.read_bytes()
    done = as_instructor(hub, "sh", "-c", f"rm -f {quote(str(due))} && ln -s /etc/shadow {quote(str(due))}")
    assert done.returncode == 0, done
    try:
        with pytest.raises(CourseError, match="due.json is not a file the course reads"):
            CourseDir.at(hub.course_dir)
    finally:
        due.unlink()
        due.write_bytes(kept)
