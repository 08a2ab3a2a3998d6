"""The nbgrader preprocessor chains of grading, defined once.

``course grade`` runs them stage by stage (:mod:`instructor.grading.pipeline`);
:func:`instructor.settings.configure` hands the same lists to nbgrader's own
``autograde``, so both grade alike.
"""

from __future__ import annotations

from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    ClearOutput,
    DeduplicateIds,
    IgnorePattern,
    LimitOutput,
    OverwriteCells,
    OverwriteKernelspec,
)

from instructor.grading.preprocessors.cap_output_bytes import CapOutputBytes
from instructor.grading.preprocessors.fail_shaped_outputs import FailShapedTestOutputs
from instructor.grading.preprocessors.fail_tests_not_run import FailTestsNotRun
from instructor.grading.preprocessors.flag_test_machinery import FlagTestMachinery
from instructor.grading.preprocessors.inert_student_content import InertStudentContent
from instructor.grading.preprocessors.judge_checks import JudgeChecks
from instructor.grading.preprocessors.keep_hand_grades import KeepHandGrades
from instructor.grading.preprocessors.match_student_version import MatchStudentVersion
from instructor.grading.preprocessors.restore_tampered_cells import RestoreTamperedCells
from instructor.grading.preprocessors.sandboxed_execute import SandboxedExecute
from instructor.grading.preprocessors.split_checks import SplitChecks

#: before any student code runs. Order matters: matching rebuilds a notebook
#: before anything compares it; tampering is detected before OverwriteCells
#: silently repairs it; the scan reads student code after locked cells are restored; test cells are split
#: last, once they hold the student version's code again.
PREPARE = [
    MatchStudentVersion,
    RestoreTamperedCells,
    ClearOutput,
    DeduplicateIds,
    OverwriteKernelspec,
    OverwriteCells,
    CheckCellMetadata,
    FlagTestMachinery,
    SplitChecks,
]
#: the only stage that runs student code, in the sandbox
EXECUTE = [SandboxedExecute]
#: outside the sandbox, on what came back (ClearMetadataPreprocessor is off unless configured, as in nbgrader);
#: the autograder judges the checks on the values the kernel sent (JudgeChecks); the student's markup is made
#: inert last, before anyone opens the graded notebook
SCORE = [
    FailTestsNotRun,
    FailShapedTestOutputs,
    JudgeChecks,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    CapOutputBytes,
    InertStudentContent,
]
#: into the gradebook: nbgrader's SaveAutoGrades, minus re-flagging unchanged hand grades
RECORD = [KeepHandGrades, AssignLatePenalties, CheckCellMetadata]


def run_chain(chain: list, nb, resources: dict, config):
    """Apply each preprocessor of ``chain`` in turn, as nbgrader does; returns (nb, resources)."""
    for cls in chain:
        nb, resources = cls(config=config)(nb, resources)
    return nb, resources
