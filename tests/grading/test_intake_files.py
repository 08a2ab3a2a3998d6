"""Only a regular file the student wrote is graded, from the exchange or after a collect (issue 42, finding 2).

`nbgrader collect` copies with `shutil.copytree`, which follows links: a
notebook that is a link to the course's own solution arrives in submitted/
as a plain file holding the solution. The grader checks the exchange folder
the copy came from.
"""

from __future__ import annotations

import os
import resource
import shutil
import socket
import stat
import subprocess
import sys

import pytest

from tests.grading.test_exchange_trace import _collect, _submit
from tests.system import require_root

STAMP = "2026-01-01 10:00:00.000000 UTC"
LOGINS = {4000: "amy", 4002: "carl"}


@pytest.fixture
def logins(monkeypatch):
    """uids 4000 and 4002 are amy and carl (no such accounts need exist; giving them files needs root)."""
    import instructor.grading.intake as intake

    require_root("the test gives files to other accounts")

    real = intake.pwd.getpwuid
    monkeypatch.setattr(
        intake.pwd, "getpwuid", lambda uid: type("P", (), {"pw_name": LOGINS[uid]})() if uid in LOGINS else real(uid)
    )


def _course(course_repo, tmp_path, run_course):
    cd, inbound = tmp_path / "cd", tmp_path / "exchange/seqmodels/inbound"
    run_course(["init", cd, "--exchange", tmp_path / "exchange"])
    inbound.mkdir(parents=True, exist_ok=True)
    return cd, inbound


def _line(out: str, student: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(student + " "))


def _grade(run_course, cd, course_repo, *more):
    out, _ = run_course(["grade", *more, "--course-dir", cd, "--root", course_repo, "--unsafe", "--force"])
    return out


def test_a_linked_notebook_collected_by_root_is_refused(course_repo, tmp_path, run_course):
    """amy's exchange folder holds a link to the solution; root collects (the copy is the solution's bytes), then
    grades submitted/: is it refused, saying where it came from, where it used to be graded 2/2?"""
    cd, inbound = _course(course_repo, tmp_path, run_course)
    solution = course_repo / "solutions/01_toy/01_toy.ipynb"
    folder = _submit(inbound, "amy", STAMP, course_repo / "notebooks/01_toy/01_toy.ipynb")
    (folder / "01_toy.ipynb").unlink()
    os.symlink(solution, folder / "01_toy.ipynb")
    _collect(cd, inbound, "amy")
    assert not (cd / "submitted/amy/01_toy/01_toy.ipynb").is_symlink()  # collect copied the solution
    amy = _line(_grade(run_course, cd, course_repo), "amy")
    assert f"not graded: in its exchange folder {folder.name}, 01_toy.ipynb is a symbolic link" in amy
    # graded from the exchange itself, the link is refused too
    assert "01_toy.ipynb is a symbolic link" in _line(_grade(run_course, cd, course_repo, inbound), "amy")


def test_a_link_swapped_for_a_file_after_collect_is_refused(course_repo, tmp_path, run_course):
    """The link is collected, then replaced by a file of her own: is the collected copy (the solution) refused?"""
    cd, inbound = _course(course_repo, tmp_path, run_course)
    blank = course_repo / "notebooks/01_toy/01_toy.ipynb"
    folder = _submit(inbound, "amy", STAMP, blank)
    (folder / "01_toy.ipynb").unlink()
    os.symlink(course_repo / "solutions/01_toy/01_toy.ipynb", folder / "01_toy.ipynb")
    _collect(cd, inbound, "amy")
    (folder / "01_toy.ipynb").unlink()
    shutil.copy(blank, folder / "01_toy.ipynb")
    amy = _line(_grade(run_course, cd, course_repo), "amy")
    assert f"not graded: the collected 01_toy.ipynb differs from the one in its exchange folder {folder.name}" in amy


def test_a_collected_folder_without_its_stamp_or_its_exchange_folder_is_refused(course_repo, tmp_path, run_course):
    """A link collected from a folder without timestamp.txt, and one whose exchange folder was then removed:
    neither can be traced to a file of the student, so neither is graded (both were graded 2/2)."""
    cd, inbound = _course(course_repo, tmp_path, run_course)
    solution = course_repo / "solutions/01_toy/01_toy.ipynb"
    for student in ("amy", "bob"):
        folder = _submit(inbound, student, STAMP, course_repo / "notebooks/01_toy/01_toy.ipynb")
        (folder / "01_toy.ipynb").unlink()
        os.symlink(solution, folder / "01_toy.ipynb")
        if student == "amy":
            (folder / "timestamp.txt").unlink()
        _collect(cd, inbound, student)
        if student == "bob":
            shutil.rmtree(folder)
    out = _grade(run_course, cd, course_repo)
    assert "not graded: it has no readable timestamp.txt" in _line(out, "amy"), out
    assert f"not graded: no exchange folder of bob has its stamp ({STAMP})" in _line(out, "bob"), out


