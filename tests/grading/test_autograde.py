"""nbgrader autogrades the reference solution to full marks and the untouched notebook to 0."""

from __future__ import annotations

import shutil

import pytest

from instructor.authoring.to_course_dir import into_course_dir
from instructor.coursedir import directory
from instructor.grading.intake import find_submissions
from instructor.grading.submission import Status
from instructor.paths import NOTEBOOKS, REPO_ROOT, SOLUTIONS, existing_assignments, notebook_path
from instructor.reporting.table import grades
from instructor.scheduling.loop import grade_class

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
    into_course_dir(course_dir, REPO_ROOT, ASSIGNMENTS)
    run = grade_class(course_dir, found, log=lambda *_: None, progress=False)
    assert [r for r in run.results if r.status is not Status.GRADED] == []
    return {(g.student, g.assignment): g for g in grades(course_dir)}


@pytest.mark.notebook
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_autograde_reference_full_marks_blank_zero(graded_course_dir, assignment):
    """Does nbgrader give the solution full marks and the untouched notebook 0?"""
    reference = graded_course_dir[("reference", assignment)]
    blank = graded_course_dir[("blank", assignment)]
    assert reference.auto_max > 0
    assert reference.auto_score == reference.auto_max
    assert blank.auto_score == 0
