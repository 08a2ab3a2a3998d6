"""``course feedback``: one HTML page per autograded submission, made by nbgrader with the course's chain.

The chain (:mod:`instructor.reporting.feedback.chain`) and the template
(:mod:`instructor.reporting.feedback.template`) come from the course
directory's settings, so nbgrader's own ``generate_feedback`` and the
formgrader's button write the same pages::

    <dir>/autograded/<student>/<a>/  ->  <dir>/feedback/<student>/<a>/<a>.html
"""

from __future__ import annotations

import traceback
from pathlib import Path

from nbgrader.apps.api import NbGraderAPI
from nbgrader.coursedir import CourseDirectory

from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError, first_line
from instructor.grading.config import grading_config
from instructor.reporting.feedback.chain import add_feedback_chain


def feedback(course_dir: CourseDir, log=print) -> tuple[list[Path], list[str]]:
    """HTML feedback for every autograded submission; returns (files, failures), never stops early."""
    autograded = course_dir.autograded_root
    if not autograded.is_dir():
        raise CourseError(f"{course_dir.path} has nothing autograded yet: run `course grade` first.")
    directory.require(course_dir.path)  # `course feedback` opens a folder `course init` may not have made
    cfg = add_feedback_chain(grading_config(course_dir))
    api = NbGraderAPI(coursedir=CourseDirectory(config=cfg), config=cfg)
    failures = []
    for student_dir in sorted(p for p in autograded.iterdir() if p.is_dir() and not p.is_symlink()):
        for assignment_dir in sorted(p for p in student_dir.iterdir() if p.is_dir() and not p.is_symlink()):
            who = f"{student_dir.name}/{assignment_dir.name}"
            try:
                result = api.generate_feedback(assignment_dir.name, student_dir.name, force=True)
                lines = (result.get("error") or "nbgrader gave no reason").strip().splitlines()
                why = "" if result["success"] else lines[-1][:160]
                details = str(result.get("log", "")) + str(result.get("error", ""))
            except Exception as err:  # one student's failure must not stop the others
                why, details = first_line(err), traceback.format_exc()
            if why:
                failures.append(f"{who}: {why}")
                log(f"  no feedback for {who}: {why}")
                logs = course_dir.logs / student_dir.name
                logs.mkdir(parents=True, exist_ok=True)
                (logs / f"{assignment_dir.name}.feedback.log").write_text(details)
    return sorted(course_dir.feedback.rglob("*.html")), failures
