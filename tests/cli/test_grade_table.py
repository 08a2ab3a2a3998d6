"""The grade table and the sources a submission is graded from (issue 35, findings 6 and 8)."""

from __future__ import annotations

import csv
import shutil

import nbformat

from tests.factories import toy_submissions

STAMP = "2026-01-01 10:00:00.000000 UTC"


def _lines(out: str, *students: str) -> list[str]:
    return [line for line in out.splitlines() if line.split()[:1] and line.split()[0] in students]


def test_the_table_is_sorted_and_says_the_isolation_once(course_repo, tmp_path, run_course):
    """Is the isolation line printed once, and the table sorted by assignment then student?"""
    subs = toy_submissions(tmp_path / "subs", course_repo)
    for name in ("abe",):
        shutil.copytree(subs / "ref", subs / name)
    out, _ = run_course(["grade", subs, "--course-dir", tmp_path / "cd", "--root", course_repo, "--unsafe"])
    assert sum(line.startswith("isolation:") for line in out.splitlines()) == 1, out
    rows = [tuple(line.split()[:2][::-1]) for line in _lines(out, "abe", "blank", "ref")]
    assert rows == sorted(rows) and len(rows) == 6, out


def test_a_folder_named_with_markup_is_in_the_report_as_text(course_repo, tmp_path, run_course):
    """Is a submission folder named `<b>eve` refused under its assignment, and listed in that assignment's
    report (page and scores.csv) as text, not left out?"""
    subs = tmp_path / "subs"
    for name in ("amy", "<b>eve"):
        (subs / name / "01_toy").mkdir(parents=True)
        shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", subs / name / "01_toy")
    cd = tmp_path / "cd"
    run_course(["grade", subs, "--course-dir", cd, "--root", course_repo, "--unsafe"])
    run_course(["report", "01_toy", "--course-dir", cd])
    with open(cd / "reports/01_toy/scores.csv", newline="") as f:
        scores = {r["student_id"]: r["status"] for r in csv.DictReader(f)}
    assert scores == {"amy": "waiting for a grader", "<b>eve": "not graded"}, scores
    page = (cd / "reports/01_toy/index.html").read_text()
    assert "not a valid student id" in page and "<b>eve" not in page


def _edit_comment(path):
    nb = nbformat.read(str(path), as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "add__values")
    cell.source += "\n# checked by hand"
    nbformat.write(nb, str(path))


def test_a_cleared_flag_stays_cleared_from_another_source(course_repo, tmp_path, run_course):
    """Cleared for the bytes graded from the exchange, does the flag stay cleared when the same bytes are
    graded from `submitted/` after a collect (another folder name and path)?"""
    cd = tmp_path / "cd"
    # the course's own exchange (<dir>/exchange): a collected copy is traced back to it
    inbound = cd / "exchange/seqmodels/inbound/eve+01_toy+2026-01-01 10:00:00.000000 UTC+abc"
    inbound.mkdir(parents=True)
    shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", inbound)
    _edit_comment(inbound / "01_toy.ipynb")
    (inbound / "timestamp.txt").write_text(STAMP)
    out, _ = run_course(["grade", cd / "exchange", "--course-dir", cd, "--root", course_repo])
    assert "flagged for review" in _lines(out, "eve")[0]
    run_course(["unflag", "eve", "01_toy", "--because", "only a comment", "--course-dir", cd])
    shutil.copytree(inbound, cd / "submitted/eve/01_toy")  # what `nbgrader collect` does
    out, _ = run_course(["grade", "--course-dir", cd, "--root", course_repo])
    line = _lines(out, "eve")[0]
    assert "flags cleared by" in line and "flagged" not in line, out
