"""Resumable, idempotent grading: kills at several points, reruns, re-submissions."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from instructor.cli import main
from instructor.coursedir.course_dir import CourseDir
from instructor.paths import REPO_ROOT
from instructor.reporting import table as grade_table
from tests.factories import copy_course_dir, make_course

# Run `course grade ARGS` and SIGKILL its whole process group at one point of the k-th submission.
KILLER = r"""
import os, signal, sys
from instructor.cli import main
from instructor.coursedir import atomic, store
from instructor.grading import chains, record
from instructor.scheduling import dispatch

point, k, args = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
seen = [0]

def hit():
    seen[0] += 1
    if seen[0] == k:
        os.killpg(os.getpgid(0), signal.SIGKILL)

def before(owner, name, when):
    orig = getattr(owner, name)
    def wrapped(*a, **kw):
        if when(*a, **kw):
            hit()
        return orig(*a, **kw)
    setattr(owner, name, wrapped)

if point == "grading":  # the k-th submission is in the sandbox
    before(dispatch, "grade", lambda *a, **kw: True)
elif point == "record_gradebook":  # submission row written, grades not yet
    before(record, "run_chain", lambda chain, *a, **kw: chain is chains.RECORD)
elif point == "record_results":  # gradebook committed, results file half-way (temp written, not renamed)
    before(atomic.os, "replace", lambda src, dst, *a, **kw: str(dst).endswith(".json"))
elif point == "after_record":  # the k-th record finished (its results file, written last through the store)
    orig = store.write_atomic
    def write_atomic(path, text):
        orig(path, text)
        if path.parent.parent.name == "results":
            hit()
    store.write_atomic = write_atomic
sys.exit(main(["grade", *args]))
"""


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """The toy course and two students' submissions of both assignments (four: a kill at any point leaves one
    after it)."""
    tmp = tmp_path_factory.mktemp("resume")
    root = make_course(tmp / "repo")
    assert main(["generate", "--root", str(root)]) == 0
    for student, folder in (("blank", "notebooks"), ("zed", "solutions")):
        for a in ("01_toy", "02_toy"):
            target = tmp / "subs" / student / a
            target.mkdir(parents=True)
            shutil.copy(root / folder / a / f"{a}.ipynb", target)
    return tmp, root


@pytest.fixture(scope="module")
def clean_run(toy):
    """One uninterrupted run of the four: its course directory (never changed: tests grade copies) and what it
    printed."""
    tmp, root = toy
    ws = tmp / "clean"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["grade", str(tmp / "subs"), "--course-dir", str(ws), "--root", str(root)]) == 0
    return ws, printed.getvalue()


@pytest.fixture(scope="module")
def clean(clean_run):
    """The grades of one uninterrupted run."""
    return _state(clean_run[0])


def _state(ws: Path) -> dict:
    """Grades as the table shows them, and the gradebook's row counts (a doubled grade shows there)."""
    rows = sorted(
        (g.student, g.assignment, g.auto_score, g.auto_max, g.status) for g in grade_table.grades(CourseDir.at(ws))
    )
    with sqlite3.connect(ws / "gradebook.db") as db:
        counts = {
            table: db.execute(f"select count(*) from {table}").fetchone()[0]
            for table in ("student", "submitted_assignment", "submitted_notebook", "grade", "comment")
        }
        doubled = db.execute(
            "select count(*) from (select notebook_id, cell_id from grade "
            "group by notebook_id, cell_id having count(*) > 1)"
        ).fetchone()[0]
    results = sorted(p.relative_to(ws).as_posix() for p in (ws / "results").rglob("*.json"))
    return {"rows": rows, "counts": counts, "doubled": doubled, "results": results}


def _killed_run(tmp: Path, root: Path, ws: Path, point: str, k: int, *extra: str) -> int:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            KILLER,
            point,
            str(k),
            str(tmp / "subs"),
            "--course-dir",
            str(ws),
            "--root",
            str(root),
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
        start_new_session=True,
        timeout=300,
    )
    return proc.returncode


@pytest.mark.parametrize(
    "point, k, extra",
    [
        ("grading", 3, ()),
        ("record_gradebook", 2, ()),
        ("record_results", 3, ()),
        ("after_record", 3, ()),
        ("record_results", 2, ("--jobs", "2")),
    ],
)
def test_a_killed_run_resumes_to_the_clean_grades(toy, clean, run_course, tmp_path, point, k, extra):
    """After a SIGKILL at this point, does a rerun grade only what is missing, with no lost or doubled grade?"""
    tmp, root = toy
    ws = tmp_path / "ws"
    assert _killed_run(tmp, root, ws, point, k, *extra) == -9
    recorded = len(list((ws / "results").rglob("*.json"))) if (ws / "results").is_dir() else 0
    assert recorded < 4
    out, _ = run_course(["grade", tmp / "subs", "--course-dir", ws, "--root", root])
    if recorded:
        assert f"{recorded} submission(s) already graded and unchanged" in out
    assert _state(ws) == clean
    assert clean["doubled"] == 0


