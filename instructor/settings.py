"""The course's nbgrader settings, in one place.

``grader/nbgrader_config.py`` applies them to the repository (source
``solutions/``, release ``notebooks/``); a course directory's
``nbgrader_config.py`` (written by ``course init``) applies them there, with
nbgrader's standard folder names. ``course`` and nbgrader's own commands
therefore run the same chains (:mod:`instructor.grading.chains`,
:mod:`instructor.reporting.feedback.chain`).
"""

from __future__ import annotations

from pathlib import Path

from traitlets.config import Config

from instructor.grading.chains import EXECUTE, PREPARE, RECORD, SCORE
from instructor.kernels import kernel_transport
from instructor.paths import COURSE_ID
from instructor.reporting.feedback.chain import FEEDBACK
from instructor.reporting.feedback.template import use_course_templates
from instructor.sandbox.limits import Limits

__all__ = ["COURSE_ID"]  # re-exported: the id lives in instructor.paths, below grading

#: Files that never belong in a release, an autograded copy or feedback.
IGNORE = [
    ".ipynb_checkpoints",
    "*.pyc",
    "__pycache__",
    "feedback",
    ".DS_Store",
    "*.weights.npz",  # model weights a student saves while training
]


#: The line width of Validate's report (``nbgrader validate``), past which nbgrader cuts a line and
#: ends it in "...". Its default, 90, cut most checks' messages before their hint ("... compute the
#: output fr..."); the longest line of a visible check's message fits in this one (a test keeps it so).
#: The Validate button's dialog shows whole lines at any width.
VALIDATE_WIDTH = 400


def configure(c: Config, root: Path, source: str = "source", release: str = "release") -> Config:
    """Apply the course settings to an nbgrader ``Config``."""
    kernel_transport(c)
    c.CourseDirectory.root = str(root)
    c.CourseDirectory.course_id = COURSE_ID
    c.CourseDirectory.source_directory = source
    c.CourseDirectory.release_directory = release
    c.CourseDirectory.ignore = IGNORE
    # staff share the course directory through its group (setgid folders, group-writable files), and
    # nbgrader must not make the exchange's root world-writable again (docs/trust.md, the exchange)
    c.CourseDirectory.groupshared = True
    c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
    c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
    # a deleted test cell is put back (and fails) instead of silently scoring 0
    c.OverwriteCells.add_missing_cells = True
    # Autograde runs student code only inside the sandbox (instructor.sandbox),
    # with its limits: quick mode keeps every cell short, so 30 s per cell and
    # 180 s per notebook only stop runaway code.
    c.SandboxedExecute.limits = Limits()
    c.Execute.timeout = 30  # nbgrader's in-process Execute, should anyone put it back
    # the formgrader's Autograde button (nbgrader's autograde) grades only students the gradebook knows:
    # the imported roster, or students `course grade` graded; as `course grade` does, it refuses the rest
    c.Autograde.create_student = False
    c.Autograde.sanitize_preprocessors = PREPARE
    c.Autograde.autograde_preprocessors = EXECUTE + SCORE + RECORD
    c.GenerateFeedback.preprocessors = FEEDBACK
    c.Validator.width = VALIDATE_WIDTH  # students' Validate shows each message whole
    use_course_templates(c)
    # mark schemes live in locked question cells, not in nbgrader "task" cells
    c.ClearMarkScheme.enforce_metadata = False
    return c
