"""The course's nbgrader settings that name no chain: folders, stubs, ignored files, widths.

Every nbgrader command of the course reads them: ``course generate``
(nbgrader's generate_assignment, from :mod:`instructor.authoring`), the bundle's
Validate, and, through :func:`instructor.settings.configure`, which adds the
grading and feedback chains on top, ``course grade``, nbgrader's own commands and
a course directory's ``nbgrader_config.py``. Kept apart from the chains so that
authoring, which only releases, stands below grading.
"""

from __future__ import annotations

from pathlib import Path

from traitlets.config import Config

from instructor.kernels import kernel_transport
from instructor.paths import COURSE_ID

#: Files that never belong in a student version, an autograded copy or feedback.
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


def configure_course(c: Config, root: Path, source: str = "source", release: str = "release") -> Config:
    """Apply the course settings that name no chain to an nbgrader ``Config`` (``root``: the course's folder)."""
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
    c.Execute.timeout = 30  # nbgrader's in-process Execute, should anyone put it back
    # the formgrader's Autograde button (nbgrader's autograde) grades only students the gradebook knows:
    # the imported roster, or students `course grade` graded; as `course grade` does, it refuses the rest
    c.Autograde.create_student = False
    c.Validator.width = VALIDATE_WIDTH  # students' Validate shows each message whole
    # mark schemes live in locked question cells, not in nbgrader "task" cells
    c.ClearMarkScheme.enforce_metadata = False
    return c
