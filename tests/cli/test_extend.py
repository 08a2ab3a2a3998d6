"""`course extend` on a graded toy course: the student's own due date in the gradebook, the table, the CSV, the
feedback."""

from __future__ import annotations

import csv
import json
import shutil

import nbformat
from nbgrader.api import Gradebook

from instructor.coursedir.course_dir import CourseDir
from instructor.reporting.table import grades
from tests.factories import assert_one_sentence_error

DUE = "2026-01-01 12:00 UTC"
#: 1 day 22 hours after DUE: two days started, 10 % a day of 2 points
LATE = "2026-01-03 10:00:00.000000 UTC"
LATE_PENALTY = 0.4


def _submit(tmp_path, course_repo, *students):
    """The toy solution of 01_toy, handed in late by each of ``students`` (nbgrader's timestamp.txt)."""
    for student in students:
        folder = tmp_path / "subs" / student / "01_toy"
        folder.mkdir(parents=True)
        shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", folder)
        (folder / "timestamp.txt").write_text(LATE)
    return tmp_path / "subs"


def _course_dir(tmp_path, run_course):
    """A course directory with 10 % a day and 01_toy due on DUE (02_toy has no due date)."""
    cd = tmp_path / "cd"
    run_course(["init", cd, "--late-penalty", "10", "--due", f"01_toy={DUE}"])
    return cd


def _grade(run_course, subs, cd, course_repo, *more):
    # the toy notebooks are the course's own: no sandbox needed, which keeps the test quick
    run_course(["grade", subs, "--course-dir", cd, "--root", course_repo, "--unsafe", *more])


def _gradebook(cd, student):
    """(late penalty, extension, the student's due date) of ``student``'s 01_toy in the gradebook."""
    with Gradebook(f"sqlite:///{cd / 'gradebook.db'}") as gb:
        sub = gb.find_submission("01_toy", student)
        return sub.late_submission_penalty or 0.0, sub.extension, str(sub.duedate)


def _csv(run_course, cd, student):
    run_course(["export", "--course-dir", cd, "--file", cd / "grades.csv"])
    with open(cd / "grades.csv", newline="") as f:
        return next(r for r in csv.DictReader(f) if r["student_id"] == student and r["assignment"] == "01_toy")


def _table_penalty(cd, student):
    return next(g.penalty for g in grades(CourseDir.at(cd)) if (g.student, g.assignment) == (student, "01_toy"))


def _banner_penalty(cd, student):
    """The late penalty in the autograded notebook's summary (what the formgrader shows above it)."""
    nb = nbformat.read(str(cd / "autograded" / student / "01_toy" / "01_toy.ipynb"), as_version=4)
    return nb.metadata["course_grading"]["late_penalty"]


def _feedback_page(run_course, cd, student):
    run_course(["feedback", "--course-dir", cd])
    return (cd / "feedback" / student / "01_toy" / "01_toy.html").read_text()


def test_an_extension_takes_back_a_late_penalty_and_removing_it_brings_it_back(tmp_path, course_repo, run_course):
    """Graded two days late at 10 % a day, is amy penalised; after `course extend --days 3` is the penalty 0 in the
    gradebook, the table, the CSV (with her own due date), the formgrader's banner and the feedback; and after
    `--remove` is it back everywhere?"""
    cd = _course_dir(tmp_path, run_course)
    _grade(run_course, _submit(tmp_path, course_repo, "amy"), cd, course_repo)
    assert _gradebook(cd, "amy")[0] == LATE_PENALTY and _table_penalty(cd, "amy") == LATE_PENALTY
    assert "Late submission penalty" in _feedback_page(run_course, cd, "amy")

    out, _ = run_course(["extend", "amy", "01_toy", "--days", "3", "--because", "ill", "--course-dir", cd])
    assert f"amy/01_toy: due 2026-01-04 12:00 UTC (3 days after the class's); late penalty {LATE_PENALTY:g} -> 0" in out
    penalty, extension, due = _gradebook(cd, "amy")
    assert (penalty, extension.days, due) == (0.0, 3, "2026-01-04 12:00:00")
    assert _table_penalty(cd, "amy") == 0.0 and _banner_penalty(cd, "amy") == 0.0
    row = _csv(run_course, cd, "amy")
    assert (row["late_submission_penalty"], row["score"], row["duedate"]) == ("0.0", "2.0", "2026-01-04 12:00:00")
    assert "Late submission penalty" not in _feedback_page(run_course, cd, "amy")

    out, _ = run_course(["extend", "amy", "01_toy", "--remove", "--course-dir", cd])
    assert f"extension removed; due 2026-01-01 12:00 UTC (the class's); late penalty 0 -> {LATE_PENALTY:g}" in out
    assert _gradebook(cd, "amy") == (LATE_PENALTY, None, "2026-01-01 12:00:00")
    assert _table_penalty(cd, "amy") == LATE_PENALTY and _banner_penalty(cd, "amy") == LATE_PENALTY
    row = _csv(run_course, cd, "amy")
    assert (row["late_submission_penalty"], row["duedate"]) == (str(LATE_PENALTY), "2026-01-01 12:00:00")


