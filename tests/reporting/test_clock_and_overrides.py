"""Exports know the clock (issue 35, finding 5), and every override shows, who, when, from what to what (issue 33)."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil

import nbformat
import pytest
from nbgrader.api import Gradebook

from instructor.coursedir import journal

ROSTER = "id,first_name,last_name,email\namy,Amy,Adams,amy@example.org\nbob,Bob,Brown,bob@example.org\n"


@pytest.fixture
def graded(course_repo, tmp_path, run_course):
    """amy's 01_toy graded; bob has submitted nothing; 01_toy is due in 2099."""
    cd = tmp_path / "cd"
    run_course(["init", cd, "--due", "01_toy=2099-01-01 12:00 UTC"])
    (tmp_path / "class.csv").write_text(ROSTER)
    run_course(["roster", "import", tmp_path / "class.csv", "--course-dir", cd])
    (tmp_path / "subs/amy/01_toy").mkdir(parents=True)
    shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", tmp_path / "subs/amy/01_toy")
    run_course(
        ["grade", tmp_path / "subs", "--course-dir", cd, "--root", course_repo, "--unsafe", "--assignment", "01_toy"]
    )
    return cd


def _csv(run_course, cd, student):
    run_course(["export", "--course-dir", cd, "--file", cd / "g.csv"])
    with open(cd / "g.csv", newline="") as f:
        return next(r for r in csv.DictReader(f) if (r["student_id"], r["assignment"]) == (student, "01_toy"))


def _canvas(run_course, cd):
    out, _ = run_course(["export", "--course-dir", cd, "--format", "canvas", "--file", cd / "c.csv"])
    with open(cd / "c.csv", newline="") as f:
        rows = list(csv.reader(f))
    column = rows[0].index("01_toy")
    return out, {r[2]: r[column] for r in rows[2:]}


def test_an_assignment_not_due_is_no_zero(graded, run_course):
    """Before the due date, is bob's missing submission `not due` (no points, the reason given) in the CSV and an
    empty, listed cell in the Canvas file; and after it, `not submitted` and 0?"""
    bob = _csv(run_course, graded, "bob")
    assert (bob["status"], bob["score"], bob["raw_score"], bob["01_toy:add__values"]) == ("not due", "", "", "")
    assert bob["reason"] == "due 2099-01-01 12:00 UTC"
    out, cells = _canvas(run_course, graded)
    assert cells["bob"] == "" and "0 zero(s)" in out and "bob 01_toy: not due: due 2099-01-01 12:00 UTC" in out

    run_course(["init", graded, "--due", "01_toy=2020-01-01 12:00 UTC"])
    bob = _csv(run_course, graded, "bob")
    assert (bob["status"], bob["score"]) == ("not submitted", "0.0")
    assert _canvas(run_course, graded)[1]["bob"] == "0"


def test_an_extension_keeps_a_student_not_due(graded, run_course):
    """Past the class's due date, is a student whose extension has not run out still `not due`?"""
    run_course(["init", graded, "--due", "01_toy=2020-01-01 12:00 UTC"])
    run_course(
        ["extend", "bob", "01_toy", "--until", "2099-06-01 12:00 UTC", "--because", "ill", "--course-dir", graded]
    )
    assert _csv(run_course, graded, "bob")["status"] == "not due"


def test_every_override_shows_in_the_export_and_the_report(graded, run_course):
    """A grader's override of a test cell (`course override`, as the formgrader's Save): does the CSV's overrides
    column and the report's page and overrides.csv say which cell, from what to what, who and when?"""
    run_course(["override", "01_toy", "amy", "add__values", "1.5", "--course-dir", graded])
    me = journal.account(os.geteuid())
    amy = _csv(run_course, graded, "amy")
    assert amy["overrides"].startswith(f"add__values: 2 -> 1.5 (override by {me}, at 20"), amy["overrides"]
    assert _csv(run_course, graded, "bob")["overrides"] == ""
    run_course(["report", "01_toy", "--course-dir", graded])
    with open(graded / "reports/01_toy/overrides.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["student"], r["cell"], r["from"], r["to"], r["what"], r["by"]) for r in rows] == [
        ("amy", "add__values", "2.0", "1.5", "override", me)
    ]
    assert rows[0]["at"] == amy["overrides"].split(" at ")[1].rstrip(")")  # recorded once, kept
    page = (graded / "reports/01_toy/index.html").read_text()
    assert "Grades changed by hand" in page


