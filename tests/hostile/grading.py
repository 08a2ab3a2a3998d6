"""Grading a hostile corpus as the grader does, and reading back what it recorded: shared by its tests."""

from __future__ import annotations

import dataclasses
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
from instructor.grading.submission import Status
from instructor.paths import REPO_ROOT, existing_assignments
from tests.hostile.cases import A

#: small limits, so runaway cases end quickly
LIMITS = sandbox.Limits(cell_timeout=10, notebook_budget=60, memory_mb=1024, processes=64)
#: what the grader says when a time limit was met in the course's given code (a loaded machine): graded again
BUSY = "the grading machine was too busy"
#: how many times a submission the machine was too busy for is graded again, each time with twice the time
RETRIES = 3


def grade_corpus(
    subs: Path,
    course_dir: Path,
    isolation,
    limits: dict[str, sandbox.Limits] | None = None,
    first: tuple[str, ...] = (),
) -> dict:
    """Grade every submission under ``subs`` in a new course directory, two at a time; student -> recorded result.

    ``limits`` gives some students limits of their own (the rest get :data:`LIMITS`); the students of ``first``
    are graded first (those that wait for a time limit: they overlap the others instead of ending last). A
    submission the machine was too busy for (a time limit met in the course's given code, before any student
    code ran) is graded again, as the next ``course grade`` would, with twice the time, at most
    :data:`RETRIES` times: on a loaded machine the outcome is still the student's.
    """
    limits = limits or {}
    found = find_submissions(subs, existing_assignments(REPO_ROOT / "solutions"))
    found.sort(key=lambda s: first.index(s.student) if s.student in first else len(first))  # the rest: as found
    directory.init(course_dir)
    opened = CourseDir.at(course_dir)
    into_course_dir(opened, REPO_ROOT, [A])

    def graded(sub, times: int = 1):
        mine = limits.get(sub.student, LIMITS)
        mine = dataclasses.replace(
            mine, cell_timeout=mine.cell_timeout * times, notebook_budget=mine.notebook_budget * times
        )
        return grade(opened, sub, mine, isolation)

    # grading as independent tasks, recording in this process only
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(graded, found))
        for attempt in range(1, RETRIES + 1):
            busy = [i for i, o in enumerate(results) if o.status is Status.GRADER_FAILED and BUSY in o.reason]
            again = pool.map(graded, [found[i] for i in busy], [2**attempt] * len(busy))
            for i, o in zip(busy, again, strict=True):
                results[i] = o
    state = ClassState.read(opened)
    return {o.student: record(opened, o, state) for o in results}


def part(graded: dict, cases) -> dict:
    """The results, feedback pages and feedback failures of ``cases`` alone (one corpus of the graded two)."""
    names = {c.name for c in cases}
    pages = graded["course_dir"] / "feedback"
    return {
        **graded,
        "cases": cases,
        "outcomes": {n: o for n, o in graded["outcomes"].items() if n in names},
        "feedback": [p for p in graded["feedback"] if p.relative_to(pages).parts[0] in names],
        "feedback_failures": [f for f in graded["feedback_failures"] if f.split("/")[0] in names],
    }


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
