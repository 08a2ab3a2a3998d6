"""A failed `course release-to-exchange` says why and leaves nothing behind (issue 43, finding 7)."""

from __future__ import annotations

import subprocess

import nbformat
from nbgrader.api import Gradebook, MissingEntry


def _recorded(cd, name) -> bool:
    if not (cd / "gradebook.db").exists():
        return False
    with Gradebook(f"sqlite:///{cd / 'gradebook.db'}") as gb:
        try:
            gb.find_assignment(name)
        except MissingEntry:
            return False
        return True


def test_a_failed_first_release_says_why_and_records_nothing(course_repo, tmp_path, run_course):
    """The exchange already holds 01_toy (a leftover): is nbgrader's cause shown (it said only "nbgrader
    release_assignment failed"), and are source/, release/, releases/ and the gradebook left without 01_toy?"""
    cd, exchange = tmp_path / "cd", tmp_path / "exchange"
    run_course(["init", cd, "--exchange", exchange, "--root", course_repo])
    (exchange / "seqmodels/outbound/01_toy").mkdir(parents=True)
    _, err = run_course(["release-to-exchange", "01_toy", "--course-dir", cd], retcode=1)
    assert "Destination already exists, add --force to overwrite" in err, err
    assert "nothing of it was kept" in err
    assert not [p for p in ("source/01_toy", "release/01_toy", "releases/01_toy") if (cd / p).exists()]
    assert not _recorded(cd, "01_toy")
    assert sorted(p.name for p in cd.iterdir() if p.name != "gradebook.db") == [
        "nbgrader_config.json",
        "nbgrader_config.py",
    ]


def test_a_failed_release_of_a_new_version_puts_the_old_one_back(course_repo, tmp_path, run_course):
    """01_toy released; its solution then changes and is released again without --force, which nbgrader refuses:
    are source/ and release/ the first release's again, and the gradebook still holding it?"""
    cd = tmp_path / "cd"
    run_course(["init", cd, "--exchange", tmp_path / "exchange", "--root", course_repo])
    run_course(["release-to-exchange", "01_toy", "--course-dir", cd])
    before = {p: (cd / p).read_bytes() for p in ("source/01_toy/01_toy.ipynb", "release/01_toy/01_toy.ipynb")}
    archived = sorted((cd / "releases/01_toy").iterdir())
    solution = course_repo / "solutions/01_toy/01_toy.ipynb"
    nb = nbformat.read(str(solution), as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("A new note for the second version."))
    nbformat.write(nb, str(solution))
    _, err = run_course(["release-to-exchange", "01_toy", "--course-dir", cd], retcode=1)
    assert "Destination already exists" in err
    assert {p: (cd / p).read_bytes() for p in before} == before
    assert sorted((cd / "releases/01_toy").iterdir()) == archived
    assert _recorded(cd, "01_toy")
    assert not list(cd.glob(".release-*"))


def test_the_cause_is_nbgraders_own_line():
    """Is the cause the CRITICAL line, not the ERROR line after it; else a traceback's last line?"""
    from instructor.authoring.to_course_dir import nbgrader_cause

    logged = subprocess.CompletedProcess(
        [],
        1,
        "",
        "[ReleaseAssignmentApp | CRITICAL] Destination already exists\n"
        "[ReleaseAssignmentApp | ERROR] nbgrader release_assignment failed\n",
    )
    assert nbgrader_cause(logged) == "Destination already exists"
    raised = subprocess.CompletedProcess(
        [],
        1,
        "",
        "Traceback (most recent call last):\n  File x\n"
        "PermissionError: [Errno 13] Permission denied: '/srv/ex/seqmodels'\n",
    )
    assert nbgrader_cause(raised) == "PermissionError: [Errno 13] Permission denied: '/srv/ex/seqmodels'"
    assert nbgrader_cause(subprocess.CompletedProcess([], 2, "", "")) == "exit status 2"