def test_grading_twice_gives_the_same_table(toy, clean_run, clean, run_course, tmp_path):
    """Do a rerun (nothing to do) and a --force rerun both leave the same grades and rows?"""
    tmp, root = toy
    ws = copy_course_dir(clean_run[0], tmp_path / "ws")  # the first run: the clean one
    first = clean_run[1]
    again, _ = run_course(["grade", tmp / "subs", "--course-dir", ws, "--root", root])
    assert "4 submission(s) already graded and unchanged" in again
    assert _state(ws) == clean
    run_course(["grade", tmp / "subs", "--course-dir", ws, "--root", root, "--force"])
    assert _state(ws) == clean

    def table(out):
        return [line for line in out.splitlines() if line.startswith(("blank ", "zed "))]

    assert table(first) == table(again) and len(table(first)) == 4

    (ws / "gradebook.db").unlink()  # results without their gradebook: graded again, not trusted
    out, _ = run_course(["grade", tmp / "subs", "--course-dir", ws, "--root", root])
    assert "already graded" not in out
    assert _state(ws) == clean


def test_a_resubmission_replaces_the_old_grade(toy, clean_run, run_course, tmp_path):
    """Is a changed notebook graded again (and only it), and an ungradable re-submission no longer scored?"""
    tmp, root = toy
    subs = tmp_path / "subs"
    shutil.copytree(tmp / "subs", subs)
    ws = copy_course_dir(clean_run[0], tmp_path / "ws")  # the four graded from the same bytes
    grades = {(g.student, g.assignment): g for g in grade_table.grades(CourseDir.at(ws))}
    assert grades[("zed", "01_toy")].auto_score == 2

    shutil.copy(root / "notebooks/01_toy/01_toy.ipynb", subs / "zed/01_toy/01_toy.ipynb")  # new bytes
    out, _ = run_course(["grade", subs, "--course-dir", ws, "--root", root])
    assert "3 submission(s) already graded and unchanged" in out
    grades = {(g.student, g.assignment): g for g in grade_table.grades(CourseDir.at(ws))}
    assert grades[("zed", "01_toy")].auto_score == 0

    (subs / "zed/01_toy/timestamp.txt").write_text("2026-01-02 10:00:00.000000 UTC")  # same bytes, new stamp
    out, _ = run_course(["grade", subs, "--course-dir", ws, "--root", root])
    assert "3 submission(s) already graded and unchanged" in out

    (subs / "zed/01_toy/01_toy.ipynb").write_text("")  # a re-submission that cannot be graded
    out, _ = run_course(["grade", subs, "--course-dir", ws, "--root", root])
    grades = {(g.student, g.assignment): g for g in grade_table.grades(CourseDir.at(ws))}
    assert grades[("zed", "01_toy")].status == "not graded"
    assert "01_toy.ipynb is empty" in grades[("zed", "01_toy")].reason
    assert not (ws / "autograded/zed/01_toy").exists()


def test_an_ungradable_resubmission_leaves_no_grade_in_a_gradebook_named_by_db(toy, run_course, tmp_path):
    """With --db naming an SQLite file outside the course directory, is the old grade removed there too?"""
    from nbgrader.api import Gradebook, MissingEntry

    tmp, root = toy
    subs = tmp_path / "subs"
    shutil.copytree(tmp / "subs" / "zed" / "01_toy", subs / "zed" / "01_toy")  # one submission is the point
    ws, book = tmp_path / "ws", tmp_path / "elsewhere" / "grades.db"
    book.parent.mkdir()
    db = f"sqlite:///{book}"
    run_course(["grade", subs, "--course-dir", ws, "--root", root, "--db", db])
    assert not (ws / "gradebook.db").exists()
    with Gradebook(db) as gb:
        assert gb.find_submission("01_toy", "zed").score > 0

    (subs / "zed/01_toy/01_toy.ipynb").write_text("")
    run_course(["grade", subs, "--course-dir", ws, "--root", root, "--db", db])
    with Gradebook(db) as gb, pytest.raises(MissingEntry):
        gb.find_submission("01_toy", "zed")
