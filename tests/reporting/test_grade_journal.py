"""`course export` refuses a gradebook holding a score no tool wrote, and names who wrote the others (issue 58).

A toy class graded by `course grade` (its autograde lines), hand grades given
through the formgrader's own API (a real Jupyter server with the course's
pages) and `course override`; then a score written straight into
gradebook.db with SQLite, as a grader with a terminal could.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import sqlite3
import urllib.request

import pytest

from instructor.coursedir import journal
from instructor.coursedir.course_dir import CourseDir
from tests.browser.lab import jupyter_lab

ROSTER = "id,first_name,last_name,email\namy,Amy,Adams,amy@example.org\n"
A = "01_toy"


@pytest.fixture
def graded(course_repo, tmp_path, run_course):
    """amy's 01_toy graded by `course grade` (2 autograded points, her written answer `why` waiting)."""
    cd = tmp_path / "cd"
    run_course(["init", cd])
    (tmp_path / "class.csv").write_text(ROSTER)
    run_course(["roster", "import", tmp_path / "class.csv", "--course-dir", cd])
    (tmp_path / "subs/amy" / A).mkdir(parents=True)
    shutil.copy(course_repo / f"solutions/{A}/{A}.ipynb", tmp_path / "subs/amy" / A)
    run_course(["grade", tmp_path / "subs", "--course-dir", cd, "--root", course_repo, "--unsafe", "--assignment", A])
    return cd


def _sqlite(cd, cell: str, points: float) -> None:
    """A grader's terminal: `sqlite3 gradebook.db "UPDATE grade SET manual_score = ..."`."""
    with sqlite3.connect(cd / "gradebook.db") as db:
        db.execute(
            "UPDATE grade SET manual_score = ? WHERE cell_id IN (SELECT id FROM base_cell WHERE name = ?)",
            (points, cell),
        )


def _score(cd, run_course) -> str:
    run_course(["export", "--course-dir", cd, "--file", cd / "g.csv"])
    with open(cd / "g.csv", newline="") as f:
        return next(r for r in csv.DictReader(f) if r["student_id"] == "amy" and r["assignment"] == A)["score"]


def _hand_lines(cd) -> list[tuple[str, str, str, float | None]]:
    entries, problems = journal.read_journals(CourseDir.places_at(cd))
    assert problems == []
    return [(e.author, e.data["kind"], e.data["cell"], e.data["manual"]) for e in entries if "manual" in e.data]


def test_a_score_written_with_sqlite_is_refused_at_export(graded, run_course):
    """`course grade`'s scores export; a hand grade written straight into gradebook.db stops `course export`
    (CSV and Canvas) with one line naming assignment, student, cell, the score found and the journal's, and
    how to settle it, and writes no file; `course override` settles it under its author's name."""
    me = journal.account(os.geteuid())
    assert _score(graded, run_course) == "2.0"
    autograde = [
        e for e in journal.read_journals(CourseDir.places_at(graded))[0] if e.data["kind"] == journal.AUTOGRADE
    ]
    assert {e.author for e in autograde} == {me} and {e.data["cell"] for e in autograde} >= {"add__values", "why"}

    _sqlite(graded, "why", 1.0)
    (graded / "g.csv").unlink()
    _, err = run_course(["export", "--course-dir", graded, "--file", graded / "g.csv"], retcode=1)
    line = f"{A}, amy, cell why, points given by hand: the gradebook holds 1, the journal nothing"
    assert line in err and "nothing was exported" in err and "course override" in err, err
    assert not (graded / "g.csv").exists()
    _, err = run_course(["export", "--course-dir", graded, "--format", "canvas"], retcode=1)
    assert line in err, err

    out, _ = run_course(["override", A, "amy", "why", "0.5", "--course-dir", graded])
    assert f"{A}, amy, cell why: 0.5 points by hand ({me})" in out
    assert _score(graded, run_course) == "2.5"
    assert _hand_lines(graded) == [(me, journal.HAND_GRADE, "why", 0.5)]


def test_accept_takes_what_the_gradebook_holds_as_yours(graded, run_course):
    _sqlite(graded, "why", 1.0)
    out, _ = run_course(["override", "--accept", "--course-dir", graded])
    me = journal.account(os.geteuid())
    assert f"accepted: {A}, amy, cell why: points given by hand 1" in out and f"1 score(s) taken as yours ({me})" in out
    assert _score(graded, run_course) == "3.0"
    assert _hand_lines(graded) == [(me, journal.ACCEPTED, "why", 1.0)]


def test_a_hand_grade_saved_in_the_formgrader_is_journalled_as_the_servers_account(graded, tmp_path, run_course):
    """nbgrader's grade API in a server with the course's pages (the formgrader's Save): the gradebook and a
    line of the server's own account (the system's name for it), so the export passes."""
    from instructor.cli.formgrader import COURSE_PAGES

    with jupyter_lab(graded, tmp_path / "lab", extra=(COURSE_PAGES,)) as lab:
        auth = {"Authorization": f"token {lab.token}"}
        url = f"http://127.0.0.1:{lab.port}/formgrader/api"
        with urllib.request.urlopen(urllib.request.Request(f"{url}/submitted_notebooks/{A}/{A}", headers=auth)) as r:
            submission = json.load(r)[0]["id"]
        with urllib.request.urlopen(
            urllib.request.Request(f"{url}/grades?submission_id={submission}", headers=auth)
        ) as r:
            grade = next(g for g in json.load(r) if g["name"] == "why")
        body = json.dumps({"manual_score": 1.0, "extra_credit": None}).encode()
        request = urllib.request.Request(
            f"{url}/grade/{grade['id']}", data=body, method="PUT", headers={**auth, "Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request) as r:
            assert json.load(r)["manual_score"] == 1.0
    me = journal.account(os.geteuid())
    assert _hand_lines(graded) == [(me, journal.HAND_GRADE, "why", 1.0)]
    assert (CourseDir.places_at(graded).journals / f"{me}.jsonl").stat().st_uid == os.geteuid()
    assert _score(graded, run_course) == "3.0"
