"""A graded class of 01_rnn that the report and feedback tests share (graded once per session)."""

from __future__ import annotations

import os

import nbformat
import pytest

from instructor import sandbox
from instructor.authoring.mistakes import apply_mistake
from instructor.authoring.mistakes import load as load_mistakes
from instructor.authoring.to_course_dir import into_course_dir
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.grading.intake import find_submissions
from instructor.paths import NOTEBOOKS, REPO_ROOT, SOLUTIONS, notebook_path
from instructor.scheduling.loop import grade_class

A = "01_rnn"
#: each planted in two students: three tasks, so three different test cells fail
PLANTED = ["target_not_reversed", "tanh_missing", "longest_length_skipped"]
FORGED = "<script>alert(1)</script> FORGED BY THE STUDENT"


def _cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


@pytest.fixture(scope="session")
def graded_class(tmp_path_factory):
    """Two references, two blanks, each planted mistake twice, a forger, a flagged and an unreadable submission."""
    tmp = tmp_path_factory.mktemp("report")
    solution = nbformat.read(str(notebook_path(A, SOLUTIONS)), as_version=4)
    blank = notebook_path(A, NOTEBOOKS).read_text()
    catalogue = {m.name: m for m in load_mistakes(REPO_ROOT / "tests" / "mistakes", A)}
    subs = tmp / "subs"
    planted = {}

    def put(student, text):
        (subs / student / A).mkdir(parents=True)
        (subs / student / A / f"{A}.ipynb").write_text(text)

    for student in ("ref1", "ref2"):
        put(student, nbformat.writes(solution))
    for student in ("blank1", "blank2"):
        put(student, blank)
    for i, name in enumerate(PLANTED):
        for student in (f"m{i}a", f"m{i}b"):
            put(student, nbformat.writes(apply_mistake(solution, catalogue[name])))
            planted[student] = catalogue[name]
    forged = nbformat.from_dict(solution)
    answer = next(
        c for c in forged.cells if "def generate_batch(" in c.source and c.metadata["nbgrader"].get("solution")
    )
    # the student's own code raises an AssertionError whose message is markup: it must never reach the page
    answer.source += f"\n\ndef generate_batch(*args, **kwargs):\n    raise AssertionError({FORGED!r})\n"
    put("forger", nbformat.writes(forged))
    flagged = nbformat.from_dict(solution)
    _cell(flagged, "rnn__shapes_and_parameters").source += "\n# edited by the student"
    put("editor", nbformat.writes(flagged))
    put("broken", "{not a notebook")

    course = tmp / "course"
    directory.init(course)
    into_course_dir(CourseDir.at(course), REPO_ROOT, [A])
    # the workers are processes of their own: as a user who is not root, --no-limits is said here (tests/conftest.py)
    limits = sandbox.Limits(required=os.geteuid() == 0)
    grade_class(
        CourseDir.at(course), find_submissions(subs, [A]), limits, unsafe=True, force=True, log=lambda *_: None, jobs=2
    )
    return course, planted
