"""No zero that is not earned (issue 43, finding 5): an assignment with no due date, or that never reached the
exchange (not released, or its release failed), exports as `not due`, blank, in the CSV and the Canvas file."""

from __future__ import annotations

import csv
import shutil

ROSTER = "id,first_name,last_name,email\namy,Amy,Adams,amy@example.org\nbob,Bob,Brown,bob@example.org\n"


def _graded(course_repo, tmp_path, run_course, *init):
    """amy's 01_toy and 02_toy graded, bob has submitted nothing."""
    cd = tmp_path / "cd"
    run_course(["init", cd, *init])
    (tmp_path / "class.csv").write_text(ROSTER)
    run_course(["roster", "import", tmp_path / "class.csv", "--course-dir", cd])
    for a in ("01_toy", "02_toy"):
        (tmp_path / "subs/amy" / a).mkdir(parents=True)
        shutil.copy(course_repo / f"solutions/{a}/{a}.ipynb", tmp_path / "subs/amy" / a)
    run_course(["grade", tmp_path / "subs", "--course-dir", cd, "--root", course_repo, "--unsafe"])
    return cd


def _exports(run_course, cd):
    """bob's CSV rows by assignment, bob's Canvas cells by assignment, and what the Canvas export printed."""
    run_course(["export", "--course-dir", cd, "--file", cd / "g.csv"])
    with open(cd / "g.csv", newline="") as f:
        rows = {r["assignment"]: r for r in csv.DictReader(f) if r["student_id"] == "bob"}
    out, _ = run_course(["export", "--course-dir", cd, "--format", "canvas", "--file", cd / "c.csv"])
    with open(cd / "c.csv", newline="") as f:
        table = list(csv.reader(f))
    bob = next(r for r in table[2:] if r[2] == "bob")
    return rows, dict(zip(table[0], bob, strict=True)), out


def test_no_due_date_is_no_zero(course_repo, tmp_path, run_course):
    """No due date set: is bob's missing work `not due` with the reason and no points, and his Canvas cells
    empty (they were `not submitted`, 0, and "2 zero(s) for nothing submitted")?"""
    cd = _graded(course_repo, tmp_path, run_course)
    rows, cells, out = _exports(run_course, cd)
    for a in ("01_toy", "02_toy"):
        assert (rows[a]["status"], rows[a]["reason"], rows[a]["score"]) == ("not due", "no due date is set", "")
        tasks = [v for k, v in rows[a].items() if k.startswith(f"{a}:")]
        assert tasks and set(tasks) == {""}
        assert cells[a] == ""
    assert "0 zero(s) for nothing submitted" in out and "bob 01_toy: not due: no due date is set" in out


def test_an_assignment_never_released_to_the_exchange_is_no_zero(course_repo, tmp_path, run_course):
    """Both due in the past; 02_toy released to the course's exchange, 01_toy never (or its release failed):
    is bob's 01_toy `not due` (not released), blank, while his 02_toy is `not submitted`, 0?"""
    due = ["--due", "01_toy=2020-01-01 12:00 UTC", "--due", "02_toy=2020-01-01 12:00 UTC"]
    cd = _graded(course_repo, tmp_path, run_course, "--exchange", tmp_path / "exchange", *due)
    run_course(["release-to-exchange", "02_toy", "--course-dir", cd, "--root", course_repo])
    assert (tmp_path / "exchange/seqmodels/outbound/02_toy").is_dir()
    rows, cells, out = _exports(run_course, cd)
    assert (rows["01_toy"]["status"], rows["01_toy"]["reason"], rows["01_toy"]["score"]) == (
        "not due",
        "not released to the course's exchange",
        "",
    )
    assert (rows["02_toy"]["status"], rows["02_toy"]["score"]) == ("not submitted", "0.0")
    assert (cells["01_toy"], cells["02_toy"]) == ("", "0")
    assert "1 zero(s) for nothing submitted" in out