def test_an_extension_granted_before_grading_is_used_by_course_grade(tmp_path, course_repo, run_course):
    """Is bob's --until, granted before anything was graded, his due date when `course grade` records him (amy,
    without one, penalised); and once the entry is gone from extensions.json, does a regrade drop it too?"""
    cd = _course_dir(tmp_path, run_course)
    out, _ = run_course(["extend", "bob", "01_toy", "--until", "2026-01-03 12:00 UTC", "--course-dir", cd])
    assert "bob/01_toy: due 2026-01-03 12:00 UTC (2 days after the class's); not graded yet" in out
    subs = _submit(tmp_path, course_repo, "amy", "bob")
    _grade(run_course, subs, cd, course_repo)
    assert _gradebook(cd, "bob")[::2] == (0.0, "2026-01-03 12:00:00")
    assert _gradebook(cd, "amy")[0] == LATE_PENALTY
    assert _csv(run_course, cd, "bob")["duedate"] == "2026-01-03 12:00:00"

    (cd / "extensions.json").write_text("{}")  # taken back by hand: only the next grade can notice
    _grade(run_course, subs, cd, course_repo, "--student", "bob", "--force")
    assert _gradebook(cd, "bob") == (LATE_PENALTY, None, "2026-01-01 12:00:00")


def test_list_shows_every_extension(tmp_path, run_course):
    """Does --list give each student's due date, how much later than the class's, who granted it, when and why?"""
    cd = _course_dir(tmp_path, run_course)
    run_course(["extend", "amy", "01_toy", "--days", "1.5", "--because", "family emergency", "--course-dir", cd])
    run_course(["extend", "bob", "01_toy", "--until", "2026-01-02 12:00 UTC", "--course-dir", cd])
    out, _ = run_course(["extend", "--list", "--course-dir", cd])
    amy = next(line for line in out.splitlines() if line.startswith("amy "))
    bob = next(line for line in out.splitlines() if line.startswith("bob "))
    assert "2026-01-03 00:00 UTC" in amy and "1 day 12 hours" in amy and amy.endswith("family emergency")
    assert "2026-01-02 12:00 UTC" in bob and "1 day " in bob
    granted_on = json.loads((cd / "extensions.json").read_text())["01_toy"]["amy"]["granted_on"]
    assert granted_on in amy
    out, _ = run_course(["extend", "--list", "bob", "--course-dir", cd])
    assert "bob " in out and "amy " not in out


def test_bad_input_is_one_sentence(tmp_path, run_course):
    """Are an --until before the due date, an assignment without one, a bad id, a missing option and removing what was
    never granted each refused in one sentence, exit 1?"""
    cd = _course_dir(tmp_path, run_course)
    for args, words in [
        (["amy", "01_toy", "--until", "2025-12-31 12:00 UTC"], "is not after the class's due date"),
        (["amy", "02_toy", "--days", "2"], "course init --due 02_toy=DATE"),
        (["amy!", "01_toy", "--days", "2"], "is not a valid student id"),
        (["amy", "01_toy"], "--until DATE or --days N"),
        (["amy", "01_toy", "--days", "0"], "--days must be more than 0"),
        (["amy", "01_toy", "--remove"], "amy has no extension of 01_toy"),
        (["--days", "2"], "name the student and the assignment"),
    ]:
        _, err = run_course(["extend", *args, "--course-dir", cd], retcode=1)
        assert_one_sentence_error(err)
        assert words in err, (args, err)
    assert not (cd / "extensions.json").exists()


def test_a_student_off_the_roster_is_granted_with_a_warning(tmp_path, run_course):
    """Is an extension for someone not on the roster kept (the roster may come later), with a warning on stderr?"""
    cd = _course_dir(tmp_path, run_course)
    (cd / "roster.csv").write_text("id,first_name,last_name,email\namy,Amy,,\n")  # as `course roster import` writes it
    _, err = run_course(["extend", "amy", "01_toy", "--days", "1", "--course-dir", cd])
    assert err == ""
    _, err = run_course(["extend", "zed", "01_toy", "--days", "1", "--course-dir", cd])
    assert "warning: zed is not on the roster" in err
    assert set(json.loads((cd / "extensions.json").read_text())["01_toy"]) == {"amy", "zed"}
