"""`course generate`: solutions/ -> notebooks/ with nbgrader, on a toy course and on this repository."""

from __future__ import annotations

import nbformat

from tests.factories import assert_one_sentence_error


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
    run_course(["generate", "--root", course_repo])
    assert before == {p: p.read_bytes() for p in (course_repo / "notebooks").rglob("*.ipynb")}


def test_release_refuses_a_broken_notebook(course_repo, run_course):
    """Is a solution notebook that is not valid JSON refused in one sentence?"""
    (course_repo / "solutions/02_toy/02_toy.ipynb").write_text("{oops")
    _, err = run_course(["generate", "--root", course_repo], retcode=1)
    assert_one_sentence_error(err)
    assert "02_toy" in err


def test_grader_config_points_nbgrader_at_this_repository():
    """Does grader/nbgrader_config.py give nbgrader this repo's solutions/ and notebooks/?"""
    from traitlets.config.loader import PyFileConfigLoader

    from instructor.paths import GRADER, REPO_ROOT

    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(GRADER)).load_config()
    assert cfg.CourseDirectory.root == str(REPO_ROOT)
    assert cfg.CourseDirectory.source_directory == "solutions"
    assert cfg.CourseDirectory.release_directory == "notebooks"
    assert cfg.KernelManager.transport == "ipc"
