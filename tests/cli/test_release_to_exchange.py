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


def test_what_lands_in_the_exchange_is_copied_without_following_a_link(course_repo, tmp_path, monkeypatch, capsys):
    """A link a grader slips into release/<a> after the student version is made (the staff write the course
    directory while root releases) must not take a file of root's into the exchange, where every student reads
    (issue 58): nbgrader releases from a copy of the run's own, made by descriptor, and the link is named."""
    from instructor.authoring import to_course_dir
    from instructor.coursedir.course_dir import CourseDir
    from instructor.coursedir.directory import init

    secret = tmp_path / "roots-alone.txt"
    secret.write_text("ROOT-SECRET")
    cd, exchange = tmp_path / "cd", tmp_path / "exchange"
    init(cd, exchange=exchange, root=course_repo)
    made = to_course_dir.into_course_dir

    def and_a_link_planted(course_dir, repo_root, names):
        changes = made(course_dir, repo_root, names)
        for name in names:
            (course_dir.release(name) / "notes.txt").symlink_to(secret)
        return changes

    monkeypatch.setattr(to_course_dir, "into_course_dir", and_a_link_planted)
    lines: list[str] = []
    to_course_dir.release_to_exchange(CourseDir.at(cd), course_repo, ["01_toy"], log=lines.append)
    released = exchange / "seqmodels" / "outbound" / "01_toy"
    assert (released / "01_toy.ipynb").is_file()
    assert not (released / "notes.txt").exists(), "root copied the grader's link into the exchange"
    assert "  01_toy/notes.txt: a link, left out" in lines, lines
