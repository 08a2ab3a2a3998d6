"""`course bundle`: students receive the named assignments, their data and helpers, and nothing else."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
import zipfile
from pathlib import Path

import nbformat
import pytest

from instructor.authoring.bundle import build, instructor_words, verify_bundle
from instructor.authoring.bundle_helpers import JUPYTER_CONFIG, LAB_PLUGINS_OFF, SERVER_EXTENSIONS_OFF, requirements
from instructor.authoring.bundle_readme import readme
from instructor.authoring.leaks import secret_lines
from instructor.authoring.trial import QUICK_ENV, run_trial
from instructor.cells import read
from instructor.cli import build_parser
from instructor.errors import CourseError
from instructor.paths import REPO_ROOT, SOLUTIONS, existing_assignments, notebook_path
from tests.factories import edit_notebook, make_course

ASSIGNMENTS = existing_assignments(SOLUTIONS)
#: the `course` command's verbs, as `course bundle` hands them to the bundle: read from its parser
VERBS = build_parser().parse_args(["bundle", "01_toy"]).verbs


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
    """Does the bundle of 01 hold its notebook and figures, the helpers (the student package without the
    code that draws the figures) and a README, and nothing else?"""
    files = _files(bundle_01)
    package = REPO_ROOT / "course"
    student_package = {
        f"helpers/course/{p.relative_to(package).as_posix()}"
        for p in package.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and "diagrams" not in p.parts
    }
    assert files == {
        "README.md",
        "01_rnn/01_rnn.ipynb",
        "01_rnn/figures/rnn_unrolled.svg",
        "helpers/pyproject.toml",
        *student_package,
        "helpers/jupyter-config/labconfig/page_config.json",
        "helpers/jupyter-config/nbgrader_config.json",
        *(f"helpers/jupyter-config/jupyter_server_config.d/{name}.json" for name in SERVER_EXTENSIONS_OFF),
    }
    assert {"helpers/course/runtime.py", "helpers/course/figures/training.py", "helpers/course/cipher_data.py"} <= files
    assert not any("diagrams" in f for f in files)
    drawn = (SOLUTIONS / "01_rnn/figures/rnn_unrolled.svg").read_bytes()
    assert (bundle_01 / "01_rnn/figures/rnn_unrolled.svg").read_bytes() == drawn
    assert not any(later in f for f in files for later in ASSIGNMENTS[1:]), "a later assignment is in the bundle"
    with zipfile.ZipFile(bundle_01.with_name("week1.zip")) as zf:
        assert {n.split("/", 1)[1] for n in zf.namelist()} == files


def test_helpers_install_every_module_of_the_student_package(bundle_01, tmp_path):
    """Does a wheel of helpers/ (what `pip install ./helpers` installs) hold every module of course/, its
    subpackages (course.figures) included?"""
    import subprocess
    import sys

    helpers = shutil.copytree(bundle_01 / "helpers", tmp_path / "helpers")  # pip builds in the folder: a copy
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "wheel"),
            str(helpers),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = (tmp_path / "wheel").glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        packaged = {name for name in zf.namelist() if name.startswith("course/") and name.endswith(".py")}
    modules = {f"course/{p.relative_to(helpers / 'course').as_posix()}" for p in (helpers / "course").rglob("*.py")}
    assert "course/figures/attention.py" in modules
    assert packaged == modules, sorted(modules - packaged)


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
    """Does 04's reference solution run inside a bundle, importing the bundle's helpers and data, not this
    repository's?"""
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
    run = run_trial(
        nb, cwd=to / "04_transformer", skip_tags=("slow",), env={**QUICK_ENV, "PYTHONPATH": str(to / "helpers")}
    )
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


# --- what a student reads and installs (a toy course: independent of the real notebooks' prose) ---

STUDENT_PACKAGE_DOC = '"""The helpers the toy notebooks import."""\n'


def toy_root(root: Path) -> Path:
    """A toy course repository a bundle can be built from: toy solutions, this pyproject.toml, a one-line ``course``."""
    make_course(root)
    shutil.copy(REPO_ROOT / "pyproject.toml", root)
    (root / "course").mkdir()
    (root / "course/__init__.py").write_text(STUDENT_PACKAGE_DOC)
    return root


