"""Given cells: code a student already wrote in an earlier assignment, generated from its origin.

A given cell is a locked code cell with ``metadata.course.given`` listing
``"<assignment>:<grade_id>"`` references. Its source is generated from those
cells of earlier solution notebooks, solution markers removed, so the code
exists once, in the notebook that teaches it.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from instructor.cells import find_cell, grade_id, read, strip_markers
from instructor.paths import SOLUTIONS, notebook_path

GIVEN_HEADER = (
    "# Given code from earlier assignments (locked).\n"
    "# It is the reference solution, so your mark here does not depend on an earlier one.\n"
)


def given_refs(cell) -> list[str]:
    """The ``"<assignment>:<grade_id>"`` references of a given cell, else []."""
    return list(cell.get("metadata", {}).get("course", {}).get("given", []))


def given_source(refs: list[str], solutions: Path = SOLUTIONS) -> str:
    """The generated source of a given cell: the referenced cells, markers removed."""
    parts = [GIVEN_HEADER]
    cache: dict[str, nbformat.NotebookNode] = {}
    for ref in refs:
        assignment, _, gid = ref.partition(":")
        if assignment not in cache:
            cache[assignment] = read(notebook_path(assignment, solutions))
        try:
            cell = find_cell(cache[assignment], gid)
        except KeyError:
            raise KeyError(f"given cell refers to {ref!r}, but {assignment} has no cell {gid!r}") from None
        parts.append(f"\n# --- from {assignment}: {gid} ---\n")
        parts.append(strip_markers(cell.source).strip() + "\n")
    return "".join(parts).rstrip() + "\n"


def sync_given(path: Path, solutions: Path = SOLUTIONS, write: bool = True) -> list[str]:
    """Regenerate the given cells of one solution notebook.

    Returns the grade_ids of the given cells that were out of date (and, with
    ``write``, were rewritten).
    """
    nb = read(path)
    stale = []
    for cell in nb.cells:
        refs = given_refs(cell)
        if not refs:
            continue
        fresh = given_source(refs, solutions)
        if cell.source != fresh:
            stale.append(grade_id(cell) or "<given cell>")
            cell.source = fresh
    if stale and write:
        nbformat.write(nb, str(path))
    return stale


def given_sources(names: list[str], folder: Path) -> dict[str, set[str]]:
    """For each named assignment under ``folder``, the earlier assignments whose answers its given cells hold."""
    out = {}
    for name in names:
        refs = {ref.partition(":")[0] for cell in read(notebook_path(name, folder)).cells for ref in given_refs(cell)}
        if refs:
            out[name] = refs
    return out
