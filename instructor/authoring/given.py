"""Given cells: code a student already wrote in an earlier assignment, generated from its origin.

A given cell is a locked code cell with ``metadata.course.given`` listing
``"<assignment>:<grade_id>"`` references. Its source is generated from those
cells of earlier solution notebooks, solution markers removed, so the code
exists once, in the notebook that teaches it.
"""

from __future__ import annotations

from collections.abc import Mapping
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


def given_source(refs: list[str], earlier: Mapping[str, nbformat.NotebookNode]) -> str:
    """The generated source of a given cell: the referenced cells of the ``earlier`` solution notebooks
    (assignment -> notebook, read by :func:`synced`), markers removed. Nothing is read here."""
    parts = [GIVEN_HEADER]
    for ref in refs:
        assignment, _, gid = ref.partition(":")
        try:
            cell = find_cell(earlier[assignment], gid)
        except KeyError:
            raise KeyError(f"given cell refers to {ref!r}, but {assignment} has no cell {gid!r}") from None
        parts.append(f"\n# --- from {assignment}: {gid} ---\n")
        parts.append(strip_markers(cell.source).strip() + "\n")
    return "".join(parts).rstrip() + "\n"


def synced(path: Path, solutions: Path = SOLUTIONS) -> tuple[nbformat.NotebookNode, list[str]]:
    """One solution notebook with its given cells regenerated, in memory: (the notebook, the grade_ids of the
    given cells that were out of date).

    Everything is read first, each notebook once (``path``, then the earlier
    solutions its given cells refer to, under ``solutions``); then each
    given cell's source is made from them.
    """
    nb = read(path)
    wanted = [(cell, refs) for cell in nb.cells if (refs := given_refs(cell))]
    names = dict.fromkeys(ref.partition(":")[0] for _, refs in wanted for ref in refs)
    earlier = {name: read(notebook_path(name, solutions)) for name in names}
    stale = []
    for cell, refs in wanted:
        fresh = given_source(refs, earlier)
        if cell.source != fresh:
            stale.append(grade_id(cell) or "<given cell>")
            cell.source = fresh
    return nb, stale


def sync_given(path: Path, solutions: Path = SOLUTIONS, write: bool = True) -> list[str]:
    """Regenerate the given cells of one solution notebook (:func:`synced`).

    Returns the grade_ids of the given cells that were out of date (and, with
    ``write``, were rewritten).
    """
    nb, stale = synced(path, solutions)
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
