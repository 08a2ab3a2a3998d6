"""Grades on the hub change only through the tools, each naming its author; a grader's direct write is refused
at export (issue 58, grades).

The course directory is shared as ``course hub`` shares it (root's and the
staff group's, ``gradebook.db`` group-writable, as nbgrader needs it), with
amy's 01_toy graded by root (root's journal, as the privileged path's
``course grade`` leaves it). A real instructor and a real grader account then
work from their terminals (``runuser``, umask 002 as a staff server's): the
grader writes the gradebook with ``sqlite3`` and the journals with his shell.
No hub is started: seconds.
"""

from __future__ import annotations

import json
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

from instructor.coursedir import journal
from instructor.coursedir.course_dir import CourseDir
from instructor.hub import accounts
from tests.hub.harness import GRADER, INSTRUCTOR, STUDENTS, course, remove_accounts
from tests.hub.namespace import wrap
from tests.system import require_root, require_tools

GROUP = f"staffjrnl{INSTRUCTOR.removeprefix('teach')}"
A, AMY = "01_toy", STUDENTS[0]


@pytest.fixture(scope="module")
def shared():
    require_root("the test makes Unix accounts")
    require_tools("unshare", "useradd", "runuser", "sqlite3")
    remove_accounts((INSTRUCTOR, GRADER), GROUP)
    scratch = Path(tempfile.mkdtemp(prefix="course-journal-test-", dir="/tmp"))
    os.chmod(scratch, 0o755)
    try:
        for name in (INSTRUCTOR, GRADER):
            subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", name], check=True)
        course_dir, _ = course(scratch)
        with Gradebook(CourseDir.at(course_dir).gradebook_url) as gb:  # root's grading run, as recorded
            gb.update_or_create_assignment(A)
            gb.add_notebook(A, A)
            gb.add_grade_cell("add__values", A, A, max_score=2, cell_type="code")
            gb.add_grade_cell("why", A, A, max_score=1, cell_type="markdown")
            gb.add_submission(A, AMY)
            gb.find_grade("add__values", A, A, AMY).auto_score = 2.0
            gb.db.commit()
            journal.record(CourseDir.places_at(course_dir), *journal.autograde_lines(gb.find_submission(A, AMY)))
        gid = accounts.staff_group(GROUP, [INSTRUCTOR, GRADER], accounts.Made(scratch / "state" / "made.json"))
        accounts.share_course_dir(course_dir, gid)
        yield SimpleNamespace(scratch=scratch, course_dir=course_dir, gid=gid)
    finally:
        remove_accounts((INSTRUCTOR, GRADER), GROUP)
        shutil.rmtree(scratch, ignore_errors=True)


def as_user(hub, user: str, *command: str) -> subprocess.CompletedProcess:
    """``command`` as ``user`` in the course directory, as a terminal of their server on the hub runs it."""
    env = [
        f"HOME=/home/{user}",
        f"COURSE_DIR={hub.course_dir}",
        "PYTHONSAFEPATH=1",
        f"PATH={Path(sys.executable).parent}:/usr/bin:/bin",
    ]
    line = " ".join(quote(w) for w in ["runuser", "-u", user, "--", "env", "-i", *env, *command])
    shell = f"umask 002 && cd {quote(str(hub.course_dir))} && {line}"
    return subprocess.run(wrap(["sh", "-c", shell], hub.scratch), capture_output=True, text=True, timeout=300)


def course_cmd(hub, user: str, *args: str) -> subprocess.CompletedProcess:
    return as_user(hub, user, sys.executable, "-m", "instructor", *args)


def sqlite(hub, user: str, column: str, value: float, cell: str) -> subprocess.CompletedProcess:
    query = f"UPDATE grade SET {column} = {value} WHERE cell_id IN (SELECT id FROM base_cell WHERE name = '{cell}');"
    return as_user(hub, user, "sqlite3", "gradebook.db", query)


