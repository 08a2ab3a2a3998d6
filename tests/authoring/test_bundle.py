"""`course bundle`: students receive the named assignments, their data and helpers, and nothing else."""

from __future__ import annotations

import zipfile
from pathlib import Path

import nbformat
import pytest

from instructor.authoring.leaks import secret_lines
from instructor.authoring.trial import QUICK_ENV, run_trial
from instructor.cells import read
from instructor.paths import SOLUTIONS, existing_assignments, notebook_path

ASSIGNMENTS = existing_assignments(SOLUTIONS)


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def _secret_lines(name: str) -> set[str]:
    """The solution, hidden-test and mark-scheme lines of an assignment (long enough to be telling)."""
    return secret_lines(read(notebook_path(name, SOLUTIONS)))


@pytest.fixture(scope="module")
def bundle_01(tmp_path_factory):
    from instructor.cli import main

    to = tmp_path_factory.mktemp("bundle") / "week1"
    assert main(["bundle", "01_rnn", "--to", str(to), "--zip"]) == 0
    return to


def test_bundle_holds_only_the_named_assignment(bundle_01):
    """Does the bundle of 01 hold its notebook, the helpers and a README, and nothing else?"""
    files = _files(bundle_01)
    assert files == {
        "README.md", "01_rnn/01_rnn.ipynb",
        "helpers/pyproject.toml", "helpers/course/__init__.py", "helpers/course/runtime.py", "helpers/course/plotting.py",
        "helpers/course/explorers.py", "helpers/course/cipher_data.py",
    }
    assert "helpers/course/cipher_data.py" in files
    assert not any(later in f for f in files for later in ASSIGNMENTS[1:]), "a later assignment is in the bundle"
    with zipfile.ZipFile(bundle_01.with_name("week1.zip")) as zf:
        assert {n.split("/", 1)[1] for n in zf.namelist()} == files


def test_bundle_gives_nothing_away(bundle_01):
    """Is there no solution, hidden test, mark scheme or instructor tool anywhere in the bundle?"""
    secrets = _secret_lines("01_rnn")
    for rel in _files(bundle_01):
        text = (bundle_01 / rel).read_text(errors="replace")
        assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text and "MARK SCHEME" not in text, rel
        if rel.endswith(".ipynb"):
            for cell in nbformat.read(str(bundle_01 / rel), as_version=4).cells:
                leaked = [ln.strip() for ln in cell.source.splitlines() if ln.strip() in secrets]
                assert not leaked, f"{rel} shows {leaked[0]!r}"
    assert not (bundle_01 / "helpers/instructor").exists() and not (bundle_01 / "helpers/course_data").exists()


@pytest.mark.notebook
def test_a_bundled_notebook_runs_with_the_bundle_alone(tmp_path, run_course):
    """Does 04's reference solution run inside a bundle, importing the bundle's helpers and data, not this repository's?"""
    to = tmp_path / "week4"
    run_course(["bundle", "04_transformer", "--to", to])
    nb = read(notebook_path("04_transformer", SOLUTIONS))
    # forget this repository's editable install, as on a student's machine
    probe = nbformat.v4.new_code_cell(
        "import sys, importlib.util\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]\n"
        "import course, course.cipher_data\n"
        f"assert course.__file__.startswith({str(to)!r}), course.__file__\n"
        f"assert course.cipher_data.__file__.startswith({str(to)!r}), course.cipher_data.__file__\n"
        "assert importlib.util.find_spec('instructor') is None, 'the instructor tools are importable'\n"
        "assert importlib.util.find_spec('course_data') is None, 'the data builder is importable'\n"
    )
    nb.cells.insert(0, probe)
    run = run_trial(nb, cwd=to / "04_transformer", skip_tags=("slow",), env={**QUICK_ENV, "PYTHONPATH": str(to / "helpers")})
    errors = [(c.index, c.error, c.evalue[:200]) for c in run.errors()]
    assert not errors
    assert run.graded() and not run.failed_tests()


def test_bundle_refuses_to_overwrite_and_unknown_names(tmp_path, run_course):
    """Does `course bundle` keep an existing folder and reject an unknown assignment, in one sentence each?"""
    to = tmp_path / "busy"
    to.mkdir()
    (to / "notes.txt").write_text("mine")
    _, err = run_course(["bundle", "01_rnn", "--to", to], retcode=1)
    assert "is not empty" in err and len(err.strip().splitlines()) == 1
    assert (to / "notes.txt").read_text() == "mine"
    _, err = run_course(["bundle", "05_nothing", "--to", tmp_path / "x"], retcode=1)
    assert "no assignment '05_nothing'" in err and len(err.strip().splitlines()) == 1


def test_bundle_names_given_answers(tmp_path, run_course):
    """Does bundling 02 say that it holds 01's reference answers?"""
    out, _ = run_course(["bundle", "02_seq2seq", "--to", tmp_path / "week2"])
    assert "02_seq2seq holds the reference answers of 01_rnn" in out
    assert not (tmp_path / "week2/01_rnn").exists()
