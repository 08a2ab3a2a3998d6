"""`course grade` from the command line on a toy course: folders, exchanges, bad submissions, the roster."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.factories import toy_submissions
from tests.system import require_root, require_sandbox


def test_grade_export_feedback(course_repo, tmp_path, run_course):
    """Does grading give the solution full marks, the blank 0, a CSV and clean feedback?"""
    subs = toy_submissions(tmp_path / "subs", course_repo)
    # a student whose add passes the visible check and fails the hidden one (add(-40, 2))
    (subs / "half" / "01_toy").mkdir(parents=True)
    source = (course_repo / "solutions/01_toy/01_toy.ipynb").read_text()
    (subs / "half/01_toy/01_toy.ipynb").write_text(source.replace("= a + b", "= abs(a) + b"))
    ws = tmp_path / "ws"
    out, err = run_course(["grade", subs, "--course-dir", ws, "--root", course_repo])
    table = {
        tuple(line.split()[:2]): line.split()[2:5] for line in out.splitlines()[2:] if line.startswith(("ref", "blank"))
    }
    assert table[("ref", "01_toy")][:3] == ["2", "/", "2"]
    assert table[("blank", "01_toy")][:3] == ["0", "/", "2"]
    assert table[("ref", "02_toy")][:3] == ["1", "/", "1"]
    assert "Warning" not in err and "WARNING" not in err

    run_course(["export", "--course-dir", ws, "--file", tmp_path / "grades.csv"])
    with open(tmp_path / "grades.csv", newline="") as f:
        read = {(r["student_id"], r["assignment"]): r for r in csv.DictReader(f)}
    rows = {k: float(r["score"]) for k, r in read.items() if r["score"] != ""}
    assert {k: v for k, v in rows.items() if k[0] != "half"} == {
        ("ref", "01_toy"): 2.0,
        ("blank", "01_toy"): 0.0,
        ("ref", "02_toy"): 1.0,
        ("blank", "02_toy"): 0.0,
    }
    assert rows[("half", "01_toy")] == 0.0
    # half submitted no 02_toy and it has no due date: no zero that is not earned (issue 43.5)
    missing = read[("half", "02_toy")]
    assert (missing["status"], missing["reason"], missing["score"]) == ("not due", "no due date is set", "")

    out, _ = run_course(["feedback", "--course-dir", ws])
    html = (ws / "feedback/half/01_toy/01_toy.html").read_text()
    assert "ran hidden tests; its output is not shown" in html  # a hidden check ran and failed
    assert "very secret" not in html and "-40" not in html  # not even in a traceback
    html = (ws / "feedback/blank/01_toy/01_toy.html").read_text()
    assert "This cell ran hidden tests" not in html  # it failed at the visible check: no hidden check ran
    assert "very secret" not in html and "-40" not in html


def test_grade_reads_an_exchange(course_repo, tmp_path, run_course):
    """Is the latest submission per student taken from an nbgrader exchange inbound folder?"""
    inbound = tmp_path / "exchange/seqmodels/inbound"
    for stamp, folder in (
        ("2026-01-01 10:00:00.000000 UTC", "notebooks"),
        ("2026-01-02 10:00:00.000000 UTC", "solutions"),
    ):
        target = inbound / f"amy+01_toy+{stamp}+abc"
        target.mkdir(parents=True)
        shutil.copy(course_repo / folder / "01_toy/01_toy.ipynb", target)
    out, _ = run_course(["grade", tmp_path / "exchange", "--course-dir", tmp_path / "ws", "--root", course_repo])
    assert any(line.split()[:5] == ["amy", "01_toy", "2", "/", "2"] for line in out.splitlines())


@pytest.mark.parametrize(
    "layout, message",
    [
        ({"amy/99_nope/x.ipynb": "{}"}, "is not a known assignment"),
        ({"amy/01_toy/01_toy.ipynb": "{not json"}, "is not a valid notebook"),
        ({"amy/01_toy/01_toy.ipynb": json.dumps({"cells": 3})}, "is not a valid notebook"),
        ({"amy/notes.txt": "hello"}, "holds no assignment folder"),
        ({"amy/01_toy/readme.txt": "no notebook"}, "holds no notebook"),
        ({"bad name!/01_toy/01_toy.ipynb": "{}"}, "is not a valid student id"),
    ],
)
def test_grade_reports_bad_submissions(course_repo, tmp_path, run_course, layout, message):
    """Does each malformed submission end as `not graded: <reason>`, the batch finishing with exit 0?"""
    for rel, text in layout.items():
        path = tmp_path / "subs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    out, _ = run_course(["grade", tmp_path / "subs", "--course-dir", tmp_path / "ws", "--root", course_repo])
    assert "not graded: " in out and message in out
    assert list((tmp_path / "ws" / "logs").rglob("*.log"))


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig"])  # utf-8-sig: a byte-order mark, as Excel writes
def test_grade_reports_student_off_roster(course_repo, tmp_path, run_course, encoding):
    """Is a student who is not on the roster reported as not graded, and the others graded (with or without a BOM)?"""
    subs = toy_submissions(tmp_path / "subs", course_repo)
    for student in ("ref", "blank"):  # one assignment shows it
        shutil.rmtree(subs / student / "02_toy")
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name\nref,Ref\n", encoding=encoding)
    out, _ = run_course(["grade", subs, "--roster", roster, "--course-dir", tmp_path / "ws", "--root", course_repo])
    assert "not graded: blank is not on the roster" in out
    assert any(line.split()[:5] == ["ref", "01_toy", "2", "/", "2"] for line in out.splitlines())


def test_grade_prints_no_library_warning(course_repo, tmp_path):
    """Does `course grade`, run as the instructor runs it (its own process), print no warning of the libraries it
    uses?"""
    require_sandbox()
    subs = toy_submissions(tmp_path / "subs", course_repo)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "instructor",
            "grade",
            str(subs),
            "--course-dir",
            str(tmp_path / "ws"),
            "--root",
            str(course_repo),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr and "WARNING" not in done.stderr, done.stderr


def test_student_chosen_names_reach_neither_a_formula_nor_the_terminal(course_repo, tmp_path, run_course, capsys):
    """Do folder names that start a spreadsheet formula or carry terminal escapes stay inert in the
    grade table (no control byte printed) and the CSV (no cell starting with = + - @)?"""
    subs = tmp_path / "subs"
    for name in ("ref", '=HYPERLINK("http://x")', "+1+1", "@SUM(A1)", "amy\x1b[2J\x1b]0;owned\x07", "bob\u202eevil"):
        (subs / name / "01_toy").mkdir(parents=True)
        shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", subs / name / "01_toy")
    out, err = run_course(["grade", subs, "--course-dir", tmp_path / "cd", "--root", course_repo])
    for text in (out, err):
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "amy\\x1b[2J" in out and "bob\\u202eevil" in out  # shown, as codes
    run_course(["export", "--course-dir", tmp_path / "cd", "--file", tmp_path / "g.csv"])
    with open(tmp_path / "g.csv", newline="") as f:
        cells = [v for row in csv.reader(f) for v in row]
    assert not [v for v in cells if v[:1] in ("=", "+", "@")], cells
    assert any(v.startswith("'=HYPERLINK") for v in cells), cells


def test_inert_cell_keeps_numbers():
    """Are negative numbers kept as numbers and only text guarded?"""
    from instructor.reporting.export import inert_cell

    assert inert_cell(-1.5) == -1.5 and inert_cell("-1") == "'-1" and inert_cell("amy") == "amy"


def test_export_to_a_folder_it_cannot_write_is_one_sentence(course_repo, tmp_path, run_course):
    """Is an export into a missing folder refused in one sentence, without a traceback?"""
    subs = tmp_path / "subs"  # one graded submission makes a gradebook to export
    (subs / "ref" / "01_toy").mkdir(parents=True)
    shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", subs / "ref" / "01_toy")
    run_course(["grade", subs, "--course-dir", tmp_path / "cd", "--root", course_repo])
    _, err = run_course(
        ["export", "--course-dir", tmp_path / "cd", "--file", tmp_path / "no" / "such" / "g.csv"], retcode=1
    )
    assert "cannot write" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def _exchange_submission(inbound, folder_name, source, owner=None, stamp_text=None):
    target = inbound / folder_name
    target.mkdir(parents=True)
    shutil.copy(source, target)
    if stamp_text is not None:
        (target / "timestamp.txt").write_text(stamp_text)
    if owner is not None:
        require_root("the test gives exchange folders to other accounts")
        for path in (target, *target.iterdir()):
            os.chown(path, owner, owner)
    return target


def test_a_folder_dropped_under_another_id_is_refused(course_repo, tmp_path, run_course, monkeypatch):
    """When mallory drops a newer folder named as amy's into the exchange, is it refused and reported,
    and amy graded from her own folder (exchange logins are the class's ids)?"""
    import instructor.grading.intake as intake

    logins = {4000: "amy", 4001: "mallory"}
    monkeypatch.setattr(intake.pwd, "getpwuid", lambda uid: type("P", (), {"pw_name": logins[uid]})())
    inbound = tmp_path / "exchange/seqmodels/inbound"
    solution, blank = course_repo / "solutions/01_toy/01_toy.ipynb", course_repo / "notebooks/01_toy/01_toy.ipynb"
    _exchange_submission(inbound, "amy+01_toy+2026-01-01 10:00:00.000000 UTC+a1", solution, owner=4000)
    _exchange_submission(inbound, "amy+01_toy+2026-01-02 10:00:00.000000 UTC+m1", blank, owner=4001)
    _exchange_submission(inbound, "mallory+01_toy+2026-01-01 11:00:00.000000 UTC+m2", blank, owner=4001)
    out, _ = run_course(["grade", tmp_path / "exchange", "--course-dir", tmp_path / "cd", "--root", course_repo])
    assert any(line.split()[:5] == ["amy", "01_toy", "2", "/", "2"] for line in out.splitlines()), out
    assert "not graded: it claims to be amy's but was made by mallory" in out, out


def test_the_deadline_counts_from_when_the_exchange_received_the_files(course_repo, tmp_path, run_course):
    """Is a submission whose stamps (folder name, timestamp.txt) claim a time before the deadline, but which
    reached the exchange after it, penalised as late, with a note saying why?"""
    run_course(["init", tmp_path / "cd", "--late-penalty", "10", "--due", "01_toy=2026-01-01 12:00 UTC"])
    inbound = tmp_path / "exchange/seqmodels/inbound"
    early = "2026-01-01 09:00:00.000000 UTC"
    _exchange_submission(
        inbound, f"amy+01_toy+{early}+a1", course_repo / "solutions/01_toy/01_toy.ipynb", stamp_text=early
    )
    out, _ = run_course(["grade", tmp_path / "exchange", "--course-dir", tmp_path / "cd", "--root", course_repo])
    line = next(line for line in out.splitlines() if line.startswith("amy "))
    assert line.split()[9] == "-2", line  # 10 % a day, capped at the whole score: it arrived months late
    result = json.loads((tmp_path / "cd/results/amy/01_toy.json").read_text())
    assert any("the arrival time counts" in n for n in result["notes"]), result


def test_a_name_that_is_no_student_id_is_refused_at_intake_from_an_exchange(course_repo, tmp_path, run_course):
    """Is an exchange folder named `josé+...` (not a valid id) reported as not graded, never graded then dropped?"""
    inbound = tmp_path / "exchange/seqmodels/inbound"
    _exchange_submission(
        inbound, "josé+01_toy+2026-01-01 10:00:00.000000 UTC+j1", course_repo / "solutions/01_toy/01_toy.ipynb"
    )
    _exchange_submission(
        inbound, "amy+01_toy+2026-01-01 10:00:00.000000 UTC+a1", course_repo / "solutions/01_toy/01_toy.ipynb"
    )
    out, _ = run_course(["grade", tmp_path / "exchange", "--course-dir", tmp_path / "cd", "--root", course_repo])
    assert "josé" in out and "not graded: the folder name is not a valid student id" in out, out
    run_course(["export", "--course-dir", tmp_path / "cd", "--file", tmp_path / "g.csv"])
    with open(tmp_path / "g.csv", newline="") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    assert rows["josé"]["status"] == "not graded" and rows["amy"]["score"] == "2.0"
