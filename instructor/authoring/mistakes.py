"""Deliberately wrong answers: the mistakes students really make, each of which must lose points.

A catalogue is a Python file ``<folder>/<assignment>.py`` defining
``MISTAKES``, a list of :class:`Mistake` (the course keeps its own in
``tests/mistakes/``). The test suite proves each one loses points; the class
benchmark grades submissions that carry them. Both are handed a catalogue
by path (:func:`load`), so neither imports the other.
"""

from __future__ import annotations

import copy
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from instructor.cells import find_cell


@dataclass(frozen=True)
class Mistake:
    """One wrong answer to one graded task.

    Attributes
    ----------
    task : str
        ``grade_id`` of the solution cell the mistake edits; graded test cells
        carry the same name in ``metadata.course.task``.
    name : str
        A short identifier, e.g. ``"softmax_over_batch_axis"``.
    why : str
        What the student got wrong, in one sentence.
    replace : str
        Exact text of the reference solution cell (must occur exactly once).
    by : str
        What the student wrote instead.
    expect : str
        If given, text the failing test's message must contain: the feedback
        names this mistake, not another one.
    """

    task: str
    name: str
    why: str
    replace: str
    by: str
    expect: str = ""


def load(folder: Path, assignment: str) -> list[Mistake]:
    """The ``MISTAKES`` of ``<folder>/<assignment>.py``, read by path."""
    path = Path(folder) / f"{assignment}.py"
    if not path.is_file():
        raise FileNotFoundError(f"there is no mistake catalogue {path}")
    spec = importlib.util.spec_from_file_location(f"course_mistakes_{assignment}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the mistake catalogue {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.MISTAKES)


def apply_mistake(nb, mistake: Mistake):
    """A copy of ``nb`` with ``mistake`` written into its task's solution cell.

    Raises ValueError when the text to replace does not occur exactly once
    (the catalogue no longer fits the solution).
    """
    nb = copy.deepcopy(nb)
    cell = find_cell(nb, mistake.task)
    count = cell.source.count(mistake.replace)
    if count != 1:
        raise ValueError(
            f"mistake {mistake.name!r}: the text to replace occurs {count} times "
            f"in cell {mistake.task!r} (must be exactly once)"
        )
    cell.source = cell.source.replace(mistake.replace, mistake.by)
    return nb
