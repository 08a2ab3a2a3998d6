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
    from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import (
        AssignLatePenalties, CheckCellMetadata, ClearHiddenTests, ClearOutput, DeduplicateIds, GetGrades,
        IgnorePattern, LimitOutput, OverwriteCells, OverwriteKernelspec,
    )

    from course.feedback import ShortenTracebacks
    from course.feedback_template import use_feedback_template
    from course.preprocessors import ClearRubrics, MarkPendingGrades, NameGradedCells
    from course.preprocessors.cap_output_bytes import CapOutputBytes
    from course.preprocessors.check_tests_ran import CheckTestsRan
    from course.preprocessors.escape_student_html import EscapeStudentHTML
    from course.preprocessors.flag_test_machinery import FlagTestMachinery
    from course.preprocessors.hide_hidden_test_outputs import HideHiddenTestOutputs
    from course.preprocessors.keep_hand_grades import KeepHandGrades
    from course.preprocessors.match_release import MatchRelease
    from course.preprocessors.restore_tampered_cells import RestoreTamperedCells
    from course.preprocessors.sandboxed_execute import SandboxedExecute
    from course.preprocessors.withhold_leaks import WithholdLeaks

    kernel_transport(c)
    c.CourseDirectory.root = str(root)
    c.CourseDirectory.course_id = COURSE_ID
    c.CourseDirectory.source_directory = source
    c.CourseDirectory.release_directory = release
    c.CourseDirectory.ignore = IGNORE
    c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
    c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
    # a deleted test cell is put back (and fails) instead of silently scoring 0
    c.OverwriteCells.add_missing_cells = True
    # Autograde runs student code only inside the sandbox (course.sandbox), with
    # its limits: quick mode keeps every cell short, so 30 s per cell and
    # 180 s per notebook only stop runaway code. nbgrader's own `autograde`
    # gets the same chain; `course grade` runs these stages one by one.
    c.SandboxedExecute.cell_timeout = 30
    c.SandboxedExecute.notebook_budget = 180
    c.Execute.timeout = 30  # nbgrader's in-process Execute, should anyone put it back
    c.Autograde.sanitize_preprocessors = [
        MatchRelease, RestoreTamperedCells,  # before OverwriteCells repairs what they report
        ClearOutput, DeduplicateIds, OverwriteKernelspec, OverwriteCells, CheckCellMetadata,
        FlagTestMachinery,  # after locked cells are restored: reads student code only
    ]
    c.Autograde.autograde_preprocessors = [
        SandboxedExecute, CheckTestsRan, IgnorePattern, ClearMetadataPreprocessor, LimitOutput, CapOutputBytes,
        KeepHandGrades,  # nbgrader's SaveAutoGrades, minus re-flagging unchanged hand grades
        AssignLatePenalties, CheckCellMetadata,
    ]
    # Feedback shows the student's work and scores, never the hidden tests:
    # not in a cell, not quoted in a traceback (nbgrader #917, #1363), not in
    # anything printed while they ran; student markup is shown as text.
    # Nor the graders' mark scheme; unmarked written answers read "waiting for
    # a grader", and every graded cell is named by its task.
    # HideHiddenTestOutputs must see the hidden tests before ClearHiddenTests
    # removes them; WithholdLeaks checks the final outputs, so it comes last.
    c.GenerateFeedback.preprocessors = [
        GetGrades, MarkPendingGrades, NameGradedCells, HideHiddenTestOutputs, ClearHiddenTests, ClearRubrics,
        ShortenTracebacks, EscapeStudentHTML, CapOutputBytes, WithholdLeaks, CSSHTMLHeaderPreprocessor,
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