def _set_cell(path, grade_id, source):
    nb = nbformat.read(str(path), as_version=4)
    next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id).source = source
    nbformat.write(nb, str(path))


def test_a_hand_grade_belongs_to_the_answer_it_credited(graded, course_repo, tmp_path, run_course):
    """amy's add is wrong (0 of 2): a grader overrides its check to 1 and grades her written answer 1. Re-submitted
    with only a comment added, both stay; with add replaced by the stub (0 of 2 again: the autograded score does not
    change) and the written answer rewritten, are both taken back: the check at its autograded 0 and the answer
    waiting for a grader, said in the table, in the CSV's reason and overrides columns, and kept in the overrides?"""
    nb = tmp_path / "subs/amy/01_toy/01_toy.ipynb"
    grade = [
        "grade",
        tmp_path / "subs",
        "--course-dir",
        graded,
        "--root",
        course_repo,
        "--unsafe",
        "--assignment",
        "01_toy",
    ]
    _set_cell(nb, "add", "def add(a, b):\n    return a - b\n")
    run_course(grade)
    for cell in ("add__values", "why"):  # a grader's override and hand grade, as the formgrader saves them
        run_course(["override", "01_toy", "amy", cell, "1", "--course-dir", graded])
    nbk = nbformat.read(str(nb), as_version=4)
    nbk.cells.append(nbformat.v4.new_code_cell("# a comment the student added"))
    nbformat.write(nbk, str(nb))
    run_course(grade)
    with Gradebook(f"sqlite:///{graded / 'gradebook.db'}") as gb:
        assert gb.find_submission("01_toy", "amy").score == 2.0  # both hand grades kept

    stub = nbformat.read(str(course_repo / "notebooks/01_toy/01_toy.ipynb"), as_version=4)
    _set_cell(nb, "add", next(c.source for c in stub.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "add"))
    _set_cell(nb, "why", "I did not understand the question.")
    out, _ = run_course(grade)
    with Gradebook(f"sqlite:///{graded / 'gradebook.db'}") as gb:
        check = gb.find_grade("add__values", "01_toy", "01_toy", "amy")
        assert (check.auto_score, check.manual_score, check.needs_manual_grade) == (0.0, None, True)
        assert gb.find_submission("01_toy", "amy").score == 0.0
    line = next(ln for ln in out.splitlines() if ln.startswith("amy "))
    assert "answer changed since a grader overrode its check: add__values" in line, out
    amy = _csv(run_course, graded, "amy")
    assert "add__values (1 points given by hand taken back, 0 autograded)" in amy["reason"], amy["reason"]
    assert "why: 1 -> needs grading (hand grade reset by course grade, at 20" in amy["overrides"], amy["overrides"]
    assert "add__values: 1 -> needs grading (override reset by course grade, at 20" in amy["overrides"]
    changes = json.loads((graded / "overrides.json").read_text())
    assert (changes[0]["cell"], changes[0]["from"], changes[0]["to"], changes[0]["what"]) == (
        "add__values",
        0.0,
        1.0,
        "override",
    )
    assert sorted((e["cell"], e["from"], e["to"], e["what"]) for e in changes[1:]) == [
        ("add__values", 1.0, None, "override reset"),
        ("why", 1.0, None, "hand grade reset"),
    ]
    wrong = hashlib.sha256(b"def add(a, b):\n    return a - b\n").hexdigest()
    assert changes[0]["answer"] == wrong == next(e["answer"] for e in changes if e["what"] == "override reset")
