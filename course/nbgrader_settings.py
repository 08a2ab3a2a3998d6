"""The course's nbgrader settings, in one place.

``grader/nbgrader_config.py`` applies them to the repository (source
``solutions/``, release ``notebooks/``); the grading commands apply them to a
scratch course directory with nbgrader's standard folder names.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from traitlets.config import Config

COURSE_ID = "seqmodels"

#: Files that never belong in a release, an autograded copy or feedback.
IGNORE = [
    ".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".DS_Store",
    "*.weights.npz",  # model weights a student saves while training
]


def configure(c: Config, root: Path, source: str = "source", release: str = "release") -> Config:
    """Apply the course settings to an nbgrader ``Config``."""
    from nbgrader.preprocessors import ClearHiddenTests, GetGrades
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor

    from course.feedback import ShortenTracebacks
    from course.feedback_template import use_feedback_template
    from course.preprocessors import ClearRubrics, MarkPendingGrades, NameGradedCells

    kernel_transport(c)
    c.CourseDirectory.root = str(root)
    c.CourseDirectory.course_id = COURSE_ID
    c.CourseDirectory.source_directory = source
    c.CourseDirectory.release_directory = release
    c.CourseDirectory.ignore = IGNORE
    c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
    c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
    # quick mode keeps every cell short; this only guards against a hung cell
    c.Execute.timeout = 120
    # a deleted test cell is put back (and fails) instead of silently scoring 0
    c.OverwriteCells.add_missing_cells = True
    # feedback shows the student's work and scores, never the hidden tests,
    # not even as lines quoted in a traceback (nbgrader #917, #1363)
    # ... nor the graders' mark scheme; unmarked written answers read "waiting for a
    # grader", and every graded cell is named by its task (course/preprocessors/)
    c.GenerateFeedback.preprocessors = [
        GetGrades, MarkPendingGrades, NameGradedCells, ClearHiddenTests, ClearRubrics,
        ShortenTracebacks, CSSHTMLHeaderPreprocessor,
    ]
    use_feedback_template(c)
    # mark schemes live in locked question cells, not in nbgrader "task" cells
    c.ClearMarkScheme.enforce_metadata = False
    return c


def kernel_transport(c: Config) -> Config:
    """Talk to kernels over local sockets in the temp folder, not TCP.

    A TCP kernel prints a warning about unencrypted traffic on every start;
    IPC sockets stay on this machine and out of the assignment folders.
    """
    c.KernelManager.transport = "ipc"
    c.KernelManager.ip = os.path.join(tempfile.gettempdir(), f"course-kernel-{os.getpid()}")
    return c
