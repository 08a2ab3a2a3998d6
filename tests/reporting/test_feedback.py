"""Feedback pages and the CSV: what waits for a grader, what students never see."""

from __future__ import annotations

import csv
from pathlib import Path

from tests.factories import toy_submissions


def _csv_rows(path: Path) -> dict:
    with open(path, newline="") as f:
        return {(r["student_id"], r["assignment"]): r for r in csv.DictReader(f)}


def test_ungraded_answers_are_pending_until_a_grader_scores_them(course_repo, tmp_path, run_course):
    """Do feedback and CSV say a written answer waits for a grader (not 0), name each row by its task,
    keep the mark scheme from students but show it to graders, and count the answer once it is graded?"""
    from nbgrader.api import Gradebook

    subs = toy_submissions(tmp_path / "subs", course_repo)
    ws = tmp_path / "ws"
    run_course(["grade", subs, "--course-dir", ws, "--root", course_repo])
    released = (course_repo / "notebooks/01_toy/01_toy.ipynb").read_text()
    assert "Why does add commute?" in released and "grader-only rubric" not in released
    # autograde restores the locked question cell in full: the formgrader shows the scheme
    assert "grader-only rubric" in (ws / "autograded/ref/01_toy/01_toy.ipynb").read_text()

    run_course(["export", "--course-dir", ws, "--to", tmp_path / "before.csv"])
    row = _csv_rows(tmp_path / "before.csv")[("ref", "01_toy")]
    assert (row["score"], row["max_score"], row["pending_points"], row["status"]) == ("2.0", "3.0", "1.0", "waiting for a grader")
    assert _csv_rows(tmp_path / "before.csv")[("ref", "02_toy")]["status"] == "complete"

    run_course(["feedback", "--course-dir", ws])
    html = (ws / "feedback/ref/01_toy/01_toy.html").read_text()
    assert "Test cell" not in html and "add: values" in html and "why (written answer)" in html
    assert "waiting for a grader: 1.0 points" in html and "2.0 / 2.0; 1.0 more points wait for a grader" in html
    assert "Score: 0.0 / 1.0" not in html
    assert "Why does add commute?" in html and "grader-only rubric" not in html and "MARK SCHEME" not in html

    with Gradebook(f"sqlite:///{ws / 'gradebook.db'}") as gb:
        grade = gb.find_grade("why", "01_toy", "01_toy", "ref")
        grade.manual_score = 1.0
        gb.db.commit()
    run_course(["export", "--course-dir", ws, "--to", tmp_path / "after.csv"])
    row = _csv_rows(tmp_path / "after.csv")[("ref", "01_toy")]
    assert (row["score"], row["pending_points"], row["status"]) == ("3.0", "0.0", "complete")
    run_course(["feedback", "--course-dir", ws])
    html = (ws / "feedback/ref/01_toy/01_toy.html").read_text()
    assert "(Score: 3.0 / 3.0)" in html and "waiting for a grader" not in html


def test_nbgraders_own_feedback_command_uses_the_course_preprocessors():
    """Does the grader configuration hand nbgrader's generate_feedback the same preprocessors and template?"""
    from traitlets.config import Config

    from instructor.reporting.feedback.preprocessors.clear_rubrics import ClearRubrics
    from instructor.reporting.feedback.preprocessors.mark_pending import MarkPendingGrades
    from instructor.reporting.feedback.preprocessors.name_cells import NameGradedCells
    from instructor.settings import configure

    c = configure(Config(), Path("/nowhere"))
    names = [p.__name__ for p in c.GenerateFeedback.preprocessors]
    assert {"ClearHiddenTestsOfTests", ClearRubrics.__name__, MarkPendingGrades.__name__, NameGradedCells.__name__} <= set(names)
    assert names.index("GetGrades") < names.index("MarkPendingGrades")
    assert Path(c.HTMLExporter.extra_template_basedirs[0], "feedback", "index.html.j2").is_file()


def test_feedback_pages_show_course_text_once_and_run_no_script(course_repo, tmp_path, run_course):
    """Does a feedback page render the course's markdown and math exactly once (MathML, no MathJax, no
    CDN, no double escapes), show a student's markup as inert text, and forbid every script by policy?"""
    import shutil

    import nbformat

    sub = tmp_path / "subs" / "eve" / "01_toy"
    sub.mkdir(parents=True)
    shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", sub)
    nb = nbformat.read(str(sub / "01_toy.ipynb"), as_version=4)
    why = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "why")
    why.source = "Since $a<b$ & `<S>` tokens.\n<img src=x onerror=alert(1)><script>alert(2)</script>"
    nbformat.write(nb, str(sub / "01_toy.ipynb"))
    run_course(["grade", tmp_path / "subs", "--course-dir", tmp_path / "cd", "--root", course_repo])
    run_course(["feedback", "--course-dir", tmp_path / "cd"])
    html = (tmp_path / "cd/feedback/eve/01_toy/01_toy.html").read_text()
    assert "<script" not in html and "onerror" not in html and "alert(" not in html
    assert "cdnjs" not in html and "mathjax" not in html.lower()
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert html.count("<math") == 3  # two course formulas, one of the student's
    assert "&amp;lt;" not in html and "&amp;amp;" not in html  # nothing escaped twice
    assert "<code>&lt;S&gt;</code>" in html  # the student's code span, escaped once
