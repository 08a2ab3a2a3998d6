"""The nbgrader configuration a course directory is graded with: its settings and the grading chains."""

from __future__ import annotations

from traitlets.config import Config

from instructor.coursedir.course_dir import CourseDir
from instructor.grading.chains import EXECUTE, PREPARE, RECORD, SCORE
from instructor.sandbox import Limits


def add_grading_chains(c: Config) -> Config:
    """The grading chains on ``c``, as ``course grade`` runs them and nbgrader's own autograde gets them.

    Autograde runs student code only inside the sandbox (instructor.sandbox),
    with its limits: quick mode keeps every cell short, so 30 s per cell and
    180 s per notebook only stop runaway code.
    """
    c.SandboxedExecute.limits = Limits()
    c.Autograde.sanitize_preprocessors = PREPARE
    c.Autograde.autograde_preprocessors = EXECUTE + SCORE + RECORD
    return c


def grading_config(course_dir: CourseDir, limits: Limits | None = None, unsafe: bool = False) -> Config:
    """The course directory's nbgrader configuration (read once, when the command opened it), with the
    grading chains, the gradebook in use and the sandbox's limits.

    Late penalties and due dates come from the directory's settings, so they
    apply as nbgrader applies them.
    """
    cfg = add_grading_chains(course_dir.grading_config())
    if limits is not None:
        # the whole value to both that read it: every field arrives
        cfg.SandboxedExecute.limits = cfg.CapOutputBytes.limits = limits
    cfg.SandboxedExecute.unsafe = unsafe
    return cfg
