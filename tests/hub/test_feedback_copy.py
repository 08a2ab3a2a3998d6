"""Root releases feedback from its own copy: links, FIFOs, hard links and oversized files in the staff's
feedback folder are left out, each named; the rest is copied (issue 58)."""

from __future__ import annotations

import os

from instructor.hub import feedback_copy
from instructor.hub.feedback_copy import copy_feedback

A = "01_rnn"


def _feedback(course_dir, student, files: dict[str, str]):
    folder = course_dir / "feedback" / student / A
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


HONEST = {"01_rnn.html": "<p>well done</p>", "timestamp.txt": "2026-12-07 10:00:00", "submission_secret.txt": "s"}


def test_honest_feedback_is_copied_whole(tmp_path):
    _feedback(tmp_path / "cd", "amy", HONEST)
    _feedback(tmp_path / "cd", "bob", HONEST | {"notes.txt": "not read by nbgrader"})
    into = tmp_path / "copy"
    into.mkdir(mode=0o700)
    assert copy_feedback(tmp_path / "cd", A, into) == []
    for student in ("amy", "bob"):
        assert {p.name: p.read_text() for p in (into / student / A).iterdir()} == HONEST


def test_what_root_must_not_follow_is_left_out_and_named(tmp_path, monkeypatch):
    cd = tmp_path / "cd"
    secret = tmp_path / "roots-secret"
    secret.write_text("root's own")
    linked = _feedback(cd, "amy", {k: v for k, v in HONEST.items() if k != "01_rnn.html"})
    (linked / "01_rnn.html").symlink_to(secret)
    piped = _feedback(cd, "bob", {k: v for k, v in HONEST.items() if k != "01_rnn.html"})
    os.mkfifo(piped / "01_rnn.html")
    hard = _feedback(cd, "cy", {k: v for k, v in HONEST.items() if k != "01_rnn.html"})
    os.link(secret, hard / "01_rnn.html")
    _feedback(cd, "dan", HONEST | {"big.html": "x" * 200})
    (cd / "feedback" / "eve").symlink_to(tmp_path / "cd" / "feedback" / "dan")  # a student's folder as a link
    (cd / "feedback" / "..odd").mkdir()
    monkeypatch.setattr(feedback_copy, "MAX_BYTES", 100)
    into = tmp_path / "copy"
    into.mkdir(mode=0o700)
    left_out = copy_feedback(cd, A, into)
    assert left_out == [
        "feedback/'..odd': not a student id, left out",
        "feedback/amy/01_rnn/01_rnn.html: a link, left out",
        "feedback/bob/01_rnn/01_rnn.html: not a regular file, left out",
        "feedback/cy/01_rnn/01_rnn.html: a file with other names elsewhere (a hard link), left out",
        "feedback/dan/01_rnn/big.html: over 100 bytes, left out",
        "feedback/eve: not a folder of its own (a link or a file), left out",
    ]
    copied = sorted(str(p.relative_to(into)) for p in into.rglob("*") if p.is_file())
    assert "root's own" not in "".join((into / p).read_text() for p in copied)
    assert "dan/01_rnn/01_rnn.html" in copied and "amy/01_rnn/timestamp.txt" in copied


def test_no_feedback_folder_copies_nothing(tmp_path):
    (tmp_path / "cd").mkdir()
    assert copy_feedback(tmp_path / "cd", A, tmp_path) == []
