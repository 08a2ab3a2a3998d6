"""The nbgrader configuration a course directory is graded with."""

from __future__ import annotations

from traitlets.config import Config

from instructor.coursedir.course_dir import CourseDir
from instructor.sandbox import Limits


def grading_config(course_dir: CourseDir, limits: Limits | None = None, unsafe: bool = False) -> Config:
    """The course directory's nbgrader configuration (read once, when the command opened it), with the
    gradebook in use and the sandbox's limits.

    Late penalties and due dates come from the file, so they apply as nbgrader
    applies them.
    """
    cfg = course_dir.grading_config()
    if limits is not None:
        # the whole value to both that read it: every field arrives
        cfg.SandboxedExecute.limits = cfg.CapOutputBytes.limits = limits
    cfg.SandboxedExecute.unsafe = unsafe
    return cfg
