"""Grading a hostile corpus as the grader does, and reading back what it recorded: shared by its tests."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from instructor import sandbox
from instructor.authoring.to_course_dir import into_course_dir
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.grading.class_state import ClassState
from instructor.grading.intake import find_submissions
from instructor.grading.pipeline import grade
from instructor.grading.record import record
from instructor.paths import REPO_ROOT, existing_assignments
from tests.hostile.cases import A

#: small limits, so runaway cases end quickly
LIMITS = sandbox.Limits(cell_timeout=10, notebook_budget=60, memory_mb=1024, processes=64)


def grade_corpus(subs: Path, course_dir: Path, isolation) -> dict:
    """Grade every submission under ``subs`` in a new course directory, two at a time; student -> recorded result."""
    found = find_submissions(subs, existing_assignments(REPO_ROOT / "solutions"))
    directory.init(course_dir)
    opened = CourseDir.at(course_dir)
    into_course_dir(opened, REPO_ROOT, [A])
    # grading as independent tasks, recording in this process only
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda s: grade(opened, s, LIMITS, isolation), found))
    state = ClassState.read(opened)
    return {o.student: record(opened, o, state) for o in results}


def scores_over_the_release(course_dir: Path) -> list[str]:
    """Every recorded cell score above the points the release gives that cell, and every total above the maximum."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        release = {c.name: c.max_score for nb in gb.find_assignment(A).notebooks for c in nb.grade_cells}
        maximum = gb.find_assignment(A).max_score
        over = []
        for sub in gb.assignment_submissions(A):
            over += [
                f"{sub.student_id}: {g.name} {g.score} > {release.get(g.name)}"
                for nb in sub.notebooks
                for g in nb.grades
                if g.name not in release or (g.score or 0) > release[g.name]
            ]
            if sub.score > maximum:
                over.append(f"{sub.student_id}: {sub.score} > {maximum}")
    return over
