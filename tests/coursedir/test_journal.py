"""Who wrote each grade: the grade journals, and the check `course export` makes with them (issue 58, grades).

A gradebook made with nbgrader's API (no grading run: a second each), its
scores journalled as the tools journal them; then scores written as a grader
with a shell would (``sqlite3``), and journals written by accounts other than
their authors. The accounts are uids with no name, in forked children (root
only); the hub's real accounts are ``tests/hub/test_grade_journal.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import tempfile
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from instructor.coursedir import journal
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from tests.system import require_root

A, AMY = "01_toy", "amy"
INSTRUCTOR = 4331  # uids with no account: the course directory's owner, and a grader of the staff group
GRADER = 4332
GROUP = 4333


def _url(course: Path) -> str:
    return f"sqlite:///{course / 'gradebook.db'}"


def _graded(course: Path) -> None:
    """amy's 01_toy as `course grade` leaves it: 2 autograded points, a written answer waiting, journalled."""
    with Gradebook(_url(course)) as gb:
        gb.add_assignment(A)
        gb.add_notebook(A, A)
        gb.add_grade_cell("add__values", A, A, max_score=2, cell_type="code")
        gb.add_grade_cell("why", A, A, max_score=1, cell_type="markdown")
        gb.add_student(AMY)
        gb.add_submission(A, AMY)
        gb.find_grade("add__values", A, A, AMY).auto_score = 2.0
        gb.db.commit()
        journal.record(CourseDir.places_at(course), *journal.autograde_lines(gb.find_submission(A, AMY)))


def _sqlite(course: Path, column: str, value, cell: str) -> None:
    """What a grader with a terminal can do: write a score straight into the gradebook."""
    with sqlite3.connect(course / "gradebook.db") as db:
        db.execute(
            f"UPDATE grade SET {column} = ? WHERE cell_id IN (SELECT id FROM base_cell WHERE name = ?)", (value, cell)
        )


def _wrong(course: Path) -> list[str]:
    with Gradebook(_url(course)) as gb:
        return journal.unexplained(CourseDir.places_at(course), gb)


def _hand_grade(course: Path, cell: str, points: float) -> None:
    """What the formgrader's Save does (its handler: the journal opened first, nbgrader's commit, the line)."""
    with journal.writer(CourseDir.places_at(course)) as w, Gradebook(_url(course)) as gb:
        grade = gb.find_grade(cell, A, A, AMY)
        grade.manual_score = points
        gb.db.commit()
        w.write(journal.hand_line(grade))


@pytest.fixture
def course(tmp_path):
    _graded(tmp_path)
    return tmp_path


def test_tools_scores_are_explained_and_name_their_author(course):
    """Scores written by the tools only: does the check pass, and does each line name the account that wrote it,
    as the system names it (the file's owner), not as ``$USER`` says?"""
    os.environ["USER"] = os.environ["LOGNAME"] = "somebody-else"
    try:
        _hand_grade(course, "why", 0.5)
    finally:
        os.environ.pop("USER")
        os.environ.pop("LOGNAME")
    assert _wrong(course) == []
    entries, problems = journal.read_journals(CourseDir.places_at(course))
    assert problems == []
    me = journal.account(os.geteuid())
    hand = [e for e in entries if e.data["kind"] == journal.HAND_GRADE]
    assert [(e.author, e.data["cell"], e.data["manual"]) for e in hand] == [(me, "why", 0.5)]
    info = os.stat(CourseDir.places_at(course).journals / f"{me}.jsonl")
    assert stat.S_IMODE(info.st_mode) == 0o644 and info.st_uid == os.geteuid()
    assert (
        os.stat(CourseDir.places_at(course).journals).st_mode & stat.S_ISVTX
    )  # sticky: nobody removes another's journal


