"""The secret lines of a solution notebook: what no student version, bundle or feedback may show.

A secret line lies between solution, hidden-test or mark-scheme markers (or
in a written answer's cell, which is a solution in full) and nowhere else in
the notebook. Given cells hold earlier answers on purpose and are left out.
Lines shorter than :data:`MIN_SECRET_CHARS` are too common to count
(``return x``).
"""

from __future__ import annotations

from instructor.authoring.given import given_refs
from instructor.cells import regions

MIN_SECRET_CHARS = 16


def secret_and_public_lines(nb) -> tuple[set[str], set[str]]:
    """(lines inside markers, lines outside them) of a solution notebook, stripped; given cells skipped."""
    secret: set[str] = set()
    public: set[str] = set()
    for cell in nb.cells:
        if given_refs(cell):
            continue
        for region, line in regions(cell.source):
            (secret if region else public).add(line.strip())
        # a markdown answer cell without markers is a solution in full
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type == "markdown" and meta.get("solution") and "### BEGIN SOLUTION" not in cell.source:
            secret.update(line.strip() for line in cell.source.splitlines())
    return secret, public


def secret_lines(nb) -> set[str]:
    """The lines that only markers enclose, long enough to count as a leak."""
    secret, public = secret_and_public_lines(nb)
    return {s for s in secret - public if len(s) >= MIN_SECRET_CHARS}
