"""Arrival is when the bytes arrived: a late edit in place is a new arrival, and a submitted folder is sealed
(issue 42, finding 3)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from nbgrader.api import Gradebook

from instructor.coursedir import directory
from instructor.coursedir.arrivals import Arrivals, notebooks_hash
from instructor.coursedir.course_dir import ARRIVALS, CourseDir
from tests.system import require_root

STAMP = "%Y-%m-%d %H:%M:%S.%f UTC"
STUDENT = 4000  # a uid with no account: amy's, who owns her submission folder


def _submit(inbound: Path, source: Path, stamp: str) -> Path:
    """What `nbgrader submit` leaves in the exchange: amy+01_toy+<stamp>+<random>/ with the notebook and its stamp."""
    folder = inbound / f"amy+01_toy+{stamp}+r0"
    folder.mkdir(parents=True)
    shutil.copy(source, folder / "01_toy.ipynb")
    (folder / "timestamp.txt").write_text(stamp)
    return folder


def _overwrite(notebook: Path) -> None:
    """The student's edit in place: new bytes, same file (its change time moves on; waited for where it is coarse)."""
    before = os.stat(notebook).st_ctime_ns
    while True:
        notebook.write_text(
            notebook.read_text().replace(
                '"cells": [', '"cells": [{"cell_type": "markdown", "metadata": {}, "source": "late"}, ', 1
            )
        )
        if os.stat(notebook).st_ctime_ns != before:
            return
        time.sleep(0.01)


def test_bytes_changed_after_their_arrival_arrive_again(course_repo, tmp_path, run_course):
    """The finding: amy's folder is graded from the exchange before the due date; after it she overwrites her
    notebook in her own folder (made here as root: sealing, tested below, now stops her). Is the next `course
    grade` late for the new bytes (penalty above 0), with both arrivals kept in arrivals.json, the first
    unchanged?"""
    cd, inbound = tmp_path / "cd", tmp_path / "exchange/seqmodels/inbound"
    now = datetime.now(UTC)
    due = now + timedelta(seconds=2)
    run_course(
        [
            "init",
            cd,
            "--exchange",
            tmp_path / "exchange",
            "--late-penalty",
            "10",
            "--due",
            f"01_toy={due:%Y-%m-%d %H:%M:%S} UTC",
        ]
    )
    # stamped 10 minutes before it arrived (beyond the clocks' tolerance): the arrival counts, not the stamp
    folder = _submit(inbound, course_repo / "solutions/01_toy/01_toy.ipynb", f"{now - timedelta(minutes=10):{STAMP}}")
    grade = ["grade", tmp_path / "exchange", "--course-dir", cd, "--root", course_repo, "--unsafe"]
    run_course(grade)
    first = json.loads((cd / ARRIVALS).read_text())[folder.name]
    while datetime.now(UTC) <= due + timedelta(seconds=1):  # the deadline passes
        time.sleep(0.2)
    _overwrite(folder / "01_toy.ipynb")
    out, _ = run_course(grade)
    with Gradebook(f"sqlite:///{cd / 'gradebook.db'}") as gb:
        assert (gb.find_submission("01_toy", "amy").late_submission_penalty or 0.0) > 0.0, out
    kept = json.loads((cd / ARRIVALS).read_text())[folder.name]
    assert len(kept) == 2 and kept[0] == first[0] and kept[1]["at"] > f"{due:%Y-%m-%d %H:%M:%S}"
    assert kept[1]["sha256"] == notebooks_hash(folder) != kept[0]["sha256"]


def test_unchanged_bytes_keep_their_arrival_and_an_old_record_gets_its_hash(tmp_path):
    """An arrival recorded before hashes were (the time alone): is it kept for the bytes now there, and their hash
    added; and do the same bytes read again keep that time?"""
    cd = tmp_path / "cd"
    directory.init(cd)
    folder = tmp_path / "inbound/amy+01_toy+stamp+r0"
    folder.mkdir(parents=True)
    (folder / "01_toy.ipynb").write_text("{}")
    (cd / ARRIVALS).write_text(json.dumps({folder.name: "2026-01-01 10:00:00.000000 UTC"}))
    arrivals = Arrivals(CourseDir.places_at(cd))
    assert arrivals.of(folder) == "2026-01-01 10:00:00.000000 UTC"
    arrivals.save()
    assert json.loads((cd / ARRIVALS).read_text())[folder.name] == [
        {"at": "2026-01-01 10:00:00.000000 UTC", "sha256": notebooks_hash(folder)}
    ]
    assert Arrivals(CourseDir.places_at(cd)).of(folder) == "2026-01-01 10:00:00.000000 UTC"


def test_a_submitted_folder_is_no_longer_the_students_to_write(course_repo, tmp_path, run_course):
    """amy's folder in the exchange is hers (nbgrader's submit leaves it so). After `course grade` as root reads it,
    can her account neither write her notebook nor add a file to the folder, while it still reads them?"""
    require_root("sealing a folder needs root")
    exchange = Path(tempfile.mkdtemp(prefix="course-exchange-"))  # pytest's own folder is root's 0700
    try:
        exchange.chmod(0o755)
        inbound = exchange / "seqmodels/inbound"
        cd = tmp_path / "cd"
        run_course(["init", cd, "--exchange", exchange])
        folder = _submit(inbound, course_repo / "solutions/01_toy/01_toy.ipynb", datetime.now(UTC).strftime(STAMP))
        for path in (folder, *folder.iterdir()):
            os.chown(path, STUDENT, STUDENT)
        run_course(["grade", exchange, "--course-dir", cd, "--root", course_repo, "--unsafe"])
        assert {os.stat(p).st_uid for p in (folder, *folder.iterdir())} == {0}

        pid = os.fork()
        if pid == 0:  # amy's account tries
            code = 3
            try:
                os.setgroups([STUDENT])
                os.setgid(STUDENT)
                os.setuid(STUDENT)
                code = 0
                (folder / "01_toy.ipynb").read_bytes()
                for attempt in (
                    lambda: (folder / "01_toy.ipynb").open("a"),
                    lambda: (folder / "new.ipynb").touch(),
                    lambda: os.chmod(folder, 0o777),
                ):
                    try:
                        attempt()
                        code += 1  # one more thing she could still change
                    except PermissionError:
                        pass
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        shutil.rmtree(exchange)
