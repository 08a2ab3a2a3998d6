"""Build a student bundle: the released assignments named, and nothing else.

A public repository shows everything, hidden tests and reference answers
included (``solutions/``, and the given cells of ``notebooks/02_seq2seq`` and
``notebooks/03_attention``). Instructors grade from a private copy and hand
students a bundle::

    <bundle>/README.md                 how to set up, work and validate (generated)
    <bundle>/<a>/<a>.ipynb             the student version, from a fresh release
    <bundle>/<a>/...                   the assignment's data (e.g. cipher_data.npz)
    <bundle>/<a>/figures/*.svg         the pictures its notebook shows (drawn by instructor/authoring/figures)
    <bundle>/helpers/pyproject.toml    a tiny package: `pip install ./helpers`
    <bundle>/helpers/course/           the student package, as it is in the repository
    <bundle>/helpers/jupyter-config/   Jupyter settings the package installs into the venv

The student package (``course/``: quick mode, live plots, explorers, the data
loader of 04) is copied whole when the bundle is built, so it exists once in the
source; it imports nothing of the autograder (the code that draws the figures is the
authors', in ``instructor/authoring/figures``: students get the SVG files). Installing the helpers also
installs nbgrader, for its Validate button, and switches off the rest of
nbgrader's interface (the formgrader, Create Assignment, the course and
assignment lists): :mod:`instructor.authoring.bundle_helpers`.

No solution, hidden test, mark scheme, instructor tool or unnamed assignment
goes in, and no file speaks of what students do not have (``solutions/``,
``tests/``, the ``course`` command, the data builder): :func:`verify_bundle`
verifies it before the bundle is written.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

from instructor.authoring.bundle_helpers import write_helpers
from instructor.authoring.bundle_readme import readme
from instructor.authoring.generate import generate, resolve_assignments
from instructor.authoring.given import given_refs
from instructor.authoring.leaks import secret_lines
from instructor.cells import grade_id, has_marker, read
from instructor.errors import CourseError
from instructor.paths import REPO_ROOT, notebook_path


def instructor_words(verbs: Iterable[str]) -> re.Pattern:
    """What a student does not have, so the bundle must not speak of it.

    The repository's ``solutions/`` and ``tests/``, a verb of the instructors'
    ``course`` command (``course bench``, ``course data build``; ``verbs``: the
    command's own, read from its parser by ``course bundle``), and the data
    builder ``course_data`` (``python -m course_data.build``).
    """
    alternatives = "|".join(sorted((re.escape(verb) for verb in verbs), key=len, reverse=True))
    return re.compile(rf"\bsolutions/|\btests/|\bcourse[ \t]+(?:{alternatives})\b|\bcourse_data\b")


def _text(path: Path) -> str | None:
    """The file's text, or None for a binary file (the data)."""
    data = path.read_bytes()
    try:
        return None if b"\0" in data else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _lines(path: Path, rel: Path):
    """(place, line) for each line a student can read: a notebook's place is its cell, another file's its line."""
    if path.suffix == ".ipynb":
        for index, cell in enumerate(read(path).cells):
            place = f"{rel} cell {index}" + (f" ({grade_id(cell)})" if grade_id(cell) else "")
            for line in cell.source.splitlines():
                yield place, line
    else:
        for number, line in enumerate((_text(path) or "").splitlines(), 1):
            yield f"{rel}:{number}", line


def instructor_mentions(folder: Path, verbs: Iterable[str]) -> list[str]:
    """Every place, in every text file of ``folder``, that speaks of what students do not have (``verbs``: the
    ``course`` command's)."""
    words = instructor_words(verbs)
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        for place, line in _lines(path, path.relative_to(folder)):
            if hit := words.search(line):
                found.append(f"{place} mentions {hit.group()!r}: {line.strip()[:160]!r}")
    return found


def verify_bundle(folder: Path, names: list[str], solutions: Path, verbs: Iterable[str]) -> list[str]:
    """Problems that would make the bundle give something away or confuse a student (empty when clean).

    ``verbs``: the ``course`` command's, which no file may name.
    """
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
    problems += instructor_mentions(folder, verbs)
    return problems


def build(
    names: list[str],
    to: Path,
    make_zip: bool = False,
    force: bool = False,
    root: Path = REPO_ROOT,
    *,
    verbs: Iterable[str],
) -> list[Path]:
    """Write the bundle folder ``to`` (and ``to.zip``); returns what was written.

    ``verbs``: the ``course`` command's (from its parser: authoring stands below the command and does not
    import it), which no file of the bundle may name.
    """
    solutions = root / "solutions"
    if not names:
        raise CourseError("Name the assignments to bundle, e.g. `course bundle 01_rnn`.")
    names = resolve_assignments(solutions, names)
    if to.exists() and any(to.iterdir()) and not force:
        raise CourseError(f"{to} exists and is not empty; choose another --to or pass --force to replace it.")
    with tempfile.TemporaryDirectory(prefix="course-bundle-") as tmp:
        scratch = Path(tmp)
        # a fresh release from a scratch copy: the bundle never depends on a stale notebooks/
        shutil.copytree(
            solutions, scratch / "solutions", ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
        )
        generate(scratch, names, text=False)  # the figures drawn now travel in each assignment folder
        staged = scratch / "bundle"
        staged.mkdir()
        for name in names:
            shutil.copytree(scratch / "notebooks" / name, staged / name)
        write_helpers(staged / "helpers", root)
        (staged / "README.md").write_text(readme(names))
        problems = verify_bundle(staged, names, scratch / "solutions", verbs)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise CourseError(f"The bundle is not fit for students: {problems[0]}{more}.")
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
