"""The course's nbgrader settings, in one place: those that name no chain, and the chains.

``grader/nbgrader_config.py`` applies them to the repository (source
``solutions/``, release ``notebooks/``); a course directory's
``nbgrader_config.py`` (written by ``course init``) applies them there, with
nbgrader's standard folder names. ``course`` and nbgrader's own commands
therefore run the same chains (:mod:`instructor.grading.chains`,
:mod:`instructor.reporting.feedback.chain`). The settings that name no chain
live lower, in :mod:`instructor.course_settings`, where authoring reads them.
"""

from __future__ import annotations

from pathlib import Path

from traitlets.config import Config

from instructor.course_settings import configure_course
from instructor.grading.chains import EXECUTE, PREPARE, RECORD, SCORE
from instructor.paths import COURSE_ID
from instructor.reporting.feedback.chain import FEEDBACK
from instructor.reporting.feedback.template import use_course_templates
from instructor.sandbox.limits import Limits

__all__ = ["COURSE_ID", "configure"]  # COURSE_ID re-exported: the id lives in instructor.paths, below grading


def configure(c: Config, root: Path, source: str = "source", release: str = "release") -> Config:
    """Apply the course settings and its grading and feedback chains to an nbgrader ``Config``."""
    configure_course(c, root, source=source, release=release)
    # Autograde runs student code only inside the sandbox (instructor.sandbox),
    # with its limits: quick mode keeps every cell short, so 30 s per cell and
    # 180 s per notebook only stop runaway code.
    c.SandboxedExecute.limits = Limits()
    c.Autograde.sanitize_preprocessors = PREPARE
    c.Autograde.autograde_preprocessors = EXECUTE + SCORE + RECORD
    c.GenerateFeedback.preprocessors = FEEDBACK
    use_course_templates(c)
    return c