def test_the_instructors_hand_grade_is_hers_and_a_graders_sqlite_write_is_refused(shared):
    hub = shared
    given = course_cmd(hub, INSTRUCTOR, "override", A, AMY, "why", "0.5")
    assert given.returncode == 0, given.stdout + given.stderr
    hers = CourseDir.places_at(hub.course_dir).journals / f"{INSTRUCTOR}.jsonl"
    accounts.share_course_dir(hub.course_dir, hub.gid)  # as every privileged step ends: her journal stays hers
    info = os.lstat(hers)
    assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (int(_uid(INSTRUCTOR)), 0o644)
    assert os.lstat(CourseDir.places_at(hub.course_dir).journals).st_mode & stat.S_ISVTX
    exported = course_cmd(hub, INSTRUCTOR, "export", "--file", str(hub.course_dir / "grades.csv"))
    assert exported.returncode == 0, exported.stdout + exported.stderr

    # the grader, from his terminal: the gradebook is the group's to write, as nbgrader needs
    written = sqlite(hub, GRADER, "manual_score", 1.0, "why")
    assert written.returncode == 0, written.stderr
    refused = course_cmd(hub, INSTRUCTOR, "export", "--file", str(hub.course_dir / "grades.csv"))
    line = (
        f"{A}, {AMY}, cell why, points given by hand: the gradebook holds 1, the journal 0.5 "
        f"(hand grade by {INSTRUCTOR}, 20"
    )
    assert refused.returncode == 1 and line in refused.stderr, refused.stderr
    assert "course override" in refused.stderr and "nothing was exported" in refused.stderr

    # settled: the instructor gives the points again, under her name
    assert course_cmd(hub, INSTRUCTOR, "override", A, AMY, "why", "0.5").returncode == 0
    assert course_cmd(hub, INSTRUCTOR, "export", "--file", str(hub.course_dir / "grades.csv")).returncode == 0


def _uid(user: str) -> str:
    return subprocess.run(["id", "-u", user], capture_output=True, text=True, check=True).stdout.strip()


def test_a_grader_cannot_write_or_forge_anothers_journal(shared):
    hub = shared
    folder = CourseDir.places_at(hub.course_dir).journals
    assert course_cmd(hub, INSTRUCTOR, "override", A, AMY, "why", "0.5").returncode == 0
    hers, roots = folder / f"{INSTRUCTOR}.jsonl", folder / "root.jsonl"
    before = {p: p.read_bytes() for p in (hers, roots)}
    forged = json.dumps(journal.line(journal.HAND_GRADE, A, AMY, A, "why", manual=1.0))
    for target in (hers, roots):
        appended = as_user(hub, GRADER, "sh", "-c", f"printf '%s\\n' {quote(forged)} >> {quote(str(target))}")
        assert appended.returncode != 0 and "Permission denied" in appended.stderr, appended
        for attempt in (f"rm -f {quote(str(target))}", f"mv {quote(str(target))} {quote(str(folder / 'x.jsonl'))}"):
            done = as_user(hub, GRADER, "sh", "-c", attempt)
            assert done.returncode != 0 and "Operation not permitted" in done.stderr, (attempt, done)
    assert {p: p.read_bytes() for p in (hers, roots)} == before

    # his own file, named as hers, saying it is hers and root's autograde: the lines are his, the autograde refused
    autograde = json.dumps(journal.line(journal.AUTOGRADE, A, AMY, A, "add__values", auto=0.0))
    planted = folder / f"{INSTRUCTOR}-copy.jsonl"
    write = f"printf '%s\\n%s\\n' {quote(forged)} {quote(autograde)} > {quote(str(planted))}"
    assert as_user(hub, GRADER, "sh", "-c", write).returncode == 0
    assert sqlite(hub, GRADER, "manual_score", 1.0, "why").returncode == 0
    assert sqlite(hub, GRADER, "auto_score", 0.0, "add__values").returncode == 0
    refused = course_cmd(hub, INSTRUCTOR, "export", "--file", str(hub.course_dir / "grades.csv"))
    # made with a staff terminal's umask (002): the group could write it, so its lines are nobody's for sure
    assert f"{planted.name} could be written by others than {GRADER} (mode 0664)" in refused.stderr, refused.stderr
    assert as_user(hub, GRADER, "chmod", "644", str(planted)).returncode == 0
    refused = course_cmd(hub, INSTRUCTOR, "export", "--file", str(hub.course_dir / "grades.csv"))
    assert refused.returncode == 1, refused.stdout
    said = refused.stderr
    assert f"(by {GRADER}), line 2: {GRADER} is neither root nor the owner of the course directory" in said, said
    assert f"{A}, {AMY}, cell add__values, autograded points: the gradebook holds 0, the journal 2" in said, said
    assert "cell why" not in said, said  # his hand grade explains it, and names him
    entries, _ = journal.read_journals(CourseDir.places_at(hub.course_dir))
    why = [e for e in entries if e.data["cell"] == "why" and "manual" in e.data]
    assert (why[-1].author, why[-1].data["manual"]) == (GRADER, 1.0)
