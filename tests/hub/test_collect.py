"""Collecting on the hub: only a student's own folder and files come in, within limits (issue 58).

Two real student accounts submit with nbgrader and the hub's student
settings, from a shell as a notebook's ``!`` line would; root collects
through the staff's privileged path (its ``collect`` verb, called as root).

- amy runs ``nbgrader submit --student bob``: her folder, named as bob's, is
  refused in one line naming bob and amy, and bob's collected submission stays
  his (nbgrader's collect only warned and collected it over his).
- amy puts a FIFO, a sparse file of 5 GB, links to ``/dev/zero`` and to a
  root-only file and a hard link to bob's file into her submission folder: each
  is left out in one line, her notebook and bob's submission are collected, at
  once. A submission of too many files, or too many bytes, is refused whole and
  the earlier collected copy stays.

No hub or browser: a few seconds per test.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from shlex import quote
from types import SimpleNamespace

import nbformat
import pytest

from instructor.hub.config import student_nbgrader_config
from instructor.paths import REPO_ROOT
from tests.hub.harness import RUN, course, remove_accounts
from tests.hub.namespace import as_student
from tests.system import require_root, require_tools

AMY, BOB = f"amyc{RUN}", f"bobc{RUN}"
ASSIGNMENT = "01_rnn"
#: the most a collect may write in these tests: the old collect, copying /dev/zero, stops here instead of the disk
WRITE_LIMIT = 300 * 2**20


@pytest.fixture(scope="module")
def hub():
    require_root("the test makes Unix accounts and collects as root")
    require_tools("unshare", "useradd", "runuser", "mkfifo", "truncate")
    remove_accounts((AMY, BOB), group=f"none{RUN}")
    scratch = Path(tempfile.mkdtemp(prefix="course-collect-test-", dir="/tmp"))
    os.chmod(scratch, 0o755)
    try:
        for name in (AMY, BOB):
            subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", name], check=True)
            os.chmod(f"/home/{name}", 0o700)
        course_dir, root = course(scratch, (AMY, BOB))
        released = root / "seqmodels" / "outbound" / ASSIGNMENT
        released.mkdir(mode=0o755)
        nbformat.write(nbformat.v4.new_notebook(), released / f"{ASSIGNMENT}.ipynb")
        os.chmod(released / f"{ASSIGNMENT}.ipynb", 0o644)
        settings = scratch / "student"
        settings.mkdir(mode=0o755)
        (settings / "nbgrader_config.py").write_text(
            student_nbgrader_config(SimpleNamespace(course_id="seqmodels", exchange=root))
        )
        yield SimpleNamespace(
            scratch=scratch, course_dir=course_dir, inbound=root / "seqmodels" / "inbound", settings=settings
        )
    finally:
        remove_accounts((AMY, BOB), group=f"none{RUN}")
        shutil.rmtree(scratch, ignore_errors=True)


def shell(x, user: str, script: str) -> subprocess.CompletedProcess:
    """``script`` run as ``user`` in her terminal (:func:`as_student`); it must succeed."""
    done = as_student(x.scratch, x.settings, user, script)
    assert done.returncode == 0, (script, done.stdout[-2000:], done.stderr[-2000:])
    return done


def submit(x, user: str, answer: str, *more: str) -> Path:
    """``user`` writes ``answer`` into her notebook and runs ``nbgrader submit`` (``more``: its options); returns
    the folder it made in inbound (found by root, who may list inbound)."""
    before = set(x.inbound.iterdir())
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(answer)])
    text = nbformat.writes(notebook)
    shell(x, user, f"mkdir -p {ASSIGNMENT} && printf '%s' {quote(text)} > {ASSIGNMENT}/{ASSIGNMENT}.ipynb")
    shell(x, user, f"python -m nbgrader submit {ASSIGNMENT} {' '.join(more)}")
    (made,) = set(x.inbound.iterdir()) - before
    return made


def collect(x) -> tuple[str, float]:
    """The staff's ``collect`` verb, run as root (as sudo runs it for a grader); its output and seconds taken."""
    call = "import sys; from instructor.hub.privileged import main; sys.exit(main(sys.argv[1], 'root', sys.argv[2:]))"
    env = {k: v for k, v in os.environ.items() if k != "SUDO_USER"}
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", call, str(x.course_dir), "collect", ASSIGNMENT],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (WRITE_LIMIT, WRITE_LIMIT)),
    )
    took = time.monotonic() - start
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    return output, took


