"""The two files of the course directory that decide for root: a grader can replace neither (issue 58).

The course directory is root's and the staff group's (``2770``): every member
of the group may remove and create names at its top, so a root-owned
``0640`` file there can still be swapped for his own. ``nbgrader_config.py``
is Python that root runs (``course hub`` reads it, the privileged path's
nbgrader loads it); ``staff.csv`` says who is instructor (hub admin).
Real accounts (an instructor and a grader in the staff group) do the
writing, root reads as ``course hub`` does; no sudo, no hub: seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path
from shlex import quote
from types import SimpleNamespace

import pytest

from instructor.cli import hub as hub_cli
from instructor.errors import CourseError
from instructor.hub import accounts, pinned, staff
from tests.hub.harness import GRADER, INSTRUCTOR, course, remove_accounts
from tests.system import require_root, require_tools

GROUP = f"staffroot{GRADER.removeprefix('grade')}"
STAFF = f"id,role\n{INSTRUCTOR},instructor\n{GRADER},grader\n"


@pytest.fixture(scope="module")
def shared():
    require_root("the test makes Unix accounts")
    require_tools("useradd", "runuser")
    remove_accounts((INSTRUCTOR, GRADER), GROUP)
    scratch = Path(tempfile.mkdtemp(prefix="course-root-files-test-", dir="/tmp"))
    os.chmod(scratch, 0o755)
    try:
        for name in (INSTRUCTOR, GRADER):
            subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", name], check=True)
        course_dir, _ = course(scratch)
        made = accounts.Made(scratch / "hub" / "state" / "made.json")
        gid = accounts.staff_group(GROUP, [INSTRUCTOR, GRADER], made)
        accounts.share_course_dir(course_dir, gid)
        staff.record_instructors(scratch / "hub" / "state", [INSTRUCTOR])  # as the last `course hub` did
        yield SimpleNamespace(scratch=scratch, course_dir=course_dir, gid=gid)
        pinned.lock_path(course_dir.resolve()).unlink(missing_ok=True)  # root's steps' lock, in /run
    finally:
        remove_accounts((INSTRUCTOR, GRADER), GROUP)
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.fixture
def hub(shared):
    """The shared course, with root's ``staff.csv`` and settings put back after each test."""
    settings = [shared.course_dir / name for name in ("nbgrader_config.json", "nbgrader_config.py")]
    kept = [path.read_bytes() for path in settings]
    yield shared
    for path in [shared.course_dir / "staff.csv", *settings]:
        path.unlink(missing_ok=True)
    (shared.course_dir / "staff.csv").write_text(STAFF)
    for path, text in zip(settings, kept, strict=True):
        path.write_bytes(text)
    accounts.share_course_dir(shared.course_dir, shared.gid)


def as_user(user: str, script: str, where: Path) -> subprocess.CompletedProcess:
    """``sh -c script`` as ``user`` (umask 022, a login's default), in ``where``."""
    return subprocess.run(
        ["runuser", "-u", user, "--", "sh", "-c", f"umask 022 && cd {quote(str(where))} && {script}"],
        capture_output=True,
        text=True,
        cwd="/",
        timeout=60,
    )


def read_as_course_hub(hub):
    """What ``course hub`` reads before it makes accounts, the group and the configuration: after a privileged
    step, whose last act gives the course directory back to the group (:func:`accounts.share_course_dir`)."""
    accounts.share_course_dir(hub.course_dir, hub.gid)
    args = argparse.Namespace(
        course_dir=hub.course_dir,
        hub_dir=hub.scratch / "hub",
        ip="127.0.0.1",
        port=8000,
        memory=2048,
        cpus=1.0,
        idle_timeout=3600,
        no_limits=True,
        staff_group=GROUP,
    )
    return hub_cli.settings(args)


