"""Deliberately broken solutions: the mistakes students really make.

Each module ``tests/mistakes/<assignment>.py`` defines ``MISTAKES``, a list of
:class:`~instructor.authoring.mistakes.Mistake`. The suite applies each one to
the solution notebook, runs the notebook's fast cells, and requires that at
least one graded test of the mistake's task fails, i.e. the mistake loses
points. The class benchmark reads the same files by path
(``course bench --only class --mistakes tests/mistakes``).
"""

from instructor.authoring.mistakes import Mistake

__all__ = ["Mistake"]