def test_a_hard_link_to_another_accounts_file_is_refused(course_repo, tmp_path, run_course, logins):
    """amy (uid 4000) links carl's (4002) notebook into her exchange folder: refused from the exchange and after
    collect; her own file with a second name of her own is graded."""
    cd, inbound = _course(course_repo, tmp_path, run_course)
    theirs = tmp_path / "carl-home/01_toy.ipynb"
    theirs.parent.mkdir()
    shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", theirs)
    os.chown(theirs, 4002, 4002)
    folder = _submit(inbound, "amy", STAMP, course_repo / "notebooks/01_toy/01_toy.ipynb", owner=4000)
    (folder / "01_toy.ipynb").unlink()
    os.link(theirs, folder / "01_toy.ipynb")
    own = _submit(inbound, "bob", STAMP, course_repo / "solutions/01_toy/01_toy.ipynb")
    os.link(own / "01_toy.ipynb", tmp_path / "bob-backup.ipynb")  # two names, the grader's own account: unknown owner
    hers = "01_toy.ipynb is a hard link (2 names) to a file of carl, not amy's own file"
    out = _grade(run_course, cd, course_repo, inbound)
    assert hers in _line(out, "amy"), out
    assert "a file whose owner cannot be established" in _line(out, "bob"), out
    _collect(cd, inbound, "amy")
    assert f"in its exchange folder {folder.name}, {hers}" in _line(_grade(run_course, cd, course_repo), "amy")


def _fifo(path):
    os.mkfifo(path)


def _socket(path):
    here = os.getcwd()
    os.chdir(path.parent)  # a socket's path is limited to 108 bytes: bind the short name
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(path.name)
    finally:
        os.chdir(here)


def _device(path):
    os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers


@pytest.mark.parametrize("make, words", [(_fifo, "a FIFO"), (_socket, "a socket"), (_device, "a character device")])
def test_a_notebook_that_is_no_file_is_refused_by_its_kind(course_repo, tmp_path, run_course, make, words):
    """A FIFO, socket or device named 01_toy.ipynb in the exchange: refused, saying what it is, never opened."""
    if make is _device:
        require_root("making a device node needs root")
    cd, inbound = _course(course_repo, tmp_path, run_course)
    folder = _submit(inbound, "amy", STAMP, course_repo / "notebooks/01_toy/01_toy.ipynb")
    (folder / "01_toy.ipynb").unlink()
    make(folder / "01_toy.ipynb")
    amy = _line(_grade(run_course, cd, course_repo, inbound), "amy")
    assert f"not graded: 01_toy.ipynb is {words}" in amy and "not a regular file" in amy, amy


def test_read_checked_refuses_a_folder_swapped_for_a_link(tmp_path):
    """The submission folder itself replaced by a link (after it was listed): is nothing read through it?"""
    from instructor.grading.intake import read_checked

    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere/01_toy.ipynb").write_text("{}")
    os.symlink(tmp_path / "elsewhere", tmp_path / "amy+01_toy+stamp")
    with pytest.raises(OSError):
        read_checked(tmp_path / "amy+01_toy+stamp/01_toy.ipynb")
    assert read_checked(tmp_path / "elsewhere/01_toy.ipynb")[0] == b"{}"


#: the address space the intake below runs in: a notebook read whole would not fit
INTAKE_MEMORY = 1 * 2**30
INTAKE = """
import sys
from pathlib import Path
from instructor.coursedir.course_dir import CourseDir
from instructor.grading.intake import find_submissions
for sub in find_submissions(Path(sys.argv[1]), ["01_toy"], course_dir=CourseDir.at(Path(sys.argv[2]))):
    print(sub.student, sub.status.name, sub.reason, sep="|")
"""


def test_a_sparse_notebook_of_gigabytes_is_never_read(course_repo, tmp_path, run_course):
    """amy's exchange folder holds, beside her notebook, notes.ipynb: a sparse file of 4 GB (no disk used); bob's
    notebook itself is one. Taken in from the exchange (found, arrivals recorded, checked) with 1 GB of address
    space: is neither read (amy's queued, bob's refused by its size), where the arrival hash read both whole?"""
    cd, inbound = _course(course_repo, tmp_path, run_course)
    blank = course_repo / "notebooks/01_toy/01_toy.ipynb"
    amy, bob = (_submit(inbound, s, STAMP, blank) for s in ("amy", "bob"))
    for path in (amy / "notes.ipynb", bob / "01_toy.ipynb"):
        with open(path, "ab") as f:
            f.truncate(4 * 2**30)
    limit = (INTAKE_MEMORY, INTAKE_MEMORY)
    done = subprocess.run(
        [sys.executable, "-c", INTAKE, str(inbound), str(cd)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, limit),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = dict(line.split("|", 1) for line in done.stdout.splitlines())
    assert found["amy"] == "QUEUED|", done.stdout
    assert found["bob"] == "NOT_GRADED|01_toy.ipynb is larger than 20 MB", done.stdout


def test_the_arrival_hash_reads_every_notebook_intake_may_grade():
    """A notebook small enough to be graded is hashed by its bytes (a late edit is a new arrival)."""
    from instructor.coursedir.arrivals import HASHED_BYTES
    from instructor.grading.intake import MAX_NOTEBOOK_BYTES

    assert HASHED_BYTES > MAX_NOTEBOOK_BYTES
