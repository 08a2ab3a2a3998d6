"""`course verify`: the committed student versions are exactly what `course generate` makes now.

Each fault is named in one line, with its file:

* drift: ``notebooks/`` differs from what ``course generate`` makes of
  ``solutions/`` (including given cells out of date with their origin);
* outputs: a committed notebook carries outputs or execution counts;
* leaks: a solution, hidden-test or mark-scheme line of ``solutions/`` appears in the
  student version (outside the given cells, which hold earlier answers on purpose);
* markers: an nbgrader marker shares its line with code or text, so nbgrader
  would cut that line away with the hidden block (or keep a secret line);
* figures: a figure file that differs from what ``instructor.authoring.figures`` draws now,
  one that no code draws, or an image a notebook shows that does not exist
  (:func:`instructor.authoring.figures.verify_figures`);
* text forms: ``solutions/<a>.py`` missing or out of sync with its notebook
  (:func:`instructor.authoring.text_form.verify_text_forms`).
"""

from __future__ import annotations

import filecmp
import shutil
import tempfile
from pathlib import Path

from instructor.authoring.figures import verify_figures
from instructor.authoring.generate import generate
from instructor.authoring.given import given_refs, sync_given
from instructor.authoring.leaks import secret_lines
from instructor.authoring.text_form import verify_text_forms
from instructor.cells import has_marker, read, regions
from instructor.errors import CourseError
from instructor.paths import existing_assignments, notebook_path


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def verify_outputs(root: Path) -> list[str]:
    problems = []
    for folder in ("solutions", "notebooks"):
        for path in sorted((root / folder).rglob("*.ipynb")):
            if ".ipynb_checkpoints" in path.parts:
                continue
            try:
                nb = read(path)
            except ValueError as err:
                problems.append(str(err))
                continue
            for i, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                if cell.get("outputs"):
                    problems.append(f"{_rel(path, root)}: cell {i} carries outputs (clear them before committing).")
                if cell.get("execution_count") is not None:
                    problems.append(
                        f"{_rel(path, root)}: cell {i} carries an execution count (clear outputs before committing)."
                    )
    return problems


def verify_given(root: Path) -> list[str]:
    problems = []
    solutions = root / "solutions"
    for name in existing_assignments(solutions):
        path = notebook_path(name, solutions)
        try:
            stale = sync_given(path, solutions, write=False)
        except (KeyError, ValueError, FileNotFoundError) as err:
            problems.append(f"{_rel(path, root)}: given cell cannot be generated ({err}).")
            continue
        for gid in stale:
            problems.append(
                f"{_rel(path, root)}: given cell {gid!r} is out of date with its origin (run `course generate`)."
            )
    return problems


def _tree(folder: Path) -> dict[str, Path]:
    return {
        _rel(p, folder): p
        for p in folder.rglob("*")
        if p.is_file() and ".ipynb_checkpoints" not in p.parts and "__pycache__" not in p.parts
    }


def verify_drift(root: Path) -> list[str]:
    """Release into a scratch copy and compare with the committed ``notebooks/``."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="course-verify-") as tmp:
        scratch = Path(tmp)
        shutil.copytree(root / "solutions", scratch / "solutions")
        try:
            # the committed figures, as they are: verify_figures compares them with the code
            generate(scratch, figures=False, text=False)
        except CourseError as err:
            return [f"generating the student versions afresh fails: {err}"]
        fresh = _tree(scratch / "notebooks")
        committed = _tree(root / "notebooks") if (root / "notebooks").is_dir() else {}
        for rel in sorted(set(fresh) - set(committed)):
            problems.append(f"notebooks/{rel} is missing (run `course generate`).")
        for rel in sorted(set(committed) - set(fresh)):
            problems.append(
                f"notebooks/{rel} is not made by `course generate` from solutions/ (remove it, or add its source)."
            )
        for rel in sorted(set(fresh) & set(committed)):
            if not filecmp.cmp(fresh[rel], committed[rel], shallow=False):
                problems.append(
                    f"notebooks/{rel} differs from what `course generate` makes of solutions/ now (run it)."
                )
    return problems


def verify_leaks(root: Path) -> list[str]:
    """Lines of a student version that stand in a solution or hidden test of ``solutions/`` (given cells aside)."""
    problems = []
    for name in existing_assignments(root / "solutions"):
        student_path = notebook_path(name, root / "notebooks")
        if not student_path.is_file():
            continue  # named as drift
        secret = secret_lines(read(notebook_path(name, root / "solutions")))
        student = read(student_path)
        for i, cell in enumerate(student.cells):
            if given_refs(cell):
                continue
            for line in cell.source.splitlines():
                if line.strip() in secret:
                    problems.append(
                        f"{_rel(student_path, root)}: cell {i} shows a solution or hidden-test line: "
                        f"{line.strip()[:60]!r}"
                    )
    return problems


def verify_markers(root: Path) -> list[str]:
    """Markers that do not stand on a line of their own in ``solutions/``."""
    problems = []
    for name in existing_assignments(root / "solutions"):
        path = notebook_path(name, root / "solutions")
        if not path.is_file():
            continue
        for i, cell in enumerate(read(path).cells):
            # regions() leaves out the marker lines that stand alone: a marker still there is glued to text
            for _, line in regions(cell.source):
                if has_marker(line):
                    problems.append(
                        f"{_rel(path, root)}: cell {i} has a marker that does not stand on a line of its own: "
                        f"{line.strip()[:60]!r}"
                    )
    return problems


def verify(root: Path) -> list[str]:
    """Every problem found under a course repository ``root`` (empty when clean)."""
    if not (root / "solutions").is_dir():
        raise CourseError(f"{root} is not a course repository: it has no solutions/ folder.")
    return (
        verify_markers(root)
        + verify_outputs(root)
        + verify_given(root)
        + verify_figures(root)
        + verify_text_forms(root)
        + verify_drift(root)
        + verify_leaks(root)
    )
