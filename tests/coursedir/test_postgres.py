"""A shared gradebook on a real PostgreSQL server: grade, export and feedback with --db."""

from __future__ import annotations

import csv
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.factories import released_toy_class
from tests.system import missing


def _server_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not found:
        missing("the PostgreSQL server (Debian package postgresql)")
    return Path(found[-1]).parent


def _user() -> list[str]:
    """PostgreSQL refuses to run as root: run it as the `postgres` user (or nobody)."""
    if os.geteuid() != 0:
        return []
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return ["runuser", "-u", name, "--"]
    missing("a non-root user to run PostgreSQL as (postgres or nobody)")


@pytest.fixture(scope="module")
def postgres():
    """A throwaway server on a unix socket in a temporary folder; yields a database URL."""
    server, as_user = _server_bin(), _user()
    base = Path(tempfile.mkdtemp(prefix="course-pg-"))
    data, sock = base / "data", base / "sock"
    sock.mkdir()
    if as_user:
        os.chmod(base, 0o755)
        owner = pwd.getpwnam(as_user[2])
        for path in (base, sock):
            os.chown(path, owner.pw_uid, owner.pw_gid)

    def run(*cmd):
        done = subprocess.run([*as_user, *map(str, cmd)], capture_output=True, text=True, cwd=base)
        assert done.returncode == 0, f"{' '.join(map(str, cmd))}:\n{done.stdout}\n{done.stderr}"

    run(server / "initdb", "-D", data, "-U", "course", "--auth=trust", "-E", "UTF8", "--no-sync")
    run(
        server / "pg_ctl",
        "-D",
        data,
        "-l",
        base / "server.log",
        "-w",
        "-t",
        "60",
        "-o",
        f"-k {sock} -c listen_addresses='' -F",
        "start",
    )
    try:
        run(server / "createdb", "-h", sock, "-U", "course", "gradebook")
        yield f"postgresql+psycopg2://course@/gradebook?host={sock}"
    finally:
        subprocess.run(
            [*as_user, str(server / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], capture_output=True
        )
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """The toy course released, and a reference and a blank submission of each assignment."""
    tmp = tmp_path_factory.mktemp("pg")
    return released_toy_class(tmp)


def test_grade_export_feedback_in_postgresql(postgres, toy, run_course):
    """Do grade, export and feedback with --db use the PostgreSQL gradebook (and no SQLite file)?"""
    from nbgrader.api import Gradebook

    tmp, root = toy
    ws = tmp / "ws"
    graded, err = run_course(["grade", tmp / "subs", "--course-dir", ws, "--root", root, "--db", postgres])
    table = [line for line in graded.splitlines() if line.startswith(("ref ", "blank "))]
    assert any(line.split()[:5] == ["ref", "01_toy", "2", "/", "2"] for line in table), graded
    assert any(line.split()[:5] == ["blank", "01_toy", "0", "/", "2"] for line in table), graded
    assert "Warning" not in err and "WARNING" not in err
    assert not (ws / "gradebook.db").exists()
    with Gradebook(postgres) as gb:
        assert sorted(s.id for s in gb.students) == ["blank", "ref"]
        assert gb.find_submission("01_toy", "ref").code_score == 2

    run_course(["export", "--course-dir", ws, "--file", tmp / "grades.csv", "--db", postgres])
    with open(tmp / "grades.csv", newline="") as f:
        rows = {(r["student_id"], r["assignment"]): float(r["score"]) for r in csv.DictReader(f)}
    assert rows == {("ref", "01_toy"): 2.0, ("blank", "01_toy"): 0.0, ("ref", "02_toy"): 1.0, ("blank", "02_toy"): 0.0}

    run_course(["feedback", "--course-dir", ws, "--db", postgres])
    assert "very secret" not in (ws / "feedback/blank/01_toy/01_toy.html").read_text()
    # MarkPendingGrades read the PostgreSQL gradebook: ref's written answer waits for a grader
    assert "waiting for a grader</span>1.0 points" in (ws / "feedback/ref/01_toy/01_toy.html").read_text()

    # a second grader run against the same database grades nothing again and shows the same table
    again, _ = run_course(["grade", tmp / "subs", "--course-dir", ws, "--root", root, "--db", postgres])
    assert "4 submission(s) already graded and unchanged" in again
    assert [line for line in again.splitlines() if line.startswith(("ref ", "blank "))] == table
    with Gradebook(postgres) as gb:
        assert len(gb.find_assignment("01_toy").submissions) == 2


@pytest.mark.parametrize("command", [["grade", "{subs}"], ["export"], ["feedback"]])
@pytest.mark.parametrize(
    "db, message",
    [
        ("postgresql://course@/nodb?host=/nonexistent-socket-dir", "cannot open the gradebook database"),
        ("not a url", "is not a database URL"),
    ],
)
def test_an_unreachable_database_is_one_sentence(toy, run_course, tmp_path, command, db, message):
    """Is a --db that cannot be opened refused in one sentence, exit 1, for grade, export and feedback?"""
    tmp, root = toy
    args = [a.format(subs=tmp / "subs") for a in command] + ["--course-dir", tmp_path / "ws", "--db", db]
    if command[0] == "grade":
        args += ["--root", root]
    _, err = run_course(args, retcode=1)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in err, err
