"""The nbgrader configuration a course directory is graded with."""

from __future__ import annotations

from pathlib import Path

from traitlets.config import Config

from instructor.coursedir import directory, gradebook
from instructor.sandbox import Limits


def grading_config(folder: Path, db: str | None = None, limits: Limits | None = None, unsafe: bool = False) -> Config:
    """The course directory's nbgrader_config.py, with the gradebook in use and the sandbox's limits.

    Late penalties and due dates come from the file, so they apply as nbgrader
    applies them.
    """
    cfg = directory.load_config(folder)
    cfg.CourseDirectory.db_url = gradebook.url(folder, db)
    if limits is not None:
        for key in (
            "cell_timeout",
            "notebook_budget",
            "memory_mb",
            "processes",
            "cell_output_bytes",
            "notebook_output_bytes",
        ):
            setattr(cfg.SandboxedExecute, key, getattr(limits, key))
        cfg.CapOutputBytes.cell_bytes = limits.cell_output_bytes
        cfg.CapOutputBytes.notebook_bytes = limits.notebook_output_bytes
    cfg.SandboxedExecute.unsafe = unsafe
    return cfg
