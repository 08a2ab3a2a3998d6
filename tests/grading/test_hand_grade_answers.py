"""A hand grade belongs to the written answer it graded (issue 35, finding 1)."""

from __future__ import annotations

import csv
import json
import shutil

import nbformat
from nbgrader.api import Gradebook


def _set_cell(path, grade_id, source):
    nb = nbformat.read(str(path), as_version=4)
    next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id).source = source
    nbformat.write(nb, str(path))


def _hand_grade(cd, points):
    with Gradebook(f"sqlite:///{cd / 'gradebook.db'}") as gb:
        grade = gb.find_grade("why", "01_toy", "01_toy", "amy")
        grade.manual_score, grade.needs_manual_grade = points, False
        gb.db.commit()


def _why(cd):
    with Gradebook(f"sqlite:///{cd / 'gradebook.db'}") as gb:
        grade = gb.find_grade("why", "01_toy", "01_toy", "amy")
        return grade.manual_score, grade.needs_manual_grade


def _graded_by_hand(course_repo, tmp_path, run_course):
    """amy's 01_toy with a written answer, graded, then given 1 point by hand: (notebook, course dir, grade args)."""
    nb = tmp_path / "subs/amy/01_toy/01_toy.ipynb"
    nb.parent.mkdir(parents=True)
    shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", nb)
    _set_cell(nb, "why", "Addition of numbers is commutative: a + b = b + a.")
    cd = tmp_path / "cd"
    grade = ["grade", tmp_path / "subs", "--course-dir", cd, "--root", course_repo, "--unsafe"]
    run_course(grade)
    _hand_grade(cd, 1.0)
    return nb, cd, grade


def _noted(cd):
    """(cell, from, what) of each entry of overrides.json."""
    return [(e["cell"], e["from"], e["what"]) for e in json.loads((cd / "overrides.json").read_text())]


def test_a_changed_answer_waits_for_a_grader_and_an_unchanged_one_keeps_its_grade(course_repo, tmp_path, run_course):
    """Re-submitted with the written answer unchanged (code edited), is the hand grade kept; with the answer
    rewritten, is it sent back to "needs grading", said so in the table and the CSV, and kept in the overrides file?"""
    nb, cd, grade = _graded_by_hand(course_repo, tmp_path, run_course)

    nbk = nbformat.read(str(nb), as_version=4)
    nbk.cells.append(nbformat.v4.new_code_cell("# a comment the student added"))
    nbformat.write(nbk, str(nb))
    out, _ = run_course(grade)
    assert _why(cd) == (1.0, False), out
    assert next(ln for ln in out.splitlines() if ln.startswith("amy ")).endswith("complete"), out

    _set_cell(nb, "why", "I did not understand the question.")
    out, _ = run_course(grade)
    assert _why(cd) == (None, True)  # the formgrader lists it under "needs manual grade"
    line = next(ln for ln in out.splitlines() if ln.startswith("amy "))
    assert "waiting for a grader" in line and "written answer changed since it was graded by hand: why" in line, out
    assert "autograde score changed" not in out
    run_course(["export", "--course-dir", cd, "--file", tmp_path / "g.csv"])
    with open(tmp_path / "g.csv", newline="") as f:
        row = next(csv.DictReader(f))
    assert (row["status"], row["hand_points"], row["pending_points"]) == ("waiting for a grader", "0.0", "1.0")
    assert "written answer changed since it was graded by hand: why (1 points taken back)" in row["reason"]
    changes = json.loads((cd / "overrides.json").read_text())
    assert [(e["cell"], e["from"], e["to"], e["by"], e["what"]) for e in changes] == [
        ("why", 1.0, None, "course grade", "hand grade reset")
    ]


def test_a_kill_right_after_the_take_back_keeps_its_record(course_repo, tmp_path, run_course, monkeypatch):
    """Killed after the gradebook took a hand grade back but before the notebook was written: is the take-back
    in overrides.json already, is the submission graded again by the next run, and is it noted once?"""
    nb, cd, grade = _graded_by_hand(course_repo, tmp_path, run_course)
    _set_cell(nb, "why", "I did not understand the question.")

    def killed(*_args, **_kwargs):
        raise KeyboardInterrupt  # what a kill looks like to the code after it: nothing more runs

    with monkeypatch.context() as m:
        m.setattr("instructor.grading.record.grader_brief", killed)
        run_course(grade, retcode=130)  # the command's exit status after an interrupt
    assert _why(cd) == (None, True)
    assert _noted(cd) == [("why", 1.0, "hand grade reset")]
    assert not (cd / "results/amy/01_toy.json").exists()  # the next run grades it again

    out, _ = run_course(grade)
    assert next(ln for ln in out.splitlines() if ln.startswith("amy ")).endswith("waiting for a grader"), out
    assert _noted(cd) == [("why", 1.0, "hand grade reset")]
