"""Helpers for the sequence-models course: quick mode, live plots, notebook sources.

Students meet two modules in the notebooks: :mod:`course.runtime` (quick mode)
and :mod:`course.plotting` (live training plots). Instructors meet the
``course`` command (:mod:`course.cli`).
"""

__all__ = ["runtime", "plotting"]
