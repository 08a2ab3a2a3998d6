"""The `course` command on a toy course: release, check, grade, export, feedback."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import nbformat
import pytest


def _one_sentence_error(err: str) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("course ")


def _edit(path: Path, change) -> None:
    nb = nbformat.read(str(path), as_version=4)
    change(nb)
    nbformat.write(nb, str(path))


def test_release_writes_student_versions(course_repo):
    """Does release write stubs, drop hidden tests and fill the given cell?"""
    first = (course_repo / "notebooks/01_toy/01_toy.ipynb").read_text()
    assert "raise NotImplementedError()" in first
    assert "very secret" not in first and "total_of_both_numbers" not in first
    second = nbformat.read(str(course_repo / "notebooks/02_toy/02_toy.ipynb"), as_version=4)
    given = second.cells[1].source
    assert "from 01_toy: add" in given and "total_of_both_numbers = a + b" in given
    assert "### BEGIN SOLUTION" not in given


def test_release_is_reproducible(course_repo, run_course):
    """Is a second release byte-identical to the first?"""
    before = {p: p.read_bytes() for p in (course_repo / "notebooks").rglob("*.ipynb")}
    run_course(["release", "--root", course_repo])
    assert before == {p: p.read_bytes() for p in (course_repo / "notebooks").rglob("*.ipynb")}


def test_check_passes_on_fresh_release(course_repo, run_course):
    """Does check accept a release it just made?"""
    out, _ = run_course(["check", "--root", course_repo])
    assert "clean" in out


def test_check_passes_on_this_repository(run_course):
    """Is the committed notebooks/ a clean, fresh release of solutions/?"""
    run_course(["check"])


def test_check_reports_drift(course_repo, run_course):
    """Is a solution edited after the release reported as drift?"""
    path = course_repo / "solutions/02_toy/02_toy.ipynb"
    _edit(path, lambda nb: nb.cells.append(nbformat.v4.new_markdown_cell("A new paragraph.")))
    out, _ = run_course(["check", "--root", course_repo], retcode=1)
    assert "notebooks/02_toy/02_toy.ipynb differs from a fresh release" in out


def test_check_reports_stale_given_cell(course_repo, run_course):
    """Is a given cell out of date with the solution it quotes reported?"""
    path = course_repo / "solutions/01_toy/01_toy.ipynb"
    _edit(path, lambda nb: setattr(nb.cells[2], "source", nb.cells[2].source.replace("a + b", "b + a")))
    out, _ = run_course(["check", "--root", course_repo], retcode=1)
    assert "given cell 'given_code' is out of date" in out


def test_check_reports_missing_and_extra_files(course_repo, run_course):
    """Are a missing student notebook and a stray file both reported?"""
    (course_repo / "notebooks/01_toy/01_toy.ipynb").unlink()
    (course_repo / "notebooks/02_toy/stray.txt").write_text("x")
    out, _ = run_course(["check", "--root", course_repo], retcode=1)
    assert "notebooks/01_toy/01_toy.ipynb is missing" in out
    assert "notebooks/02_toy/stray.txt is not made by a release" in out


@pytest.mark.parametrize("folder", ["solutions", "notebooks"])
def test_check_reports_outputs_and_counts(course_repo, run_course, folder):
    """Are outputs and execution counts in a committed notebook reported?"""
    def run_it(nb):
        cell = nb.cells[1]
        cell.execution_count = 3
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="hi\n")]

    _edit(course_repo / folder / "01_toy/01_toy.ipynb", run_it)
    out, _ = run_course(["check", "--root", course_repo], retcode=1)
    assert f"{folder}/01_toy/01_toy.ipynb: cell 1 carries outputs" in out
    assert f"{folder}/01_toy/01_toy.ipynb: cell 1 carries an execution count" in out


def test_check_reports_a_marker_glued_to_code(course_repo, run_course):
    """Is a hidden-test marker that shares its line with an assert reported (nbgrader would hide the assert)?"""
    def glue(nb):
        cell = next(c for c in nb.cells if "### BEGIN HIDDEN TESTS" in c.source)
        cell.source = cell.source.replace("\n### BEGIN HIDDEN TESTS", "  ### BEGIN HIDDEN TESTS", 1)

    _edit(course_repo / "solutions/01_toy/01_toy.ipynb", glue)
    out, _ = run_course(["check", "--root", course_repo], retcode=1)
    assert "has a marker that does not stand on a line of its own" in out


@pytest.mark.parametrize("line", [
    "total_of_both_numbers = a + b",
    "assert add(-40, 2) == -38  # a hidden, very secret check",
    "Model answer: addition of numbers is commutative. Rubric: a grader-only rubric line.",
])
def test_check_reports_leaked_solution_and_hidden_test(course_repo, run_course, line):
    """Is a solution, hidden-test or mark-scheme line in a student notebook reported as a leak?"""
    _edit(course_repo / "notebooks/01_toy/01_toy.ipynb", lambda nb: nb.cells.append(nbformat.v4.new_code_cell(line)))
    out, _ = run_course(["check", "--root", course_repo], retcode=1)
    assert "shows a solution or hidden-test line" in out


def test_check_leak_ignores_given_cells(course_repo):
    """Are earlier answers inside a given cell not called leaks?"""
    from course.checks import check_leaks

    assert check_leaks(course_repo) == []


def _submissions(root: Path, repo: Path) -> Path:
    for student, folder in (("ref", "solutions"), ("blank", "notebooks")):
        for name in ("01_toy", "02_toy"):
            target = root / student / name
            target.mkdir(parents=True)
            shutil.copy(repo / folder / name / f"{name}.ipynb", target)
    return root


def test_grade_export_feedback(course_repo, tmp_path, run_course):
    """Does grading give the solution full marks, the blank 0, a CSV and clean feedback?"""
    subs = _submissions(tmp_path / "subs", course_repo)
    ws = tmp_path / "ws"
    out, err = run_course(["grade", subs, "--workspace", ws, "--root", course_repo])
    table = {tuple(line.split()[:2]): line.split()[2:5] for line in out.splitlines()[2:] if line.startswith(("ref", "blank"))}
    assert table[("ref", "01_toy")][:3] == ["2", "/", "2"]
    assert table[("blank", "01_toy")][:3] == ["0", "/", "2"]
    assert table[("ref", "02_toy")][:3] == ["1", "/", "1"]
    assert "Warning" not in err and "WARNING" not in err

    run_course(["export", "--workspace", ws, "--to", tmp_path / "grades.csv"])
    with open(tmp_path / "grades.csv", newline="") as f:
        rows = {(r["student_id"], r["assignment"]): float(r["score"]) for r in csv.DictReader(f)}
    assert rows == {("ref", "01_toy"): 2.0, ("blank", "01_toy"): 0.0, ("ref", "02_toy"): 1.0, ("blank", "02_toy"): 0.0}

    out, _ = run_course(["feedback", "--workspace", ws])
    html = (ws / "feedback/blank/01_toy/01_toy.html").read_text()
    assert "ran hidden tests; its output is not shown" in html
    assert "very secret" not in html and "-40" not in html  # not even in a traceback


def test_grade_reads_an_exchange(course_repo, tmp_path, run_course):
    """Is the latest submission per student taken from an nbgrader exchange inbound folder?"""
    inbound = tmp_path / "exchange/seqmodels/inbound"
    for stamp, folder in (("2026-01-01 10:00:00.000000 UTC", "notebooks"), ("2026-01-02 10:00:00.000000 UTC", "solutions")):
        target = inbound / f"amy+01_toy+{stamp}+abc"
        target.mkdir(parents=True)
        shutil.copy(course_repo / folder / "01_toy/01_toy.ipynb", target)
    out, _ = run_course(["grade", tmp_path / "exchange", "--workspace", tmp_path / "ws", "--root", course_repo])
    assert any(line.split()[:5] == ["amy", "01_toy", "2", "/", "2"] for line in out.splitlines())


@pytest.mark.parametrize(
    "layout, message",
    [
        ({"amy/99_nope/x.ipynb": "{}"}, "is not a known assignment"),
        ({"amy/01_toy/01_toy.ipynb": "{not json"}, "is not a valid notebook"),
        ({"amy/01_toy/01_toy.ipynb": json.dumps({"cells": 3})}, "is not a valid notebook"),
        ({"amy/notes.txt": "hello"}, "holds no assignment folder"),
        ({"amy/01_toy/readme.txt": "no notebook"}, "holds no notebook"),
        ({"bad name!/01_toy/01_toy.ipynb": "{}"}, "is not a valid student id"),
    ],
)
def test_grade_reports_bad_submissions(course_repo, tmp_path, run_course, layout, message):
    """Does each malformed submission end as `not graded: <reason>`, the batch finishing with exit 0?"""
    for rel, text in layout.items():
        path = tmp_path / "subs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    out, _ = run_course(["grade", tmp_path / "subs", "--workspace", tmp_path / "ws", "--root", course_repo])
    assert "not graded: " in out and message in out
    assert list((tmp_path / "ws" / "logs").rglob("*.log"))


def test_grade_reports_student_off_roster(course_repo, tmp_path, run_course):
    """Is a student who is not on the roster reported as not graded, and the others graded?"""
    subs = _submissions(tmp_path / "subs", course_repo)
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name\nref,Ref\n")
    out, _ = run_course(["grade", subs, "--roster", roster, "--workspace", tmp_path / "ws", "--root", course_repo])
    assert "not graded: blank is not on the roster" in out
    assert any(line.split()[:5] == ["ref", "01_toy", "2", "/", "2"] for line in out.splitlines())


@pytest.mark.parametrize(
    "args, message",
    [
        (["release", "99_nope"], "There is no assignment '99_nope'"),
        (["grade", "/nonexistent/subs"], "There is no submissions folder"),
        (["export", "--workspace", "/nonexistent/ws"], "has no gradebook"),
        (["feedback", "--workspace", "/nonexistent/ws"], "has nothing autograded yet"),
        (["check", "--root", "/"], "is not a course repository"),
    ],
)
def test_errors_are_one_sentence(run_course, args, message):
    """Does each user error end in one sentence and exit status 1, never a traceback?"""
    _, err = run_course(args, retcode=1)
    _one_sentence_error(err)
    assert message in err


def test_release_refuses_a_broken_notebook(course_repo, run_course):
    """Is a solution notebook that is not valid JSON refused in one sentence?"""
    (course_repo / "solutions/02_toy/02_toy.ipynb").write_text("{oops")
    _, err = run_course(["release", "--root", course_repo], retcode=1)
    _one_sentence_error(err)
    assert "02_toy" in err


def test_grader_config_points_nbgrader_at_this_repository():
    """Does grader/nbgrader_config.py give nbgrader this repo's solutions/ and notebooks/?"""
    from traitlets.config.loader import PyFileConfigLoader

    from course.paths import GRADER, REPO_ROOT

    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(GRADER)).load_config()
    assert cfg.CourseDirectory.root == str(REPO_ROOT)
    assert cfg.CourseDirectory.source_directory == "solutions"
    assert cfg.CourseDirectory.release_directory == "notebooks"
    assert cfg.KernelManager.transport == "ipc"


