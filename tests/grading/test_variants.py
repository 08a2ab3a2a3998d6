"""Each student's own parameters (issue 63's notebook variants): drawn from a seed of her own, graded with it.

An assignment that calls :func:`course.draws.variant` gives every rostered
student her own parameters. Her kernel finds her seed in the release's
``variants.json``; the grader derives it from the course's key and sets it
itself, so the grade comes from her code run again with her own parameters,
and an answer copied from a classmate (or the author) loses the checks.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from nbgrader.api import Gradebook

from course import draws
from instructor.cli import main
from instructor.coursedir import hidden_seed
from instructor.coursedir.course_dir import CourseDir
from tests import factories
from tests.factories import solution_cell

CHOICES = range(3, 40)


@pytest.fixture(autouse=True)
def _author_variant():
    draws.use_variant(None)
    yield
    draws.use_variant(None)


def _variant_of(seed: int | None) -> int:
    draws.use_variant(seed)
    try:
        return draws.variant("n", CHOICES)
    finally:
        draws.use_variant(None)


# -- the draw ------------------------------------------------------------------------------------------------


def test_a_variant_is_the_same_for_a_seed_and_spreads_over_the_choices():
    assert _variant_of(7) == _variant_of(7)
    seen = {_variant_of(seed) for seed in range(400)}
    assert seen == set(CHOICES)
    draws.use_variant(7)
    assert draws.variant("n", CHOICES) != draws.variant("m", CHOICES) or draws.variant("k", CHOICES) != draws.variant(
        "n", CHOICES
    )  # each parameter has a stream of its own


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_a_variant_seed_is_a_non_negative_int(bad):
    with pytest.raises(ValueError, match="non-negative int"):
        draws.use_variant(bad)


@pytest.mark.parametrize(("name", "choices"), [("", CHOICES), ("n", []), ("n", "abc"), ("n", {1, 2})])
def test_a_variant_names_its_parameter_and_draws_from_a_sequence(name, choices):
    with pytest.raises(ValueError):
        draws.variant(name, choices)


def test_the_kernel_finds_its_student_in_variants_json_and_the_graders_seed_wins(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(draws.VARIANT_ENV, raising=False)
    monkeypatch.setenv("JUPYTERHUB_USER", "amy")
    assert draws.variant("n", CHOICES) == _variant_of(draws.AUTHOR_SEED)  # no file: the author's
    (tmp_path / draws.VARIANTS_FILE).write_text(json.dumps({"students": {"amy": 11, "bob": 12}}))
    assert draws.variant("n", CHOICES) == _variant_of(11)
    monkeypatch.setenv("JUPYTERHUB_USER", "bob")
    assert draws.variant("n", CHOICES) == _variant_of(12)
    monkeypatch.setenv(draws.VARIANT_ENV, "13")  # the grader's, in the kernel's environment
    assert draws.variant("n", CHOICES) == _variant_of(13)
    draws.use_variant(14)  # the grader's, in a test cell and in the judge
    assert draws.variant("n", CHOICES) == _variant_of(14)
    draws.use_variant(None)
    monkeypatch.delenv(draws.VARIANT_ENV)
    monkeypatch.setenv("JUPYTERHUB_USER", "cy")
    capsys.readouterr()
    assert draws.variant("n", CHOICES) == draws.variant("n", CHOICES) == _variant_of(draws.AUTHOR_SEED)
    told = capsys.readouterr().out
    assert told.count("holds no variant for 'cy'") == 1 and "default parameters" in told


def test_a_students_variant_seed_is_hers_alone_and_not_her_hidden_seed():
    key = bytes(range(32))
    amy = hidden_seed.variant_seed_for(key, "01_var", "amy")
    assert amy == hidden_seed.variant_seed_for(key, "01_var", "amy")
    assert amy != hidden_seed.variant_seed_for(key, "01_var", "bob")
    assert amy != hidden_seed.variant_seed_for(key, "02_var", "amy")
    assert amy != hidden_seed.variant_seed_for(bytes(32), "01_var", "amy")
    assert amy not in {hidden_seed.seed_for(key, "01_var", "amy", sha) for sha in ("", "ab" * 32)}
    assert 0 <= amy < 2**63


# -- a class graded with its variants ------------------------------------------------------------------------

SETUP = 'from course.draws import variant\n\nn = variant("n", range(3, 40))\nprint(f"Your n is {n}.")\n'
ANSWER = "### BEGIN SOLUTION\ntotal = sum(range(n))\n### END SOLUTION\n"
CHECK = (
    '# Check that total is the sum of 0 .. n-1\nanswer = total\nassert isinstance(answer, int), "total is an int"\n'
    "### BEGIN HIDDEN TESTS\nfrom course.draws import variant\n\n"
    'expected = sum(range(variant("n", range(3, 40))))\n'
    'assert answer == expected, "total is not the sum of your own range"\n'
    "### END HIDDEN TESTS\n"
)
KEY = bytes(range(100, 132))


def _variant_notebook():
    nb = new_notebook(
        cells=[
            new_markdown_cell("# Your own n\n\nEach of you gets an n of your own."),
            new_code_cell(SETUP),
            solution_cell("total", ANSWER, library=False),
            factories.test_cell("total__values", "total", CHECK, points=2),
        ]
    )
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def _submit(subs, student, nb):
    folder = subs / student / "01_var"
    folder.mkdir(parents=True)
    nbformat.write(nb, str(folder / "01_var.ipynb"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A class of three graded on 01_var: amy honest, bob with amy's total written in, cy honest but off the
    roster at release (she joined later; she is graded with her own n all the same)."""
    tmp = tmp_path_factory.mktemp("variants")
    repo, cd, subs = tmp / "repo", tmp / "cd", tmp / "subs"
    folder = repo / "solutions" / "01_var"
    folder.mkdir(parents=True)
    nbformat.write(_variant_notebook(), str(folder / "01_var.ipynb"))
    (tmp / "class.csv").write_text("id,first_name,last_name,email\namy,Amy,A,\nbob,Bob,B,\n")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for args in (
            ["generate", "--root", repo],
            ["init", cd],
            ["roster", "import", tmp / "class.csv", "--course-dir", cd],
        ):
            assert main([str(a) for a in args]) == 0
    key = CourseDir.at(cd).hidden_key
    key.write_text(KEY.hex() + "\n")
    key.chmod(0o600)
    n = {s: _variant_of(hidden_seed.variant_seed_for(KEY, "01_var", s)) for s in ("amy", "bob", "cy")}
    assert len(set(n.values())) == 3, n  # the key above gives the three their own n
    student = nbformat.read(str(repo / "notebooks" / "01_var" / "01_var.ipynb"), as_version=4)
    honest = _fill(student, "total = sum(range(n))")
    _submit(subs, "amy", honest)
    _submit(subs, "bob", _fill(student, f"total = {sum(range(n['amy']))}"))
    _submit(subs, "cy", honest)
    shutil.copy(tmp / "class.csv", tmp / "later.csv")
    with contextlib.redirect_stdout(out):
        # cy joins after 01_var was made (the first `course grade` releases it): the release knows only amy, bob
        assert main(["grade", str(subs), "--course-dir", str(cd), "--root", str(repo), "--student", "amy"]) == 0
        (tmp / "cy.csv").write_text("id,first_name,last_name,email\ncy,Cy,C,\n")
        assert main(["roster", "import", str(tmp / "cy.csv"), "--course-dir", str(cd)]) == 0
        released = json.loads((cd / "release" / "01_var" / draws.VARIANTS_FILE).read_text())
        assert main(["grade", str(subs), "--course-dir", str(cd), "--root", str(repo)]) == 0
    return {"cd": cd, "n": n, "released": released, "out": out.getvalue()}


