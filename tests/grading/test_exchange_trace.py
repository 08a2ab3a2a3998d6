"""Who made a submission and when it arrived, kept from the exchange to the grade (issue 35, findings 3 and 8)."""

from __future__ import annotations

import json
import os
import shutil
import time
from datetime import UTC, datetime, timedelta

from nbgrader.api import Gradebook

from tests.system import require_root

STAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f UTC"


def _submit(inbound, student, stamp, source, owner=None):
    """What `nbgrader submit` leaves in the exchange: <student>+<a>+<stamp>+<random>/ with timestamp.txt."""
    target = inbound / f"{student}+01_toy+{stamp}+r{len(list(inbound.glob('*')))}"
    target.mkdir(parents=True)
    shutil.copy(source, target)
    (target / "timestamp.txt").write_text(stamp)
    if owner is not None:
        require_root("the test gives exchange folders to other accounts")
        for path in (target, *target.iterdir()):
            os.chown(path, owner, owner)
    return target


def _collect(cd, inbound, student):
    """`nbgrader collect --update`: the newest folder of the student, copied into submitted/ (the maker is lost)."""
    newest = sorted(inbound.glob(f"{student}+01_toy+*"))[-1]
    target = cd / "submitted" / student / "01_toy"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(newest, target)
    require_root("the test collects as root does")
    for path in (target, *target.iterdir()):
        os.chown(path, 0, 0)


def test_a_submission_made_by_another_account_is_refused_after_collect(course_repo, tmp_path, run_course, monkeypatch):
    """carl runs `nbgrader submit --student amy`; the instructor collects, then runs `course grade` (the README's
    flow): is amy's collected submission refused with its reason, as grading from the exchange refuses it?"""
    import instructor.grading.intake as intake

    logins = {4000: "amy", 4002: "carl"}
    monkeypatch.setattr(intake.pwd, "getpwuid", lambda uid: type("P", (), {"pw_name": logins[uid]})())
    cd, inbound = tmp_path / "cd", tmp_path / "exchange/seqmodels/inbound"
    run_course(["init", cd, "--exchange", tmp_path / "exchange"])
    solution, blank = course_repo / "solutions/01_toy/01_toy.ipynb", course_repo / "notebooks/01_toy/01_toy.ipynb"
    _submit(inbound, "amy", "2026-01-01 10:00:00.000000 UTC", solution, owner=4000)
    _submit(inbound, "carl", "2026-01-01 10:30:00.000000 UTC", blank, owner=4002)
    _submit(inbound, "amy", "2026-01-01 11:00:00.000000 UTC", blank, owner=4002)  # carl, as amy
    for student in ("amy", "carl"):
        _collect(cd, inbound, student)
    out, _ = run_course(["grade", "--course-dir", cd, "--root", course_repo, "--unsafe"])
    amy = next(line for line in out.splitlines() if line.startswith("amy "))
    assert (
        "not graded: it claims to be amy's but was made by carl (exchange folder amy+01_toy+2026-01-01 11:00" in amy
    ), out
    assert next(line for line in out.splitlines() if line.startswith("carl ")).split()[2:5] == ["0", "/", "2"]


def test_the_arrival_survives_a_copy_of_the_exchange(course_repo, tmp_path, run_course):
    """A folder that arrived before the deadline, graded once; then the exchange is copied (a new disk: every file's
    change time is after the deadline). Graded again from the copy, and from submitted/ after a collect, is it on
    time (no late penalty), by the course's record of its arrival?"""
    cd, inbound = tmp_path / "cd", tmp_path / "exchange/seqmodels/inbound"
    now = datetime.now(UTC)
    due = (now + timedelta(seconds=2)).strftime("%Y-%m-%d %H:%M:%S UTC")
    run_course(["init", cd, "--exchange", tmp_path / "exchange", "--late-penalty", "10", "--due", f"01_toy={due}"])
    folder = _submit(inbound, "amy", now.strftime(STAMP_FORMAT), course_repo / "solutions/01_toy/01_toy.ipynb")
    time.sleep(2.5)  # the deadline passes
    grade = ["--course-dir", cd, "--root", course_repo, "--unsafe", "--force"]
    out, _ = run_course(["grade", tmp_path / "exchange", *grade])
    assert json.loads((cd / "arrivals.json").read_text())[folder.name][0]["at"] < due.replace(" UTC", "")
    copy = tmp_path / "new-disk"
    shutil.copytree(tmp_path / "exchange", copy)  # change times: now, after the deadline
    out, _ = run_course(["grade", copy, *grade])
    assert next(ln for ln in out.splitlines() if ln.startswith("amy ")).split()[9] == "-", out  # late: "-"
    _collect(cd, copy / "seqmodels/inbound", "amy")
    run_course(["init", cd, "--exchange", copy])
    out, _ = run_course(["grade", *grade])
    with Gradebook(f"sqlite:///{cd / 'gradebook.db'}") as gb:
        assert (gb.find_submission("01_toy", "amy").late_submission_penalty or 0.0) == 0.0, out


def test_a_collected_submission_without_its_exchange_folder_is_refused(course_repo, tmp_path, run_course):
    """A collected folder whose stamp no exchange folder has: not graded (where its notebook came from, a file of
    the student or what a link pointed to, cannot be checked: issue 42), with the reason."""
    cd = tmp_path / "cd"
    run_course(["init", cd, "--exchange", tmp_path / "exchange"])
    (tmp_path / "exchange/seqmodels/inbound").mkdir(parents=True, exist_ok=True)
    target = cd / "submitted/amy/01_toy"
    target.mkdir(parents=True)
    shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", target)
    (target / "timestamp.txt").write_text("2026-01-01 10:00:00.000000 UTC")
    run_course(["grade", "--course-dir", cd, "--root", course_repo, "--unsafe"])
    reason = json.loads((cd / "results/amy/01_toy.json").read_text())["reason"]
    assert "no exchange folder of amy has its stamp" in reason and "cannot be checked" in reason, reason
