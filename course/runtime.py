"""Quick mode: one switch that makes every long notebook cell short.

Set ``COURSE_QUICK=1`` to run the notebooks in quick mode (CI, nbval, demos).
Autograding implies it: nbgrader sets ``NBGRADER_EXECUTION`` while it executes
a submission, so a student's notebook is never trained for minutes at grading
time. Graded tests never depend on a fully trained model.

In a notebook::

    from course.runtime import pick
    n_steps = pick(full=10_000, quick=30)
"""

from __future__ import annotations

import os

__all__ = ["is_quick", "is_grading", "is_watched", "is_headless", "pick"]

_FALSE = {"", "0", "false", "no", "off"}


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in _FALSE


def is_grading() -> bool:
    """True while nbgrader executes the notebook (autograde or validate)."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def is_quick() -> bool:
    """True in quick mode: ``COURSE_QUICK`` is set, or nbgrader is executing."""
    return _flag("COURSE_QUICK") or is_grading()


def is_watched() -> bool:
    """True when the kernel belongs to a notebook open in Jupyter (JupyterLab, Notebook 7).

    jupyter_server names the notebook in ``JPY_SESSION_NAME`` for the kernels
    it starts for a session; nbval, nbclient and nbgrader start kernels
    without one.
    """
    return bool(os.environ.get("JPY_SESSION_NAME"))


def is_headless() -> bool:
    """True when nobody watches: grading, CI, or quick mode outside JupyterLab.

    Plots then come out as one static figure at the end of the cell, and the
    explorers (ipywidgets) are skipped. A student who opens JupyterLab with
    ``COURSE_QUICK=1`` still gets live plots and explorers.
    """
    return is_grading() or _flag("CI") or (is_quick() and not is_watched())


def pick(full, quick):
    """Return ``quick`` in quick mode, else ``full``.

    Parameters
    ----------
    full : Any
        The value a student gets (e.g. 10_000 training steps).
    quick : Any
        The value used by CI and autograding (e.g. 30 steps).
    """
    return quick if is_quick() else full
