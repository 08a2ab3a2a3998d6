"""`course demo`: the README's main job, on the embedded defaults."""

from __future__ import annotations

import subprocess

import pytest

from instructor.paths import REPO_ROOT
from tests.factories import assert_one_sentence_error


@pytest.mark.notebook
def test_demo_runs_the_main_job_outside_the_repo(run_course, tmp_path, monkeypatch):
    """Does `course demo` pass on the first assignment and leave the repository untouched, also where no memory
    and process limit can be set (a user who is not root: it failed there, "not graded cleanly"), saying that it
    runs the course's own notebooks without them? (The sandboxed demo is `.ci/run`'s first command.)"""
    from instructor import demo
    from instructor.sandbox import Isolation

    no_root = Isolation("none", "none: student code runs with the grader's rights (not root)", False, False)
    monkeypatch.setattr(demo.sandbox, "detect", lambda: no_root)
    before = subprocess.run(["git", "status", "--porcelain"], cwd=REPO_ROOT, capture_output=True, text=True).stdout
    out, _ = run_course(["demo", "01_rnn", "--scratch", tmp_path / "demo"])
    assert "demo passed" in out
    assert "no memory and process limits here" in out and "without one" in out
    rows = {
        tuple(line.split()[:2]): line.split()[2:5]
        for line in out.splitlines()
        if line.startswith(("reference", "blank"))
    }
    score, _, top = rows[("reference", "01_rnn")]
    assert score == top and float(top) > 0, out
    assert rows[("blank", "01_rnn")][0] == "0", out
    after = subprocess.run(["git", "status", "--porcelain"], cwd=REPO_ROOT, capture_output=True, text=True).stdout
    assert before == after


def test_demo_never_empties_a_folder_of_other_files(run_course, tmp_path):
    """Is a --scratch folder that holds other files refused in one sentence, and left as it was?"""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    _, err = run_course(["demo", "01_rnn", "--scratch", folder], retcode=1)
    assert_one_sentence_error(err)
    assert "notes.txt" in err
    assert (folder / "notes.txt").read_text() == "keep me"
