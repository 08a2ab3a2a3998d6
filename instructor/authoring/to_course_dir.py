"""The assignments of a course directory: generated from the solutions, recorded, released to students.

``course grade`` and ``course release-to-exchange`` both start here::

    solutions/<a>/  ->  <dir>/source/<a>/   (given cells synced with the repository)
                    ->  <dir>/release/<a>/  (nbgrader's student version, recorded in the gradebook)
                    ->  <dir>/releases/<a>/ (every release issued, kept: see coursedir.releases)
    due dates of <dir>/nbgrader_config.py  ->  the gradebook

Once submissions are recorded, nbgrader cannot add or remove graded cells of
an assignment: :func:`into_course_dir` refuses that in one sentence, and names each
test cell whose code changed (the submissions are graded with the new code).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from nbgrader.utils import is_grade, is_locked, is_solution, is_task

from instructor.authoring.given import sync_given
from instructor.authoring.release import generate
from instructor.cells import grade_id, read
from instructor.coursedir import directory, due, gradebook, releases
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError, first_line
from instructor.paths import notebook_path


def into_course_dir(course_dir: CourseDir, repo_root: Path, assignments: list[str]) -> list[str]:
    """Copy the sources into ``course_dir`` and let nbgrader record the assignments.

    Applies the course directory's due dates. Returns one line per test cell
    whose code changed since submissions were recorded.
    """
    folder = directory.require(course_dir.path)
    db_url = course_dir.gradebook_url
    for name in assignments:
        target = folder / "source" / name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(
            repo_root / "solutions" / name, target, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
        )
    for name in assignments:
        # given cells refer to earlier assignments, so sync against the repo
        sync_given(notebook_path(name, folder / "source"), repo_root / "solutions")
    before = {name: gradebook.recorded_cells(db_url, name) for name in assignments}
    for name in assignments:
        _refuse_changed_cells(folder, name, before[name])
    for name in assignments:
        releases.keep(folder, name)  # the release students may hold, before nbgrader replaces it
        generate(folder, name, source="source", release="release", database=True, db_url=db_url)
        releases.keep(folder, name)
    due.apply_due_dates(course_dir.due, db_url, assignments)
    changes = []
    for name in assignments:
        after, earlier = gradebook.recorded_cells(db_url, name), before[name]
        if earlier is not None and after is not None:
            old_tests, new_tests = earlier[1], after[1]
            changed = sorted(k for k, src in new_tests.items() if k in old_tests and old_tests[k] != src)
            changes += [
                f"{name}: test cell {k} changed since submissions were graded; they are graded "
                f"with the new code (hand grades kept; the cell as students received it is no edit)"
                for k in changed
            ]
    return changes


def _refuse_changed_cells(folder: Path, assignment: str, recorded) -> None:
    if recorded is None:
        return
    nb = read(notebook_path(assignment, folder / "source"))
    # the cells nbgrader records in the gradebook
    new = {
        grade_id(c) for c in nb.cells if grade_id(c) and (is_grade(c) or is_solution(c) or is_locked(c) or is_task(c))
    }
    old = recorded[0]
    if new != old:
        removed, added = ", ".join(sorted(old - new)) or "none", ", ".join(sorted(new - old)) or "none"
        raise CourseError(
            f"{assignment} cannot be regraded: its nbgrader cells changed after submissions were recorded "
            f"(removed: {removed}; added: {added}), which nbgrader refuses; put the cells back, "
            f"or grade in a new course directory (`course init DIR`)."
        )


def release_to_exchange(
    course_dir: CourseDir, repo_root: Path, assignments: list[str], force: bool = False, log=print
) -> Path:
    """:func:`into_course_dir`, then ``nbgrader release_assignment`` in ``course_dir``; returns the exchange."""
    for change in into_course_dir(course_dir, repo_root, assignments):
        log(change)
    folder, exchange = course_dir.path, course_dir.exchange
    for name in assignments:
        command = [sys.executable, "-m", "nbgrader", "release_assignment", name] + (["--force"] if force else [])
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True)
        if done.returncode != 0:
            lines = [ln for ln in (done.stderr + done.stdout).splitlines() if "ERROR" in ln or "Error" in ln]
            detail = first_line(lines[-1].split("]", 1)[-1]) if lines else f"exit status {done.returncode}"
            raise CourseError(f"nbgrader could not release {name} ({detail}).")
        log(f"released {name} to {exchange}")
    return exchange
