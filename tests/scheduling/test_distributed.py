"""Grading as Dask tasks: --jobs, --scheduler, worker checks and progress."""

from __future__ import annotations

import io

import pytest

from benchmarks.cluster import Cluster
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.scheduling import dispatch, workers
from instructor.scheduling.progress import Progress
from tests.factories import released_toy_class
from tests.system import require_sandbox

EXPECTED = {("ref", "01_toy"): "2", ("blank", "01_toy"): "0", ("ref", "02_toy"): "1", ("blank", "02_toy"): "0"}


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dask")
    return released_toy_class(tmp)


def _scores(out: str) -> dict:
    return {
        tuple(line.split()[:2]): line.split()[2] for line in out.splitlines() if line.startswith(("ref ", "blank "))
    }


def test_jobs_grade_on_local_dask_workers(toy, run_course, tmp_path):
    """Does --jobs 2 grade every submission on local Dask workers, as the serial run does?"""
    require_sandbox()  # `course grade` refuses to grade without it
    tmp, root = toy
    out, err = run_course(["grade", tmp / "subs", "--course-dir", tmp_path / "ws", "--root", root, "--jobs", "2"])
    assert _scores(out) == EXPECTED, out
    assert "4 graded, 0 flagged for review, 0 not graded" in out
    assert "grading: 4/4 (100 %)" in err  # not a terminal: the one-line count
    assert "Traceback" not in err and "Warning" not in err


def test_scheduler_grades_on_a_separately_started_cluster(toy, run_course, tmp_path):
    """Does --scheduler grade on `dask scheduler` + `dask worker` processes started on their own?"""
    require_sandbox()  # `course grade` refuses to grade without it
    tmp, root = toy
    with Cluster(tmp_path / "cluster", workers=1) as address:
        out, _ = run_course(
            ["grade", tmp / "subs", "--course-dir", tmp_path / "ws", "--root", root, "--scheduler", address]
        )
    assert _scores(out) == EXPECTED, out


def test_no_scheduler_is_one_sentence(toy, run_course, tmp_path, monkeypatch):
    """Is a scheduler address where nothing answers refused in one sentence, exit 1?"""
    require_sandbox()  # `course grade` refuses to grade without it
    tmp, root = toy
    monkeypatch.setattr(dispatch, "CONNECT_TIMEOUT", "2s")
    _, err = run_course(
        ["grade", tmp / "subs", "--course-dir", tmp_path / "ws", "--root", root, "--scheduler", "tcp://127.0.0.1:9"],
        retcode=1,
    )
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "no Dask scheduler answers at tcp://127.0.0.1:9" in lines[0], err


@pytest.mark.parametrize("args", [["--jobs", "0"], ["--jobs", "2", "--scheduler", "tcp://127.0.0.1:9"]])
def test_bad_jobs_are_refused(toy, run_course, tmp_path, args):
    """Are --jobs 0 and --jobs with --scheduler refused in one sentence?"""
    tmp, root = toy
    _, err = run_course(["grade", tmp / "subs", "--course-dir", tmp_path / "ws", "--root", root, *args], retcode=1)
    assert "--jobs takes a whole number of at least 1" in err


class _Elsewhere:
    """A stand-in client whose one worker has another filesystem (sees none of our paths)."""

    def scheduler_info(self):
        return {"workers": {"tcp://10.0.0.9:4000": {}}}

    def run(self, fn, *args):
        if fn is workers._worker_sees:
            args = ("/nonexistent" + args[0], *args[1:])
        return {"tcp://10.0.0.9:4000": fn(*args)}


def test_a_worker_that_cannot_see_the_course_directory_is_refused(tmp_path):
    """Is a worker without the shared filesystem refused in one sentence that says what workers need?"""
    with pytest.raises(CourseError) as err:
        workers.require_workers(_Elsewhere(), CourseDir.places_at(tmp_path), [tmp_path], unsafe=True)
    text = str(err.value)
    assert "tcp://10.0.0.9:4000 cannot grade: it cannot read the course directory" in text
    assert "on a filesystem they share with this machine" in text and "\n" not in text
    assert not list(tmp_path.glob(".course-worker-check-*"))  # the probe file is removed


def test_worker_check_sees_a_missing_submissions_folder(tmp_path):
    """Does the worker probe report a submissions folder it cannot read?"""
    token = tmp_path / ".probe"
    token.write_text("abc")
    assert workers._worker_sees(str(token), "abc", [str(tmp_path)]) == ""
    assert "cannot read the submissions folder" in workers._worker_sees(str(token), "abc", [str(tmp_path / "x")])
    assert "another" in workers._worker_sees(str(token), "xyz", [])


def test_progress_prints_counts_and_eta_without_a_terminal():
    """Without a terminal, is progress one line with counts and time left (no bar)?"""
    stream = io.StringIO()
    bar = Progress(4, done=1, stream=stream, every=0)
    bar.update()
    bar.close()
    line = stream.getvalue().strip()
    assert line.startswith("grading: 2/4 (50 %), ") and "s each, about" in line and "left" in line
    assert "\r" not in stream.getvalue()
