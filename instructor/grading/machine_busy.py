"""A time limit met in the course's given code, before any student code ran, is the machine's failure.

The setup cell (locked imports, ``setup_backend()``) is the student version's text,
put back before the run (``RestoreTamperedCells`` and nbgrader's
``OverwriteCells``), and a fresh kernel runs it first: nothing the student
wrote can make it slow, nor the kernel's start (the sandbox's environment
keeps the student's files off the path until it has started). When either
passes its time limit anyway (a loaded grading machine), or the kernel stops
answering in the setup, or the notebook's budget runs out there, the
submission ends ``grader failed`` and the next ``course grade``
grades it again. From the first cell the student wrote or changed on, a time
limit is the student's, as before.

A cell is given when it is locked, no answer cell, and holds the student version's
text for its ``grade_id`` word for word; a cell a student inserts before the
setup is the student's (made-up grading metadata is removed before the run,
and a copy of a given cell's ``grade_id`` is restored to the student version's text).
"""

from __future__ import annotations

#: what the executor reports when the kernel stopped in a cell and grading could not go on
STOPPED = ("unresponsive", "budget")


class MachineBusy(RuntimeError):
    """A limit was met in given code before any student code ran: ``grader failed``, retried on the next run."""


def first_student_cell(nb, student_version) -> int:
    """The index of the first code cell of ``nb`` that is not the course's given code (``len(nb.cells)`` if none).

    ``student_version`` is the notebook the course issued (None: the cells' locked metadata alone decides).
    """
    given_text = {}
    for cell in student_version.cells if student_version is not None else []:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade_id"):
            given_text[meta["grade_id"]] = cell.source
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        meta = cell.get("metadata", {}).get("nbgrader", {})
        given = meta.get("locked") and not meta.get("solution")
        if student_version is not None:
            given = given and given_text.get(meta.get("grade_id"), None) == cell.source
        if not given:
            return index
    return len(nb.cells)


def busy_reason(
    status: str, stopped_at: int | None, timed_out: list[int], nb, student_version, cell_timeout: float
) -> str:
    """One sentence if a run met a limit in given code before any student code ran, else ``""``.

    ``status``, ``stopped_at`` and ``timed_out`` are the executor's (:class:`instructor.sandbox.Execution`);
    ``nb`` is the notebook that was run, ``student_version`` the one the course issued.
    """
    first = first_student_cell(nb, student_version)
    stopped = status in STOPPED and (stopped_at is None or stopped_at < first)
    slow = [i for i in timed_out if i < first]
    if not stopped and not slow:
        return ""
    if not slow and stopped_at is None:
        return (
            "the grading machine was too busy: the kernel's start used the notebook's whole time budget, "
            "before any of the student's code; graded again on the next run"
        )
    where = f"cell {slow[0] if slow else stopped_at}"
    return (
        f"the grading machine was too busy: the course's given code ({where}, before any of the student's code) "
        f"ran past a time limit ({cell_timeout:g} s a cell); graded again on the next run"
    )