def collected(x, student: str) -> Path:
    return x.course_dir / "submitted" / student / ASSIGNMENT


def answer(x, student: str) -> str | None:
    """The code of the first cell of ``student``'s collected notebook (None: nothing collected)."""
    if not (collected(x, student) / f"{ASSIGNMENT}.ipynb").exists():
        return None
    return nbformat.read(collected(x, student) / f"{ASSIGNMENT}.ipynb", as_version=4).cells[0].source


def lines(output: str, *words: str) -> list[str]:
    return [line for line in output.splitlines() if all(w in line for w in words)]


def test_a_submission_made_as_a_classmate_is_refused_and_hers_stays(hub):
    """amy submits as bob, after bob: refused, one line naming bob and amy; bob's collected copy stays his."""
    submit(hub, BOB, "answer = 'bob'")
    output, _ = collect(hub)
    assert answer(hub, BOB) == "answer = 'bob'", output[-3000:]
    stamp = (collected(hub, BOB) / "timestamp.txt").read_text()
    forged = submit(hub, AMY, "answer = 'amy, as bob'", f"--student={BOB}")
    assert forged.name.startswith(f"{BOB}+") and forged.stat().st_uid != 0
    output, took = collect(hub)
    print(f"collect after the forged submission: {took:.1f} s")
    assert answer(hub, BOB) == "answer = 'bob'", output[-3000:]  # nbgrader's collect put amy's here
    assert (collected(hub, BOB) / "timestamp.txt").read_text() == stamp
    refusal = lines(output, f"collect: refused {forged.name}: it claims to be {BOB}'s but is owned by {AMY}")
    assert len(refusal) == 1, output[-3000:]
    assert not lines(output, "cheating attempt")


def test_what_is_not_her_own_regular_file_is_left_out_and_nobody_waits(hub):
    """A FIFO, a 5 GB sparse file, links to /dev/zero and to a root-only file, a hard link to bob's file and a
    link to / in a sub-folder, all in amy's submission folder: each left out in one line naming amy and the
    file; her notebook and bob's new submission are collected, in seconds."""
    secret = hub.scratch / "root-only"
    secret.write_text("root's secret\n")
    os.chmod(secret, 0o600)
    shared = hub.scratch / "shared"
    shared.mkdir(mode=0o777)
    os.chmod(shared, 0o1777)
    shell(hub, BOB, f"echo bob > {shared}/notes && chmod 666 {shared}/notes")
    mine = submit(hub, AMY, "answer = 'amy'")
    shell(
        hub,
        AMY,
        f"cd '{mine}' && mkfifo pipe && truncate -s 5G sparse && ln -s /dev/zero zero && ln -s {secret} secret"
        f" && ln {shared}/notes linked && mkdir sub && ln -s / sub/everything && echo ok > sub/kept.txt",
    )
    submit(hub, BOB, "answer = 'bob, again'")
    output, took = collect(hub)
    print(f"collect of the hostile folder and bob's: {took:.1f} s", *lines(output, "collect: "), sep="\n")
    assert answer(hub, BOB) == "answer = 'bob, again'", output[-3000:]
    assert answer(hub, AMY) == "answer = 'amy'", output[-3000:]
    assert (collected(hub, AMY) / "sub" / "kept.txt").read_text() == "ok\n"
    for name, why in (
        ("pipe", "it is a FIFO (named pipe), not a regular file"),
        ("sparse", "5120 MB, more than 20 MB (OwnedCollect.max_file_mb)"),
        ("zero", "it is a symbolic link, not a regular file"),
        ("secret", "it is a symbolic link, not a regular file"),
        ("linked", f"a hard link (2 names) to a file of {BOB}"),
        ("sub/everything", "it is a symbolic link, not a regular file"),
    ):
        assert not os.path.lexists(collected(hub, AMY) / name), name
        said = lines(output, f"collect: left out {name} of {AMY}: ")
        assert len(said) == 1 and said[0].endswith(why), (name, output[-3000:])
    # nothing of the 5 GB file or /dev/zero was copied (a stall ends in collect()'s subprocess timeout, not a clock)
    copied = sum(p.lstat().st_size for p in collected(hub, AMY).rglob("*") if p.is_file() and not p.is_symlink())
    assert copied < 2**20, copied


