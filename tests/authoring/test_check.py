"""`course verify`: drift, stale given cells, outputs, misplaced markers, leaks."""

from __future__ import annotations

import nbformat
import pytest

from tests.factories import edit_notebook


def test_check_passes_on_fresh_release(course_repo, run_course):
    """Does check accept a release it just made?"""
    out, _ = run_course(["verify", "--root", course_repo])
    assert "clean" in out


def test_check_passes_on_this_repository(run_course):
    """Is the committed notebooks/ a clean, fresh release of solutions/?"""
    run_course(["verify"])


def test_check_reports_drift(course_repo, run_course):
    """Is a solution edited after the release reported as drift?"""
    path = course_repo / "solutions/02_toy/02_toy.ipynb"
    edit_notebook(path, lambda nb: nb.cells.append(nbformat.v4.new_markdown_cell("A new paragraph.")))
    out, _ = run_course(["verify", "--root", course_repo], retcode=1)
    assert "notebooks/02_toy/02_toy.ipynb differs from what `course generate` makes" in out


def test_check_reports_stale_given_cell(course_repo, run_course):
    """Is a given cell out of date with the solution it quotes reported?"""
    path = course_repo / "solutions/01_toy/01_toy.ipynb"
    edit_notebook(path, lambda nb: setattr(nb.cells[2], "source", nb.cells[2].source.replace("a + b", "b + a")))
    out, _ = run_course(["verify", "--root", course_repo], retcode=1)
    assert "given cell 'given_code' is out of date" in out


def test_check_reports_missing_and_extra_files(course_repo, run_course):
    """Are a missing student notebook and a stray file both reported?"""
    (course_repo / "notebooks/01_toy/01_toy.ipynb").unlink()
    (course_repo / "notebooks/02_toy/stray.txt").write_text("x")
    out, _ = run_course(["verify", "--root", course_repo], retcode=1)
    assert "notebooks/01_toy/01_toy.ipynb is missing" in out
    assert "notebooks/02_toy/stray.txt is not made by `course generate`" in out


@pytest.mark.parametrize("folder", ["solutions", "notebooks"])
def test_check_reports_outputs_and_counts(course_repo, run_course, folder):
    """Are outputs and execution counts in a committed notebook reported?"""

    def run_it(nb):
        cell = nb.cells[1]
        cell.execution_count = 3
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="hi\n")]

    edit_notebook(course_repo / folder / "01_toy/01_toy.ipynb", run_it)
    out, _ = run_course(["verify", "--root", course_repo], retcode=1)
    assert f"{folder}/01_toy/01_toy.ipynb: cell 1 carries outputs" in out
    assert f"{folder}/01_toy/01_toy.ipynb: cell 1 carries an execution count" in out


def test_check_reports_a_marker_glued_to_code(course_repo, run_course):
    """Is a hidden-test marker that shares its line with an assert reported (nbgrader would hide the assert)?"""

    def glue(nb):
        cell = next(c for c in nb.cells if "### BEGIN HIDDEN TESTS" in c.source)
        cell.source = cell.source.replace("\n### BEGIN HIDDEN TESTS", "  ### BEGIN HIDDEN TESTS", 1)

    edit_notebook(course_repo / "solutions/01_toy/01_toy.ipynb", glue)
    out, _ = run_course(["verify", "--root", course_repo], retcode=1)
    assert "has a marker that does not stand on a line of its own" in out


@pytest.mark.parametrize(
    "line",
    [
        "total_of_both_numbers = a + b",
        "assert add(-40, 2) == -38  # a hidden, very secret check",
        "Model answer: addition of numbers is commutative. Rubric: a grader-only rubric line.",
    ],
)
def test_check_reports_leaked_solution_and_hidden_test(course_repo, run_course, line):
    """Is a solution, hidden-test or mark-scheme line in a student notebook reported as a leak?"""
    edit_notebook(
        course_repo / "notebooks/01_toy/01_toy.ipynb", lambda nb: nb.cells.append(nbformat.v4.new_code_cell(line))
    )
    out, _ = run_course(["verify", "--root", course_repo], retcode=1)
    assert "shows a solution or hidden-test line" in out


def test_check_leak_ignores_given_cells(course_repo):
    """Are earlier answers inside a given cell not called leaks?"""
    from instructor.authoring.verify import verify_leaks

    assert verify_leaks(course_repo) == []