@pytest.mark.parametrize(
    ("column", "value", "cell", "said"),
    [
        ("manual_score", 1.0, "why", "cell why, points given by hand: the gradebook holds 1, the journal nothing"),
        ("auto_score", 0.0, "add__values", "cell add__values, autograded points: the gradebook holds 0, the journal 2"),
        ("extra_credit", 3.0, "add__values", "cell add__values, extra credit: the gradebook holds 3, the journal"),
    ],
)
def test_a_score_written_with_sqlite_stops_the_export(course, column, value, cell, said):
    """A score written straight into gradebook.db: is it found, in one line naming assignment, student, cell,
    the score found and the journal's, and does the check refuse, saying how to settle it?"""
    _sqlite(course, column, value, cell)
    wrong = _wrong(course)
    assert len(wrong) == 1 and wrong[0].startswith(f"{A}, {AMY}, {said}"), wrong
    with Gradebook(_url(course)) as gb, pytest.raises(CourseError) as refused:
        journal.require_explained(CourseDir.places_at(course), gb)
    message = str(refused.value)
    assert wrong[0] in message and "nothing was exported" in message
    assert "course override" in message and "course grade -a A -s STUDENT --force" in message


def test_a_hand_grade_changed_after_it_was_given_names_the_grader_who_gave_it(course):
    _hand_grade(course, "why", 0.5)
    _sqlite(course, "manual_score", 1.0, "why")
    (line,) = _wrong(course)
    me = journal.account(os.geteuid())
    assert line.startswith(
        f"{A}, {AMY}, cell why, points given by hand: the gradebook holds 1, the journal 0.5 (hand grade by {me}, 20"
    ), line


def test_a_regrade_keeps_a_hand_grade_and_a_removed_submission_must_be_journalled(course):
    """An autograde after a hand grade (which keeps it) leaves both explained; a submission taken out of the
    gradebook outside the tools is found, and one `course grade` took out (its removal line) is not."""
    _hand_grade(course, "why", 0.5)
    with Gradebook(_url(course)) as gb:  # course grade again: the hand grade kept (no `manual` in its lines)
        journal.record(CourseDir.places_at(course), *journal.autograde_lines(gb.find_submission(A, AMY)))
    assert _wrong(course) == []
    with Gradebook(_url(course)) as gb:
        gb.remove_submission(A, AMY)
    (line,) = _wrong(course)
    assert line.startswith(f"{A}, {AMY}: the gradebook has no submission where the journal holds one"), line
    journal.record(CourseDir.places_at(course), journal.removal_line(A, AMY))
    assert _wrong(course) == []


def test_a_late_penalty_moves_only_through_the_tools(course):
    """A notebook's late penalty written straight into the gradebook is found; one `course extend` worked out
    again (its extension line) is not."""
    with sqlite3.connect(course / "gradebook.db") as db:
        db.execute("UPDATE submitted_notebook SET late_submission_penalty = 0.5")
    (line,) = _wrong(course)
    assert line.startswith(f"{A}, {AMY}, late penalty: the gradebook holds 0.5, the journal nothing (autograde by"), (
        line
    )
    with Gradebook(_url(course)) as gb:
        journal.record(CourseDir.places_at(course), *journal.penalty_lines(gb.find_submission(A, AMY)))
        assert _wrong(course) == []


def test_a_line_no_journal_may_hold_is_refused(course):
    """A line dated in the future (it would outlast every later grade), and one that is not a line at all."""
    me = journal.account(os.geteuid())
    future = journal.line(journal.HAND_GRADE, A, AMY, A, "why", manual=1.0)
    future["at"] = "2099-01-01T00:00:00.000000Z"
    _sqlite(course, "manual_score", 1.0, "why")
    with open(CourseDir.places_at(course).journals / f"{me}.jsonl", "a") as f:
        f.write(json.dumps(future) + "\n{not json\n")
    wrong = _wrong(course)
    assert any("line 4: dated 2099-01-01" in w for w in wrong), wrong
    assert any("line 5: not JSON" in w for w in wrong), wrong
    assert any("cell why, points given by hand: the gradebook holds 1, the journal nothing" in w for w in wrong)


# --------------------------------------------------------------------------- as other accounts (root only)