def test_too_many_files_or_bytes_are_refused_whole(hub):
    """amy's next submission holds 300 files, bob's six sparse files of 19 MB (114 MB in all): both refused in
    one line each, before any byte is read; the copies collected before stay."""
    before = {s: answer(hub, s) for s in (AMY, BOB)}
    hers = submit(hub, AMY, "answer = 'amy, many files'")
    shell(hub, AMY, f"cd '{hers}' && for i in $(seq 300); do : > f$i; done")
    his = submit(hub, BOB, "answer = 'bob, many bytes'")
    shell(hub, BOB, f"cd '{his}' && for i in 1 2 3 4 5 6; do truncate -s 19M big$i; done")
    output, took = collect(hub)
    print(f"collect of two submissions over the limits: {took:.1f} s", *lines(output, "collect: "), sep="\n")
    assert {s: answer(hub, s) for s in (AMY, BOB)} == before, output[-3000:]
    many = f"collect: refused {hers.name}: {AMY}'s submission holds more than 200 files and folders"
    big = f"collect: refused {his.name}: {BOB}'s submission holds more than 100 MB (OwnedCollect.max_total_mb)"
    assert len(lines(output, many)) == 1 and len(lines(output, big)) == 1, output[-3000:]
    assert not [p for p in collected(hub, AMY).parent.iterdir() if p.name.startswith(".")]  # no copy left behind


def test_a_time_that_is_no_time_stops_nobody(hub):
    """amy writes 'no time' into her submission's timestamp.txt before it is collected; then she and bob submit
    again: both new submissions are collected (nbgrader's collect stopped everyone's on the copy's bad time)."""
    hers = submit(hub, AMY, "answer = 'amy, odd time'")
    shell(hub, AMY, f"echo 'no time' > '{hers}/timestamp.txt'")
    output, _ = collect(hub)
    assert (collected(hub, AMY) / "timestamp.txt").read_text() == "no time\n", output[-3000:]
    submit(hub, AMY, "answer = 'amy, last'")
    submit(hub, BOB, "answer = 'bob, last'")
    output, took = collect(hub)
    print(f"collect after a copy with no time: {took:.1f} s")
    assert (answer(hub, AMY), answer(hub, BOB)) == ("answer = 'amy, last'", "answer = 'bob, last'"), output[-3000:]


def test_the_limits_are_settings_of_the_course_directory(tmp_path, run_course):
    """``c.OwnedCollect.max_files = 3`` in the course directory's nbgrader_config.py, loaded as nbgrader loads it,
    is the collect's limit; the other two keep their defaults (docs/configuration.md)."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import PyFileConfigLoader

    from instructor.hub.collect import OwnedCollect

    run_course(["init", tmp_path / "cd", "--exchange", tmp_path / "exchange"])
    settings = tmp_path / "cd" / "nbgrader_config.py"
    settings.write_text(settings.read_text() + "c.OwnedCollect.max_files = 3\n")
    config = PyFileConfigLoader(settings.name, str(settings.parent)).load_config()
    made = OwnedCollect(
        coursedir=CourseDirectory(config=config), authenticator=Authenticator(config=config), config=config
    )
    assert (made.max_files, made.max_file_mb, made.max_total_mb) == (3, 20, 100)