def _fill(student_nb, answer: str):
    nb = nbformat.from_dict(json.loads(nbformat.writes(student_nb)))
    for cell in nb.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "total":
            cell.source = answer
    return nb


def _score(cd, student) -> float:
    with Gradebook(f"sqlite:///{cd / 'gradebook.db'}") as gb:
        return gb.find_submission("01_var", student).score


def test_the_release_carries_each_rostered_students_variant_seed(graded):
    released = graded["released"]
    assert released["assignment"] == "01_var"
    assert released["students"] == {s: hidden_seed.variant_seed_for(KEY, "01_var", s) for s in ("amy", "bob")}
    source = json.loads((graded["cd"] / "source" / "01_var" / draws.VARIANTS_FILE).read_text())
    assert source["students"]["cy"] == hidden_seed.variant_seed_for(KEY, "01_var", "cy")  # released again: now hers


def test_honest_work_earns_full_marks_with_each_students_own_parameters(graded):
    assert _score(graded["cd"], "amy") == 2
    assert _score(graded["cd"], "cy") == 2


def test_an_answer_worked_out_with_a_classmates_parameters_loses_the_hidden_check(graded):
    assert _score(graded["cd"], "bob") == 0


def test_the_graded_kernel_drew_the_students_own_parameters(graded):
    for student in ("amy", "bob", "cy"):
        path = graded["cd"] / "autograded" / student / "01_var" / "01_var.ipynb"
        shown = "".join(
            "".join(out.get("text", ""))
            for cell in nbformat.read(str(path), as_version=4).cells
            for out in cell.get("outputs", [])
        )
        assert f"Your n is {graded['n'][student]}." in shown


def test_a_classroom_kernel_shows_the_student_her_own_parameters(graded, tmp_path, monkeypatch):
    released = graded["cd"] / "release" / "01_var"
    shutil.copytree(released, tmp_path / "01_var")
    monkeypatch.chdir(tmp_path / "01_var")
    monkeypatch.delenv(draws.VARIANT_ENV, raising=False)
    monkeypatch.setenv("JUPYTERHUB_USER", "bob")
    assert os.path.isfile(draws.VARIANTS_FILE)
    assert draws.variant("n", CHOICES) == graded["n"]["bob"]
