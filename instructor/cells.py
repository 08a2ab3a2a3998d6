"""Notebook cells as the course marks them: ids, tags, graded tests, and nbgrader's markers.

The one place that knows the marker lines (``### BEGIN SOLUTION``, ``### END
HIDDEN TESTS``, ...): authoring (release, check, bundle), grading (tamper
check) and reporting (feedback that withholds secrets) all read cells here.
Cell conventions are in AUTHORING.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import nbformat

__all__ = [
    "NB_VERSION",
    "read",
    "grade_id",
    "tags",
    "task_of",
    "find_cell",
    "is_graded_test",
    "MARKED",
    "has_marker",
    "regions",
    "strip_markers",
    "hidden_lines",
    "solution_lines",
    "visible_source",
]

NB_VERSION = 4
#: what nbgrader's marker lines enclose
MARKED = ("SOLUTION", "HIDDEN TESTS", "MARK SCHEME")
_KINDS = "|".join(MARKED)
#: a marker line: the marker alone on its line
_MARKER_LINE = re.compile(rf"^\s*### (BEGIN|END) ({_KINDS})\s*$")
#: a marker anywhere in a line (a marker glued to code is an authoring fault)
_MARKER_ANYWHERE = re.compile(rf"### (BEGIN|END) ({_KINDS})")


def read(path: Path) -> nbformat.NotebookNode:
    """Read a notebook, with a clear error for a file that is not one."""
    try:
        return nbformat.read(str(path), as_version=NB_VERSION)
    except FileNotFoundError:
        raise
    except Exception as err:  # nbformat raises several kinds for bad JSON/schema
        raise ValueError(f"{path} is not a readable Jupyter notebook ({err}).") from err


def grade_id(cell) -> str | None:
    """The nbgrader ``grade_id`` of a cell, or None."""
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def task_of(cell) -> str | None:
    """The task a graded test cell checks (``metadata.course.task``)."""
    return cell.get("metadata", {}).get("course", {}).get("task")


def find_cell(nb, gid: str):
    """The cell whose nbgrader ``grade_id`` is ``gid``."""
    for cell in nb.cells:
        if grade_id(cell) == gid:
            return cell
    raise KeyError(gid)


def is_graded_test(cell) -> bool:
    """An autograded test cell: nbgrader ``grade`` without ``solution``."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


# --------------------------------------------------------------------------- markers


def has_marker(line: str) -> bool:
    """True if ``line`` holds a marker, alone or glued to other text."""
    return bool(_MARKER_ANYWHERE.search(line))


def regions(source: str) -> Iterator[tuple[str | None, str]]:
    """Each line of ``source`` that is not a marker line, with the region it lies in.

    The region is one of :data:`MARKED`, or None outside every marker pair.
    """
    inside = None
    for line in source.splitlines():
        found = _MARKER_LINE.match(line)
        if found:
            inside = found.group(2) if found.group(1) == "BEGIN" else None
            continue
        yield inside, line


def hidden_line_numbers(source: str) -> set[int]:
    """The line numbers (1-based, as a traceback counts them) of ``source`` inside hidden-test markers."""
    inside, found = False, set()
    for number, line in enumerate(source.splitlines(), start=1):
        marker = _MARKER_LINE.match(line)
        if marker and marker.group(2) == "HIDDEN TESTS":
            inside = marker.group(1) == "BEGIN"
        elif inside:
            found.add(number)
    return found


def strip_markers(source: str, kinds=("SOLUTION", "HIDDEN TESTS")) -> str:
    """``source`` without the marker lines of ``kinds`` (what they enclose stays)."""
    return "\n".join(
        line for line in source.splitlines() if not ((found := _MARKER_LINE.match(line)) and found.group(2) in kinds)
    )


def _lines_in(source: str, kind: str) -> list[str]:
    return [line.strip() for region, line in regions(source) if region == kind and line.strip()]


def hidden_lines(source: str) -> list[str]:
    """The lines between the hidden-test markers of one cell, stripped."""
    return _lines_in(source, "HIDDEN TESTS")


def solution_lines(nb) -> list[str]:
    """The lines between solution markers in every cell of a source (instructor) notebook, stripped."""
    return [line for cell in nb.cells for line in _lines_in(cell.source, "SOLUTION")]


def visible_source(source: str) -> str:
    """What a student sees of a cell: no hidden tests, no mark scheme (the release has neither)."""
    return "\n".join(line for region, line in regions(source) if region not in ("HIDDEN TESTS", "MARK SCHEME")).strip()
