"""The README's commands that failed as written (issue 35, finding 9): each now works or says why in one sentence."""

from __future__ import annotations

import pwd

from instructor.coursedir import directory
from tests.factories import assert_one_sentence_error
from tests.system import require_root


def test_an_exchange_that_cannot_be_made_is_one_sentence(tmp_path, run_course):
    """Is `course init --exchange` on a folder that cannot be created refused in one sentence (no traceback),
    and no settings file left naming it?"""
    (tmp_path / "srv").write_text("a file, where the exchange's parent folder should be")
    _, err = run_course(["init", tmp_path / "cd", "--exchange", tmp_path / "srv/nbgrader/exchange"], retcode=1)
    assert_one_sentence_error(err)
    assert "cannot create the exchange" in err and "sudo mkdir -p" in err
    assert not directory.is_course_dir(tmp_path / "cd")


def test_a_roster_row_with_an_unquoted_comma_is_refused_with_its_line(tmp_path, run_course):
    """Is a roster row with more fields than columns (an unquoted comma in a name) refused, naming its line,
    instead of taken with the wrong email?"""
    run_course(["init", tmp_path / "cd"])
    (tmp_path / "class.csv").write_text(
        "id,first_name,last_name,email\namy,Amy,Adams,amy@example.org\nbob,Bob,Brown, Jr.,bob@example.org\n"
    )
    _, err = run_course(["roster", "import", tmp_path / "class.csv", "--course-dir", tmp_path / "cd"], retcode=1)
    assert_one_sentence_error(err)
    assert "line 3: 5 fields for 4 columns" in err
    assert not (tmp_path / "cd" / "roster.csv").exists()


def test_a_roster_name_with_a_direction_mark_is_refused_with_its_line(tmp_path, run_course):
    """Is a roster name that holds a mark reversing how text reads ("\u202elive" shows as "evil") refused in one
    sentence naming its line and the mark, and nothing imported?"""
    run_course(["init", tmp_path / "cd"])
    (tmp_path / "class.csv").write_text(
        "id,first_name,last_name,email\namy,Amy,Adams,amy@example.org\nbob,Bob,\u202elive,bob@example.org\n",
        encoding="utf-8",
    )
    _, err = run_course(["roster", "import", tmp_path / "class.csv", "--course-dir", tmp_path / "cd"], retcode=1)
    assert_one_sentence_error(err)
    assert "line 3: the last_name of 'bob' holds U+202E" in err and "\u202e" not in err
    assert not (tmp_path / "cd" / "roster.csv").exists()


def test_a_quoted_comma_is_taken(tmp_path, run_course):
    run_course(["init", tmp_path / "cd"])
    (tmp_path / "class.csv").write_text('id,first_name,last_name,email\nbob,Bob,"Brown, Jr.",bob@example.org\n')
    run_course(["roster", "import", tmp_path / "class.csv", "--course-dir", tmp_path / "cd"])
    assert 'bob,Bob,"Brown, Jr.",bob@example.org' in (tmp_path / "cd" / "roster.csv").read_text()


def test_under_sudo_the_default_is_the_invoking_users(monkeypatch):
    """sudo drops $COURSE_DIR and makes ~ root's: is the default course directory the invoking user's?"""
    require_root("under sudo the command is root's; as another user SUDO_USER means nothing")
    monkeypatch.delenv(directory.ENV, raising=False)
    monkeypatch.setenv("SUDO_USER", "nobody")
    expected = (__import__("pathlib").Path(pwd.getpwnam("nobody").pw_dir) / "seqmodels-grading").resolve()
    assert directory.resolve(None) == expected


def test_sudo_course_grade_without_a_course_dir_is_refused(tmp_path, monkeypatch, run_course):
    """Does `sudo course grade` (no --course-dir, $COURSE_DIR dropped) refuse, naming --course-dir, instead of
    grading into a new course directory in the wrong home?"""
    monkeypatch.delenv(directory.ENV, raising=False)
    monkeypatch.setenv("SUDO_USER", "nobody")
    _, err = run_course(["grade", tmp_path], retcode=1)
    assert_one_sentence_error(err)
    assert '--course-dir "$COURSE_DIR"' in err
