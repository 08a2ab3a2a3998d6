"""The notebooks the browser test opens, written into a temporary folder.

- a *filled* notebook is the released student notebook with the reference
  answers put into its answer cells (what a student who solved everything
  hands in);
- the *untouched* notebook is the released student notebook as it is.

Nothing is written inside the repository.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat

from instructor.cells import grade_id, read, strip_markers
from instructor.paths import NOTEBOOKS, SOLUTIONS, notebook_path

# nbgrader's mark scheme (for graders) follows the model answer in a written answer
_MARK_SCHEME = re.compile(r"^\s*=+\s*BEGIN MARK SCHEME\s*=+\s*$.*", re.M | re.S)

#: A first cell for notebooks whose explorer is tested with a quickly trained
#: model: quick mode, set inside the kernel; the lab session still counts as watched.
QUICK_CELL = 'import os\n\nos.environ["COURSE_QUICK"] = "1"  # browser test: train briefly; the explorer still shows'


def filled(assignment: str) -> nbformat.NotebookNode:
    """The released notebook of ``assignment`` with every answer cell holding the reference answer."""
    answers = {
        grade_id(c): c.source
        for c in read(notebook_path(assignment, SOLUTIONS)).cells
        if c.get("metadata", {}).get("nbgrader", {}).get("solution")
    }
    nb = read(notebook_path(assignment, NOTEBOOKS))
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution"):
            source = strip_markers(answers[meta["grade_id"]])
            cell.source = _MARK_SCHEME.sub("", source).rstrip() if cell.cell_type == "markdown" else source
    return nb


def write(nb: nbformat.NotebookNode, root: Path, assignment: str, quick: bool = False) -> str:
    """Write ``nb`` as ``root/<assignment>/<assignment>.ipynb`` with the assignment's data; return its relative path."""
    folder = root / assignment
    shutil.copytree(
        NOTEBOOKS / assignment,
        folder,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("*.ipynb", ".ipynb_checkpoints"),
    )
    if quick:
        first = nbformat.v4.new_code_cell(QUICK_CELL)
        first.id = "browser-test-quick"
        nb.cells.insert(0, first)
    nbformat.write(nb, folder / f"{assignment}.ipynb")
    return f"{assignment}/{assignment}.ipynb"


def untouched(assignment: str) -> nbformat.NotebookNode:
    """The released student notebook, as a student receives it."""
    return read(notebook_path(assignment, NOTEBOOKS))