@pytest.fixture(scope="module")
def toy_bundle(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("toy-bundle")
    return build(["01_toy"], tmp / "week1", root=toy_root(tmp / "repo"), verbs=VERBS)[0]


def test_readme_sets_up_a_venv_with_one_install(toy_bundle):
    """Does the README make and activate a venv (Linux/macOS and Windows), install with one command, start
    JupyterLab and explain Validate?"""
    readme = (toy_bundle / "README.md").read_text()
    lines = {line.strip() for line in readme.splitlines()}
    assert {
        "python3 -m venv .venv",
        "source .venv/bin/activate",
        "py -m venv .venv",
        r".venv\Scripts\activate",
    } <= lines
    installs = [line for line in lines if "pip install" in line or "conda" in line]
    assert set(installs) == {"pip install ./helpers"}, installs
    assert "jupyter lab" in lines and "`01_toy/01_toy.ipynb`" in readme
    assert "3.11 or 3.12" in readme and "COURSE_QUICK=1" in readme and "as your instructor asks" in readme
    assert "**Validate**" in readme and "quick mode" in readme and "the tests that fail" in readme
    assert not instructor_words(VERBS).search(readme), instructor_words(VERBS).search(readme)


def test_readme_says_to_install_the_helpers_again_with_each_new_bundle():
    """Does the README tell students to run `pip install ./helpers` again with each new bundle (a venv set up
    from an older bundle lacks new modules such as `course.checks`)?"""
    text = readme(["01_toy"])
    again = text[text.index("## Each new bundle") :].split("\n## ")[0]
    assert "again" in again and "pip install ./helpers" in again and "ModuleNotFoundError" in again


def test_helpers_install_nbgrader_validate_and_nothing_else_of_it(toy_bundle):
    """Does helpers/pyproject.toml require nbgrader (the course's range) and install the Jupyter settings that
    keep only Validate?"""
    helpers = toy_bundle / "helpers"
    pyproject = tomllib.loads((helpers / "pyproject.toml").read_text())
    nbgrader = [d for d in requirements() if d.startswith("nbgrader")]
    assert nbgrader and nbgrader[0] in pyproject["project"]["dependencies"]
    data_files = pyproject["tool"]["setuptools"]["data-files"]
    installed = {
        f"{folder}/{Path(source).name}": helpers / source
        for folder, sources in data_files.items()
        for source in sources
    }
    assert (
        set(installed)
        == set(JUPYTER_CONFIG)
        == {
            "etc/jupyter/labconfig/page_config.json",
            "etc/jupyter/nbgrader_config.json",
            *(f"etc/jupyter/jupyter_server_config.d/{name}.json" for name in SERVER_EXTENSIONS_OFF),
        }
    )
    for target, source in installed.items():
        assert json.loads(source.read_text()) == JUPYTER_CONFIG[target], target
    page = JUPYTER_CONFIG["etc/jupyter/labconfig/page_config.json"]
    assert (
        set(page["disabledExtensions"])
        == set(LAB_PLUGINS_OFF)
        == {
            f"@jupyter/nbgrader:{p}"
            for p in ("formgrader", "create-assignment", "course-list", "assignment-list", "menu")
        }
    )
    servers = {}
    for target, content in JUPYTER_CONFIG.items():
        if "jupyter_server_config.d" in target:
            assert Path(target).name > "nbgrader.json", (
                f"{target} is merged before nbgrader.json, which turns it on again"
            )
            servers.update(content["ServerApp"]["jpserver_extensions"])
    assert servers == {
        f"nbgrader.server_extensions.{e}": False for e in ("formgrader", "course_list", "assignment_list")
    }


@pytest.mark.parametrize(
    "text",
    [
        "Compare with solutions/01_toy/01_toy.ipynb.",
        "The graders keep tests/grading in the repository.",
        "Time it with `course bench`.",
        "Rebuild the data with course data build.",
        "or `python -m course_data.build`",
    ],
)
def test_instructor_words(text):
    """Does the rule find solutions/, tests/, a `course` verb and the data builder?"""
    assert instructor_words(VERBS).search(text)


@pytest.mark.parametrize(
    "text",
    [
        "from course.runtime import pick",
        "import course.cipher_data",
        "COURSE_QUICK=1 jupyter lab",
        "the course was measured on a 2-core machine",
        "the tests that fail",
        "as your instructor asks",
    ],
)
def test_instructor_words_spare_what_students_have(text):
    """Does the rule leave the student package, quick mode and plain English alone?"""
    assert not instructor_words(VERBS).search(text)


@pytest.mark.parametrize(
    "where, change",
    [
        ("README.md", lambda path: path.write_text(path.read_text() + "\nThe answers are in solutions/.\n")),
        ("helpers/course/__init__.py", lambda path: path.write_text('"""Rebuilt by `course data build`."""\n')),
        ("helpers/pyproject.toml", lambda path: path.write_text(path.read_text() + "# see tests/\n")),
        (
            "01_toy/01_toy.ipynb",
            lambda path: edit_notebook(
                path,
                lambda nb: nb.cells.insert(1, nbformat.v4.new_markdown_cell("Time the training with `course bench`.")),
            ),
        ),
    ],
)
def test_check_bundle_refuses_instructor_words(toy_bundle, tmp_path, where, change):
    """Does verify_bundle refuse a bundle whose README, helper files or notebook prose speak of solutions/, tests/
    or a `course` verb, naming the place?"""
    folder = tmp_path / "week1"
    shutil.copytree(toy_bundle, folder)
    solutions = toy_bundle.parent / "repo/solutions"
    assert verify_bundle(folder, ["01_toy"], solutions, VERBS) == []
    change(folder / where)
    problems = verify_bundle(folder, ["01_toy"], solutions, VERBS)
    assert len(problems) == 1 and problems[0].startswith(where), problems
    if where.endswith(".ipynb"):
        assert re.match(r"01_toy/01_toy.ipynb cell 1 mentions 'course bench'", problems[0]), problems


def test_bundle_refuses_notebook_prose_with_a_course_verb(tmp_path):
    """Does `course bundle` stop, naming the cell, when a notebook's prose tells students to run a `course` command?"""
    root = toy_root(tmp_path / "repo")
    edit_notebook(
        root / "solutions/01_toy/01_toy.ipynb",
        lambda nb: nb.cells.append(nbformat.v4.new_markdown_cell("`course bench` times this notebook.")),
    )
    with pytest.raises(CourseError, match=r"01_toy/01_toy.ipynb cell 6 mentions 'course bench'"):
        build(["01_toy"], tmp_path / "week1", root=root, verbs=VERBS)
    assert not (tmp_path / "week1").exists()


def test_the_forbidden_verbs_are_the_commands_own():
    """Does `course bundle` hand the bundle rule every verb of the `course` command, read from its parser (so a
    new verb cannot slip into a bundle)?"""
    from instructor.cli import COMMANDS, RENAMED

    assert sorted(VERBS) == sorted([m.NAME for m in COMMANDS] + [m.OLD_NAME for m in RENAMED])
