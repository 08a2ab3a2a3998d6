"""What ``course similarity`` compares: each submission's answer code as one document, and the released code.

One document per submission: the code answer cells (nbgrader ``solution:
true`` code cells) of a graded notebook, in notebook order, with each cell's
span kept so a match is named by its task (``grade_id``). Written answers
(markdown) are left out: tokenising prose as Python would compare
punctuation, not ideas.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from instructor.cells import grade_id

#: between two answer cells of a document (white space: the tokenizer drops it)
SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Span:
    """Where one answer cell lies in its document: ``text[start:end]``."""

    grade_id: str
    start: int
    end: int


@dataclass
class Document:
    """One submission's answer code: the cells joined by :data:`SEPARATOR`, and where each lies."""

    student: str
    text: str
    spans: list[Span]

    def tasks_in(self, slices: np.ndarray) -> list[str]:
        """The grade_ids of the cells that ``slices`` (2 x n: starts, ends in ``text``) overlap, in notebook order."""
        starts, ends = np.asarray(slices).reshape(2, -1)
        return [s.grade_id for s in self.spans if np.any((starts < s.end) & (ends > s.start))]


def answer_cells(nb) -> list[tuple[str, str]]:
    """(grade_id, source) of each code answer cell (nbgrader ``solution: true``) of ``nb``, in notebook order."""
    found = []
    for i, cell in enumerate(nb.cells):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") == "code" and meta.get("solution"):
            found.append((str(grade_id(cell) or f"cell {i + 1}"), cell.source))
    return found


def document(student: str, nb) -> Document:
    """``student``'s document: the answer cells of ``nb`` joined, with the span of each."""
    parts: list[str] = []
    spans: list = []
    at = 0
    for gid, source in answer_cells(nb):
        if parts:
            at += len(SEPARATOR)
        parts.append(source)
        spans.append(Span(gid, at, at + len(source)))
        at += len(source)
    return Document(student, SEPARATOR.join(parts), spans)


def student_version_code(notebooks) -> list[str]:
    """The texts whose every fingerprint is copydetect's boilerplate, from the student versions.

    Per notebook: its answer cells joined as a student's document is (so a
    document left as released is wholly boilerplate, the joins included), and
    each other code cell (given code, tests a student may paste from).
    """
    texts = []
    for nb in notebooks:
        texts.append(document("", nb).text)
        texts += [
            c.source
            for c in nb.cells
            if c.get("cell_type") == "code" and not c.get("metadata", {}).get("nbgrader", {}).get("solution")
        ]
    return [t for t in texts if t.strip()]


def student_version_answers(notebooks) -> dict[str, list[str]]:
    """grade_id -> the source of that answer cell in each student version (stubs, signatures, docstrings)."""
    found: dict[str, list[str]] = {}
    for nb in notebooks:
        for gid, source in answer_cells(nb):
            found.setdefault(gid, []).append(source)
    return found
