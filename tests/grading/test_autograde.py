"""nbgrader autogrades the reference solution to full marks and the untouched notebook to 0."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook

from instructor.authoring.mistakes import apply_mistake
from instructor.authoring.to_course_dir import into_course_dir
from instructor.cells import read
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.grading.intake import find_submissions
from instructor.grading.submission import Status
from instructor.paths import NOTEBOOKS, REPO_ROOT, SOLUTIONS, existing_assignments, notebook_path
from instructor.reporting.table import grades
from instructor.scheduling.loop import grade_class
from tests.nbexec import load_mistakes
from tests.system import require_sandbox

ASSIGNMENTS = existing_assignments(SOLUTIONS)


@pytest.fixture(scope="module")
def graded_course_dir(tmp_path_factory):
    """Autograde the reference solution and the untouched student version of every assignment."""
    root = tmp_path_factory.mktemp("autograde")
    subs = root / "submissions"
    for name in ASSIGNMENTS:
        for student, folder in (("reference", SOLUTIONS), ("blank", NOTEBOOKS)):
            target = subs / student / name
            target.mkdir(parents=True)
            shutil.copy(notebook_path(name, folder), target / f"{name}.ipynb")
    course_dir = root / "grading"
    directory.init(course_dir)
    found = find_submissions(subs, ASSIGNMENTS)
    into_course_dir(CourseDir.at(course_dir), REPO_ROOT, ASSIGNMENTS)
    run = grade_class(CourseDir.at(course_dir), found, log=lambda *_: None, progress=False)
    assert [r for r in run.results if r.status is not Status.GRADED] == []
    return {(g.student, g.assignment): g for g in grades(CourseDir.at(course_dir))}


@pytest.mark.notebook
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_autograde_reference_full_marks_blank_zero(graded_course_dir, assignment):
    """Does nbgrader give the solution full marks and the untouched notebook 0?"""
    reference = graded_course_dir[("reference", assignment)]
    blank = graded_course_dir[("blank", assignment)]
    assert reference.auto_max > 0
    assert reference.auto_score == reference.auto_max
    assert blank.auto_score == 0


@pytest.mark.notebook
def test_nbgraders_own_autograde_judges_checks_outside_too(tmp_path):
    """Does `nbgrader autograde` (the formgrader's button), run with the course's configuration, judge the
    checks outside the kernel as `course grade` does: a mistake loses the points of the cells that see it, and
    only those?"""
    require_sandbox()
    course_dir = tmp_path / "cd"
    env = {**os.environ, "COURSE_DIR": str(course_dir)}
    run = lambda *args, cwd=tmp_path: subprocess.run(  # noqa: E731
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=True
    )
    run("-m", "instructor", "init", "--exchange", str(tmp_path / "exchange"))
    (tmp_path / "class.csv").write_text("id,name,email\namy,Amy,amy@example.org\nbob,Bob,bob@example.org\n")
    run("-m", "instructor", "roster", "import", str(tmp_path / "class.csv"))
    run("-m", "instructor", "release-to-exchange", "01_rnn")
    reference = read(notebook_path("01_rnn", SOLUTIONS))
    mistake = next(m for m in load_mistakes("01_rnn") if m.name == "digits_exclude_nine")  # two cells see it
    for student, nb in (("amy", reference), ("bob", apply_mistake(reference, mistake))):
        folder = course_dir / "submitted" / student / "01_rnn"
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / "01_rnn.ipynb"))
    run("-m", "nbgrader", "autograde", "01_rnn", cwd=course_dir)
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        scores = {
            s: {
                g.name: g.auto_score
                for g in gb.find_submission("01_rnn", s).notebooks[0].grades
                if g.auto_score is not None
            }
            for s in ("amy", "bob")
        }
        full = {g.name: g.max_score for g in gb.find_notebook("01_rnn", "01_rnn").grade_cells if g.cell_type == "code"}
    assert scores["amy"] == full
    assert {k for k, v in scores["bob"].items() if v < full[k]} == {
        "generate_batch__shapes_and_types",
        "generate_batch__reversed_target",
    }
    graded = (course_dir / "autograded" / "bob" / "01_rnn" / "01_rnn.ipynb").read_text()
    assert "Judged by the grader, outside your kernel" in graded and "course.values" not in graded
