"""The hostile corpus (tests/hostile/cases.py) and the cheats in the kernel (tests/hostile/kernel_cheats.py),
graded once for the session in one course directory, then feedback written for every graded submission.

test_hostile.py, test_kernel_cheats.py and test_value_channel.py each read their own cases of it (one worker
runs the three: tests/conftest.py's TOGETHER). The reference and the blank notebook are graded once, as
controls of both corpora. The cases that wait for a time limit get small limits of their own
(:data:`ABOUT_TIME`) and are graded first; the rest get tests/hostile/grading.py's ``LIMITS``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import os
from pathlib import Path

import pytest

from instructor.coursedir.course_dir import CourseDir
from instructor.reporting.feedback.pages import feedback
from tests.hostile import kernel_cheats
from tests.hostile.cases import SECRET, SECRET_ENV, A, build_corpus
from tests.hostile.grading import LIMITS, RETRIES, grade_corpus
from tests.system import require_sandbox

#: the cases about time, longest first, with limits of their own: each waits for one (the sandbox's wall clock,
#: 30 s after the budget; the budget; a cell's limit, then 10 s for the kernel's answer; a cell's limit)
ABOUT_TIME = {
    "forge_all_fds": dataclasses.replace(LIMITS, notebook_budget=30),
    "sleeps_past_budget": dataclasses.replace(LIMITS, cell_timeout=5, notebook_budget=30),
    "ignores_interrupt": dataclasses.replace(LIMITS, cell_timeout=5),
    # about a cell's limit: the notebook's budget must not end it first on a loaded machine
    "sleeps_in_one_cell": dataclasses.replace(LIMITS, cell_timeout=5, notebook_budget=240),
}


@pytest.fixture(scope="session")
def graded_corpus(tmp_path_factory):
    """Both corpora graded in one course directory: their cases, the recorded results, the feedback pages."""
    isolation = require_sandbox()
    root = tmp_path_factory.mktemp("corpus")
    subs, course_dir = root / "submissions", root / "grading"
    budget = ABOUT_TIME["sleeps_past_budget"]
    sleep = budget.cell_timeout - 1
    ctx = {
        "course_dir": str(course_dir),
        "other": str(subs / "reference" / A / f"{A}.ipynb"),
        "sleep": sleep,
        # past the budget even when a loaded machine made every retry double it
        "sleeps": math.ceil(budget.notebook_budget * 2**RETRIES / sleep) + 1,
        "memory_mb": LIMITS.memory_mb,
    }
    hostile = build_corpus(subs, ctx)
    cheats = kernel_cheats.CONTROLS + kernel_cheats.build_corpus(
        subs, ctx, only={c.name for c in kernel_cheats.CHEATS}
    )  # the controls are the hostile corpus's own reference and blank notebook
    other_hash = hashlib.sha256(Path(ctx["other"]).read_bytes()).hexdigest()
    os.environ[SECRET_ENV] = SECRET  # the grader's environment must not reach any kernel
    try:
        outcomes = grade_corpus(subs, course_dir, isolation, limits=ABOUT_TIME, first=tuple(ABOUT_TIME))
    finally:
        os.environ.pop(SECRET_ENV, None)
    files, failures = feedback(CourseDir.at(course_dir), log=lambda *_: None)
    return {
        "hostile": hostile,
        "cheats": cheats,
        "outcomes": outcomes,
        "course_dir": course_dir,
        "feedback": files,
        "feedback_failures": failures,
        "other_hash": other_hash,
        "other": Path(ctx["other"]),
    }