def _as(uid: int, work) -> str:
    """``work()`` in a forked child as ``uid`` (group GROUP); what it returned, or its exception's type and text."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        os.close(read)
        try:
            os.setgroups([GROUP])
            os.setgid(GROUP)
            os.setuid(uid)
            os.umask(0o002)  # a staff server's
            said = str(work())
        except BaseException as err:
            said = f"{type(err).__name__}: {err}"
        os.write(write, said.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        said = f.read().decode()
    os.waitpid(pid, 0)
    return said


@pytest.fixture
def shared():
    """A course directory as the hub shares it: setgid, group-writable, the journal folder made by its owner."""
    require_root("the test switches accounts")
    folder = Path(tempfile.mkdtemp(prefix="course-journal-"))
    folder.chmod(0o755)
    course = folder / "cd"
    course.mkdir()
    os.chown(course, INSTRUCTOR, GROUP)
    os.chmod(course, 0o2770)
    try:
        assert _as(INSTRUCTOR, lambda: _graded(course)) == "None"  # the owner grades off the hub
        for path in course.iterdir():
            if path.is_file():
                os.chown(path, INSTRUCTOR, GROUP)
                os.chmod(path, 0o660)  # the gradebook: the group's to write, as on the hub
        yield course
    finally:
        shutil.rmtree(folder)


def test_a_grader_cannot_write_or_remove_anothers_journal(shared):
    theirs = CourseDir.places_at(shared).journals / f"{journal.account(INSTRUCTOR)}.jsonl"
    line = json.dumps(journal.line(journal.HAND_GRADE, A, AMY, A, "why", manual=1.0)) + "\n"

    def append():
        with open(theirs, "a") as f:
            f.write(line)

    assert _as(GRADER, append).startswith("PermissionError"), "the grader wrote into the instructor's journal"
    assert _as(GRADER, theirs.unlink).startswith("PermissionError"), "the grader removed the instructor's journal"
    moved = CourseDir.places_at(shared).journals / "elsewhere.jsonl"
    assert _as(GRADER, lambda: theirs.rename(moved)).startswith("PermissionError")
    assert _wrong(shared) == []


def test_a_journal_made_by_another_account_is_never_written_as_its_name(shared):
    """The grader makes a file named as the next account's journal, writable by all: does that account's tool
    refuse to write into it (its lines would be the grader's), and are its lines taken as the grader's?"""
    planted = CourseDir.places_at(shared).journals / f"{journal.account(GRADER + 10)}.jsonl"

    def plant():
        fd = os.open(planted, os.O_WRONLY | os.O_CREAT, 0o666)
        os.fchmod(fd, 0o666)
        os.close(fd)

    assert _as(GRADER, plant) == "None"
    refused = _as(
        GRADER + 10,
        lambda: journal.record(CourseDir.places_at(shared), journal.line(journal.HAND_GRADE, A, AMY, A, "why")),
    )
    assert refused.startswith("CourseError") and "is not your grade journal" in refused, refused
    assert planted.read_bytes() == b""
    entries, problems = journal.read_journals(CourseDir.places_at(shared))
    assert [p for p in problems if "could be written by others than" in p], problems


def test_lines_a_grader_writes_are_his_and_no_autograde(shared):
    """The grader writes the gradebook and lines in his own journal claiming any kind: a hand grade line is his
    (named as his), an autograde line is refused (only root or the course directory's owner grades)."""
    _sqlite(shared, "manual_score", 1.0, "why")
    _sqlite(shared, "auto_score", 0.0, "add__values")
    lines = [
        journal.line(journal.HAND_GRADE, A, AMY, A, "why", manual=1.0),
        journal.line(journal.AUTOGRADE, A, AMY, A, "add__values", auto=0.0),
    ]
    assert _as(GRADER, lambda: journal.record(CourseDir.places_at(shared), *lines)) == "None"
    wrong = _wrong(shared)
    grader = journal.account(GRADER)
    assert any(f"(by {grader}), line 2: {grader} is neither root nor the owner" in w for w in wrong), wrong
    assert any("cell add__values, autograded points: the gradebook holds 0, the journal 2" in w for w in wrong)
    assert not any("cell why" in w for w in wrong), wrong  # his hand grade: explained, and his
    entries, _ = journal.read_journals(CourseDir.places_at(shared))
    assert [(e.author, e.data["cell"]) for e in entries if e.data["kind"] == journal.HAND_GRADE] == [(grader, "why")]


def test_a_link_is_no_journal(shared):
    folder = CourseDir.places_at(shared).journals
    os.symlink(folder / f"{journal.account(INSTRUCTOR)}.jsonl", folder / "copy.jsonl")
    _, problems = journal.read_journals(CourseDir.places_at(shared))
    assert [p for p in problems if "copy.jsonl is not a grade journal the course reads (a link)" in p], problems
    shutil.rmtree(folder)
    os.symlink(shared, folder)
    with pytest.raises(CourseError, match="is not the course's folder of grade journals"):
        journal.read_journals(CourseDir.places_at(shared))
