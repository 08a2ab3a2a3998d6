"""`course hub` changes only what it made, and shares the course directory with its staff only.

Real Unix accounts and groups (root): system accounts are refused as ids in
one sentence, an account that existed keeps its home's mode, the accounts and
the group ``course hub`` makes are recorded, a group it did not make is never
taken over, and the course directory ends root's and the staff group's
(setgid folders, group-writable files, nothing for others; the settings file
root's alone). No hub is started: a few seconds.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from instructor.errors import CourseError
from instructor.hub import accounts
from tests.hub.harness import RUN, course, remove_accounts
from tests.system import missing, require_root

OLD = f"old{RUN}"  # an account that was there before the hub
NEW = f"new{RUN}"  # one the hub makes
SERVICE = f"svc{RUN}"  # a person's uid but no login shell
GROUP = f"staffacct{RUN}"
NAMES = (OLD, NEW, SERVICE)


@pytest.fixture
def scratch():
    require_root("the test makes Unix accounts")
    if not shutil.which("useradd"):
        missing("useradd")
    remove_accounts(NAMES, GROUP)
    folder = Path(tempfile.mkdtemp(prefix="course-accounts-test-", dir="/tmp"))
    os.chmod(folder, 0o755)
    try:
        yield folder
    finally:
        remove_accounts(NAMES, GROUP)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("name", ["root", "daemon", "bin", "sys", "nobody"])
def test_system_accounts_are_refused_in_one_sentence(name):
    with pytest.raises(CourseError) as err:
        accounts.refuse_system(["amy", name])
    text = str(err.value)
    assert name in text and "system accounts" in text and text.count(".") <= 2 and "\n" not in text


def test_no_login_shell_is_refused_and_uid_min_is_read(scratch):
    subprocess.run(["useradd", "--shell", "/usr/sbin/nologin", SERVICE], check=True)
    with pytest.raises(CourseError, match=f"{SERVICE} \\(shell /usr/sbin/nologin\\)"):
        accounts.refuse_system([SERVICE])
    defs = scratch / "login.defs"
    defs.write_text("# a comment\nUID_MIN\t\t\t 60000\n")
    assert accounts.uid_min(defs) == 60000
    assert accounts.uid_min(scratch / "missing") == 1000


def test_an_existing_account_keeps_its_home_and_made_ones_are_recorded(scratch):
    subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", OLD], check=True)
    home = Path(pwd.getpwnam(OLD).pw_dir)
    os.chmod(home, 0o751)
    made = accounts.Made(scratch / "state" / "made.json")
    created = accounts.create([OLD, NEW], scratch / "state" / "initial-passwords.csv", made)
    assert created == [NEW]
    assert stat.S_IMODE(home.stat().st_mode) == 0o751  # issue 42.5: it was set to 0700
    assert stat.S_IMODE(Path(pwd.getpwnam(NEW).pw_dir).stat().st_mode) == 0o700
    assert accounts.Made(scratch / "state" / "made.json").accounts == [NEW]
    assert accounts.open_homes([OLD, NEW]) == [f"{OLD} ({home} 0751)"]


def test_the_staff_group_is_made_once_and_a_foreign_one_is_refused(scratch):
    subprocess.run(["useradd", "--shell", "/bin/bash", OLD], check=True)
    subprocess.run(["useradd", "--shell", "/bin/bash", NEW], check=True)
    made = accounts.Made(scratch / "made.json")
    gid = accounts.staff_group(GROUP, [OLD, NEW], made)
    assert grp.getgrgid(gid).gr_name == GROUP and sorted(grp.getgrnam(GROUP).gr_mem) == sorted([OLD, NEW])
    accounts.staff_group(GROUP, [OLD], made)  # NEW left staff.csv: no longer in the group
    assert grp.getgrnam(GROUP).gr_mem == [OLD]
    with pytest.raises(CourseError, match="did not make it"):
        accounts.staff_group(GROUP, [OLD], accounts.Made(scratch / "another-hub.json"))


def test_the_course_directory_is_roots_and_the_staffs(scratch):
    course_dir, _ = course(scratch)
    subprocess.run(["groupadd", GROUP], check=True)
    gid = grp.getgrnam(GROUP).gr_gid
    (course_dir / "results" / "amy").mkdir(parents=True)
    (course_dir / "results" / "amy" / "01_rnn.json").write_text("{}")
    os.chmod(course_dir / "results" / "amy" / "01_rnn.json", 0o600)
    (course_dir / "link").symlink_to("/etc/passwd")
    assert accounts.share_course_dir(course_dir, gid) > 0

    def of(path):
        info = os.lstat(path)
        return info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)

    assert of(course_dir) == (0, gid, 0o2770)
    assert of(course_dir / "results" / "amy") == (0, gid, 0o2770)
    assert of(course_dir / "results" / "amy" / "01_rnn.json") == (0, gid, 0o660)
    assert of(course_dir / "roster.csv")[1:] == (gid, 0o660)
    assert of(course_dir / "nbgrader_config.py") == (0, gid, 0o640)  # nbgrader runs it as root: staff only read it
    assert of(course_dir / "nbgrader_config.json") == (0, gid, 0o640)  # the settings root reads, where it writes
    assert of(course_dir / "staff.csv") == (0, gid, 0o640)  # who is admin: root's to change
    assert os.lstat("/etc/passwd").st_gid == 0  # the link was not followed
    assert accounts.share_course_dir(course_dir, gid) == 0  # a second run changes nothing
