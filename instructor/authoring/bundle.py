"""Build a student bundle: the released assignments named, and nothing else.

A public repository shows everything, hidden tests and reference answers
included (``solutions/``, and the given cells of ``notebooks/02_seq2seq`` and
``notebooks/03_attention``). Instructors grade from a private copy and hand
students a bundle::

    <bundle>/README.md                 how to install and start (generated)
    <bundle>/<a>/<a>.ipynb             the student version, from a fresh release
    <bundle>/<a>/...                   the assignment's data (e.g. cipher_data.npz)
    <bundle>/helpers/pyproject.toml    a tiny package: `pip install ./helpers`
    <bundle>/helpers/course/           the student package, as it is in the repository

The student package (``course/``: quick mode, live plots, explorers, the data
loader of 04) is copied whole when the bundle is built, so it exists once in
the source; it imports nothing of the grader. No solution, hidden test, mark scheme,
instructor tool or unnamed assignment goes in; :func:`check_bundle` verifies
it before the bundle is written.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import tomllib
import zipfile
from pathlib import Path

from instructor.authoring.given import given_refs
from instructor.authoring.leaks import secret_lines
from instructor.authoring.release import release, resolve_assignments
from instructor.cells import has_marker, read
from instructor.errors import CourseError
from instructor.paths import REPO_ROOT, notebook_path

#: The package the notebooks import, shipped whole.
STUDENT_PACKAGE = "course"
#: Packages (by distribution name) a student needs to run the notebooks.
STUDENT_REQUIREMENTS = ("jupyterlab", "notebook", "numpy", "mygrad", "mynn", "noggin", "matplotlib", "ipywidgets")
HELPERS_NAME = "seqmodels-course-helpers"


def requirements(root: Path = REPO_ROOT) -> list[str]:
    """The student requirements with the ranges of the course's pyproject.toml."""
    deps = tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]
    by_name = {re.split(r"[<>=!~ \[;]", d, maxsplit=1)[0].lower(): d for d in deps}
    return [by_name[name] for name in STUDENT_REQUIREMENTS]


def write_helpers(target: Path, root: Path = REPO_ROOT) -> None:
    """The installable helper package: the student package ``course/`` as it is, and its requirements."""
    shutil.copytree(root / STUDENT_PACKAGE, target / STUDENT_PACKAGE, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    deps = "".join(f'    "{d}",\n' for d in requirements(root))
    (target / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n\n'
        f'[project]\nname = "{HELPERS_NAME}"\nversion = "0.1.0"\nrequires-python = ">=3.11,<3.13"\n'
        f"dependencies = [\n{deps}]\n\n"
        '[tool.setuptools]\npackages = ["course"]\n'
    )


def _readme(names: list[str]) -> str:
    first = names[0]
    return (
        f"# Sequence models: {', '.join(names)}\n\n"
        "Set up once (Python 3.11 or 3.12), from this folder:\n\n"
        "```bash\npip install ./helpers\njupyter lab\n```\n\n"
        "The first line installs the helper modules the notebooks import (quick mode, live plots\n"
        "and explorers), the data loader of the last assignment, and the packages they need.\n\n"
        f"Open `{first}/{first}.ipynb`. Replace every `raise NotImplementedError()` with your code,\n"
        "run the self-check cell under it, then the graded test cells. Start JupyterLab with\n"
        "`COURSE_QUICK=1` to run a whole notebook in seconds (short training). Hand in the notebook\n"
        "as your instructor asks.\n"
    )


def check_bundle(folder: Path, names: list[str], solutions: Path) -> list[str]:
    """Problems that would make the bundle give something away (empty when clean)."""
    problems = []
    allowed_top = {"README.md", "helpers", *names}
    for path in sorted(folder.iterdir()):
        if path.name not in allowed_top:
            problems.append(f"{path.name} is not a named assignment, the helpers or the README")
    for name in names:
        secret = secret_lines(read(notebook_path(name, solutions)))
        for nb_path in sorted((folder / name).rglob("*.ipynb")):
            for cell in read(nb_path).cells:
                if has_marker(cell.source):
                    problems.append(f"{nb_path.relative_to(folder)} still holds nbgrader markers")
                if given_refs(cell):
                    continue
                leaked = [ln.strip() for ln in cell.source.splitlines() if ln.strip() in secret]
                if leaked:
                    problems.append(f"{nb_path.relative_to(folder)} shows a solution line: {leaked[0][:60]!r}")
    return problems


def build(names: list[str], to: Path, make_zip: bool = False, force: bool = False, root: Path = REPO_ROOT) -> list[Path]:
    """Write the bundle folder ``to`` (and ``to.zip``); returns what was written."""
    solutions = root / "solutions"
    if not names:
        raise CourseError("Name the assignments to bundle, e.g. `course bundle 01_rnn`.")
    names = resolve_assignments(solutions, names)
    if to.exists() and any(to.iterdir()) and not force:
        raise CourseError(f"{to} exists and is not empty; choose another --to or pass --force to replace it.")
    with tempfile.TemporaryDirectory(prefix="course-bundle-") as tmp:
        scratch = Path(tmp)
        # a fresh release from a scratch copy: the bundle never depends on a stale notebooks/
        shutil.copytree(solutions, scratch / "solutions", ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        release(scratch, names)
        staged = scratch / "bundle"
        staged.mkdir()
        for name in names:
            shutil.copytree(scratch / "notebooks" / name, staged / name)
        write_helpers(staged / "helpers", root)
        (staged / "README.md").write_text(_readme(names))
        problems = check_bundle(staged, names, scratch / "solutions")
        if problems:
            raise CourseError(f"The bundle would give something away: {problems[0]}.")
        if to.exists():
            shutil.rmtree(to)
        shutil.copytree(staged, to)
    written = [to]
    if make_zip:
        archive = to.with_name(to.name + ".zip")
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
            for path in sorted(to.rglob("*")):
                if path.is_file():
                    zf.write(path, Path(to.name) / path.relative_to(to))
        written.append(archive)
    return written
