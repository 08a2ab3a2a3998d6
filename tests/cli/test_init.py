"""`course init`: the repository it records (issue 43, finding 3) and the late rule in the docs' words (finding 7)."""

from __future__ import annotations

import re

from instructor.coursedir.directory import current_settings
from instructor.paths import REPO_ROOT


def test_the_recorded_repository_is_used_and_a_wrong_one_refused(course_repo, tmp_path, run_course):
    """`course init --root REPO` records the checkout; does `release-to-exchange` then release from it with no
    --root, and is a folder without solutions/ refused in one sentence (at init and as --root)?"""
    cd = tmp_path / "cd"
    out, _ = run_course(["init", cd, "--root", course_repo, "--exchange", tmp_path / "exchange"])
    assert f"repository:    {course_repo}" in out
    assert current_settings(cd).root == course_repo.resolve()
    run_course(["init", cd, "--late-penalty", "5"])  # options not given keep their value
    assert current_settings(cd).root == course_repo.resolve()
    out, _ = run_course(["release-to-exchange", "01_toy", "--course-dir", cd])
    assert "released 01_toy" in out
    _, err = run_course(["init", cd, "--root", tmp_path], retcode=1)
    assert f"{tmp_path} holds no solutions/ folder" in err and "Traceback" not in err
    _, err = run_course(["grade", tmp_path, "--course-dir", cd, "--root", tmp_path / "nowhere", "--unsafe"], retcode=1)
    assert "holds no solutions/ folder (--root)" in err and "Traceback" not in err


def test_init_says_the_late_rule_as_the_docs_do():
    """Do `course init`'s words for the late rule say what docs/instructors.md and the rule itself say: a percent
    of the autograded points per day or part of a day, at most all of them (it said "10% of the score")?"""
    from instructor.cli.init import late_rule
    from instructor.coursedir.late import penalty

    said = late_rule(10)
    assert said == "10% of the autograded points per day (or part of a day) late, at most all of them"
    docs = re.sub(r"\s+", " ", (REPO_ROOT / "docs/instructors.md").read_text())
    assert "takes 10 % of a notebook's autograded points per day (or part of a day)" in docs
    assert "at most all of them" in docs
    assert penalty(4.0, 1.5 * 86400, 10) == 0.8 and penalty(4.0, 20 * 86400, 10) == 4.0  # two days started; capped


def test_a_due_date_added_after_the_release_reaches_the_gradebook_at_once(course_repo, tmp_path, run_course):
    """Released with no due date, then `course init --due` (the docs' way to add one): does the gradebook, which
    the formgrader shows ("None" until the first `course grade` copied it), hold the date at once?"""
    from nbgrader.api import Gradebook

    cd = tmp_path / "cd"
    run_course(["init", cd, "--exchange", tmp_path / "exchange", "--root", course_repo])
    run_course(["release-to-exchange", "01_toy", "--course-dir", cd])
    with Gradebook(f"sqlite:///{cd / 'gradebook.db'}") as gb:
        assert gb.find_assignment("01_toy").duedate is None
    out, _ = run_course(["init", cd, "--due", "01_toy=2030-01-01 10:00 UTC", "--due", "02_toy=2030-02-01 10:00 UTC"])
    assert "due dates copied into the gradebook: 01_toy" in out
    with Gradebook(f"sqlite:///{cd / 'gradebook.db'}") as gb:
        assert str(gb.find_assignment("01_toy").duedate) == "2030-01-01 10:00:00"
        assert [a.name for a in gb.assignments] == ["01_toy"]  # 02_toy, not released, is not recorded by it