def _csv_rows(path: Path) -> dict:
    with open(path, newline="") as f:
        return {(r["student_id"], r["assignment"]): r for r in csv.DictReader(f)}


def test_ungraded_answers_are_pending_until_a_grader_scores_them(course_repo, tmp_path, run_course):
    """Do feedback and CSV say a written answer waits for a grader (not 0), name each row by its task,
    keep the mark scheme from students but show it to graders, and count the answer once it is graded?"""
    from nbgrader.api import Gradebook

    subs = _submissions(tmp_path / "subs", course_repo)
    ws = tmp_path / "ws"
    run_course(["grade", subs, "--workspace", ws, "--root", course_repo])
    released = (course_repo / "notebooks/01_toy/01_toy.ipynb").read_text()
    assert "Why does add commute?" in released and "grader-only rubric" not in released
    # autograde restores the locked question cell in full: the formgrader shows the scheme
    assert "grader-only rubric" in (ws / "autograded/ref/01_toy/01_toy.ipynb").read_text()

    run_course(["export", "--workspace", ws, "--to", tmp_path / "before.csv"])
    row = _csv_rows(tmp_path / "before.csv")[("ref", "01_toy")]
    assert (row["score"], row["max_score"], row["pending_points"], row["status"]) == ("2.0", "3.0", "1.0", "waiting for a grader")
    assert _csv_rows(tmp_path / "before.csv")[("ref", "02_toy")]["status"] == "complete"

    run_course(["feedback", "--workspace", ws])
    html = (ws / "feedback/ref/01_toy/01_toy.html").read_text()
    assert "Test cell" not in html and "add: values" in html and "why (written answer)" in html
    assert "waiting for a grader: 1.0 points" in html and "2.0 / 2.0; 1.0 more points wait for a grader" in html
    assert "Score: 0.0 / 1.0" not in html
    assert "Why does add commute?" in html and "grader-only rubric" not in html and "MARK SCHEME" not in html

    with Gradebook(f"sqlite:///{ws / 'gradebook.db'}") as gb:
        grade = gb.find_grade("why", "01_toy", "01_toy", "ref")
        grade.manual_score = 1.0
        gb.db.commit()
    run_course(["export", "--workspace", ws, "--to", tmp_path / "after.csv"])
    row = _csv_rows(tmp_path / "after.csv")[("ref", "01_toy")]
    assert (row["score"], row["pending_points"], row["status"]) == ("3.0", "0.0", "complete")
    run_course(["feedback", "--workspace", ws])
    html = (ws / "feedback/ref/01_toy/01_toy.html").read_text()
    assert "(Score: 3.0 / 3.0)" in html and "waiting for a grader" not in html


def test_nbgraders_own_feedback_command_uses_the_course_preprocessors():
    """Does the grader configuration hand nbgrader's generate_feedback the same preprocessors and template?"""
    from traitlets.config import Config

    from course.nbgrader_settings import configure
    from course.preprocessors import ClearRubrics, MarkPendingGrades, NameGradedCells

    c = configure(Config(), Path("/nowhere"))
    names = [p.__name__ for p in c.GenerateFeedback.preprocessors]
    assert {"ClearHiddenTests", ClearRubrics.__name__, MarkPendingGrades.__name__, NameGradedCells.__name__} <= set(names)
    assert names.index("GetGrades") < names.index("MarkPendingGrades")
    assert Path(c.HTMLExporter.extra_template_basedirs[0], "feedback", "index.html.j2").is_file()
