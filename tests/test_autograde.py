"""nbgrader autogrades the reference solution to full marks and the untouched notebook to 0."""

from __future__ import annotations

import shutil

import pytest

from course import grading
from course.paths import NOTEBOOKS, REPO_ROOT, SOLUTIONS, existing_assignments, notebook_path

ASSIGNMENTS = existing_assignments(SOLUTIONS)


@pytest.fixture(scope="module")
def graded_workspace(tmp_path_factory):
    """Autograde the reference solution and the untouched student version of every assignment."""
    root = tmp_path_factory.mktemp("autograde")
    subs = root / "submissions"
    for name in ASSIGNMENTS:
        for student, folder in (("reference", SOLUTIONS), ("blank", NOTEBOOKS)):
            target = subs / student / name
            target.mkdir(parents=True)
            shutil.copy(notebook_path(name, folder), target / f"{name}.ipynb")
    workspace = root / "grading"
    found = grading.find_submissions(subs, ASSIGNMENTS)
    grading.prepare_workspace(workspace, REPO_ROOT, ASSIGNMENTS)
    outcomes = grading.autograde(workspace, found, log=lambda *_: None)
    assert [o for o in outcomes if o.status != "graded"] == []
    return {(g.student, g.assignment): g for g in grading.grades(workspace)}


@pytest.mark.notebook
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_autograde_reference_full_marks_blank_zero(graded_workspace, assignment):
    """Does nbgrader give the solution full marks and the untouched notebook 0?"""
    reference = graded_workspace[("reference", assignment)]
    blank = graded_workspace[("blank", assignment)]
    assert reference.auto_max > 0
    assert reference.auto_score == reference.auto_max
    assert blank.auto_score == 0


@pytest.mark.notebook
def test_demo_runs_the_main_job_outside_the_repo(run_course, tmp_path):
    """Does `course demo` pass on the first assignment and leave the repository untouched?"""
    import subprocess

    before = subprocess.run(["git", "status", "--porcelain"], cwd=REPO_ROOT, capture_output=True, text=True).stdout
    out, _ = run_course(["demo", "01_rnn", "--workspace", tmp_path / "demo"])
    assert "demo passed" in out
    rows = {tuple(line.split()[:2]): line.split()[2:5] for line in out.splitlines() if line.startswith(("reference", "blank"))}
    score, _, top = rows[("reference", "01_rnn")]
    assert score == top and float(top) > 0, out
    assert rows[("blank", "01_rnn")][0] == "0", out
    after = subprocess.run(["git", "status", "--porcelain"], cwd=REPO_ROOT, capture_output=True, text=True).stdout
    assert before == after