@pytest.mark.parametrize("name", ["nbgrader_config.py", "nbgrader_config.json"])
def test_a_graders_settings_file_never_runs_as_root(hub, name):
    """A grader replaces a settings file root reads (the folder is the group's): his Python never runs as root,
    and his data (an exchange of his choosing, where root would write) is refused before it is read."""
    mark = hub.scratch / "ran-as-root"
    if name.endswith(".py"):
        added = f"\nimport os\nopen({str(mark)!r}, 'w').write(str(os.getuid()))\n"
    else:
        added = json.dumps({"Exchange": {"root": str(hub.scratch / "his-exchange")}})
    swap = f"cp {name} /tmp/$$ && rm {name} && cp /tmp/$$ {name} && rm /tmp/$$ && " + (
        f"printf %s {quote(added)} >> {name}" if name.endswith(".py") else f"printf %s {quote(added)} > {name}"
    )
    done = as_user(GRADER, swap, hub.course_dir)
    assert done.returncode == 0, done  # the folder is the group's: he may replace the name
    try:
        read_as_course_hub(hub)
        refused = ""
    except CourseError as err:
        refused = str(err)
    assert not mark.exists(), f"root ran the grader's nbgrader_config.py (uid {mark.read_text()})"
    assert f"{name} could have been written by someone other than root" in refused, refused
    assert GRADER in refused and "\n" not in refused, refused
    assert os.lstat(hub.course_dir / name).st_uid != 0  # never made root's


@pytest.mark.parametrize("how", ["his own file", "a link"])
def test_a_grader_cannot_make_himself_instructor(hub, how):
    promoted = f"id,role\n{INSTRUCTOR},grader\n{GRADER},instructor\n"
    if how == "a link":  # to a file of root's saying what he wants (root's words, his name on the link)
        elsewhere = hub.scratch / "elsewhere.csv"
        elsewhere.write_text(promoted)
        write = f"rm staff.csv && ln -s {quote(str(elsewhere))} staff.csv"
    else:
        write = f"rm staff.csv && printf %s {quote(promoted)} > staff.csv"
    done = as_user(GRADER, write, hub.course_dir)
    assert done.returncode == 0, done
    with pytest.raises(CourseError) as refused:
        s = read_as_course_hub(hub)
        pytest.fail(f"course hub took the grader's staff.csv: instructors {sorted(s.people.instructors)}")
    message = str(refused.value)
    assert "staff.csv" in message and "\n" not in message, message
    assert ("(a symbolic link)" if how == "a link" else f"(owner {GRADER}, mode 0644)") in message


def test_the_instructor_edits_staff_csv_and_a_grader_cannot(hub):
    # docs/hub.md's commands, in a staff terminal (umask 002), sed for her editor
    edit = (
        "umask 002 && cp staff.csv ~/staff.csv && sed -i 's/,grader$/,instructor/' ~/staff.csv && "
        "rm -f staff.csv && (umask 022 && cp ~/staff.csv staff.csv)"
    )
    done = as_user(INSTRUCTOR, edit, hub.course_dir)
    assert done.returncode == 0, done
    s = read_as_course_hub(hub)
    assert s.people.instructors == {INSTRUCTOR, GRADER}
    info = os.lstat(hub.course_dir / "staff.csv")
    assert info.st_uid != 0 and not stat.S_IMODE(info.st_mode) & 0o022  # hers still, as she wrote it
    assert as_user(INSTRUCTOR, "chmod 644 staff.csv", hub.course_dir).returncode == 0
    appended = as_user(GRADER, "printf 'x,instructor\\n' >> staff.csv", hub.course_dir)
    assert appended.returncode != 0 and "Permission denied" in appended.stderr, appended
    # group-writable (a staff server's umask is 002): any grader could change it, so it is refused
    assert as_user(INSTRUCTOR, "chmod 664 staff.csv", hub.course_dir).returncode == 0
    with pytest.raises(CourseError, match="mode 0664"):
        read_as_course_hub(hub)
