"""Deliberately broken solutions: the mistakes students really make.

Each module ``tests/mistakes/<assignment>.py`` defines ``MISTAKES``, a list of
:class:`Mistake`. The suite applies each one to the solution notebook, runs
the notebook's fast cells, and requires that at least one graded test of the
mistake's task fails, i.e. the mistake loses points.
"""

from __future__ import annotations

from dataclasses import dataclass


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
