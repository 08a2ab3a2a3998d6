"""The course's nbgrader settings with its grading and feedback chains: what nbgrader's own commands run.

``grader/nbgrader_config.py`` applies :func:`configure` to the repository
(source ``solutions/``, release ``notebooks/``); a course directory's
``nbgrader_config.py`` (one constant line, written by ``course init``) applies
:func:`configure_course_dir`: the directory's settings, which are data
(:func:`instructor.coursedir.directory.load_config`), and the same chains.
``course`` itself never runs that file: it reads the data, and the grading
layer (:func:`instructor.grading.config.grading_config`) and the feedback
pages add their own chains, the same lists, so ``course`` and nbgrader's own
commands grade and write feedback alike.
"""

from __future__ import annotations

from pathlib import Path

from traitlets.config import Config

from instructor.coursedir.directory import load_config
from instructor.coursedir.nbgrader_settings import configure_course
from instructor.grading.config import add_grading_chains
from instructor.paths import COURSE_ID
from instructor.reporting.feedback.chain import add_feedback_chain

__all__ = ["COURSE_ID", "configure", "configure_course_dir"]  # COURSE_ID re-exported: the id lives in paths


def configure(c: Config, root: Path, source: str = "source", release: str = "release") -> Config:
    """Apply the course settings and its grading and feedback chains to an nbgrader ``Config``."""
    configure_course(c, root, source=source, release=release)
    return add_feedback_chain(add_grading_chains(c))


def configure_course_dir(c: Config, course_path: Path) -> Config:
    """Apply a course directory's settings (data) and the chains: what its ``nbgrader_config.py`` runs."""
    c.merge(load_config(course_path))
    return add_feedback_chain(add_grading_chains(c))
