"""The value channel's names: its output type and the notes the grading sandbox's executor writes.

:mod:`course.values` sends and reads what travels on the channel and needs
NumPy; the executor needs only these names. They live here so that it starts
without importing NumPy (0.13 s of CPU in every sandbox).
"""

from __future__ import annotations

__all__ = ["CUT_NOTE", "DROPPED_NOTE", "MIME"]

#: the output type of a check's values (a display_data output holding only them)
MIME = "application/vnd.course.values+json"
#: what the grading sandbox's executor writes in a cell where it dropped values no check asked for, or cut
#: them past their byte limit (the grader fails such a cell and flags the submission)
DROPPED_NOTE = "\n[values dropped: no check of this cell asked for them]\n"
CUT_NOTE = "\n[values cut: over the grader's byte limit]\n"
