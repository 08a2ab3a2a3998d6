"""Resumable grading: which submissions already have an up-to-date result.

A recorded result (``<dir>/results/<s>/<a>.json``) carries the fingerprint
of what was graded: a hash of the submitted notebook's bytes (with
``timestamp.txt``, so a re-submission with a new stamp counts as new), the
folder it was read from and a hash of the student version it was graded
against. A
rerun skips a submission whose fingerprint is unchanged; everything else
(new, re-submitted, release changed, never recorded, killed mid-record, or
ended ``grader failed``) is graded again.

The results file is written last, atomically, and removed before a record
starts (:mod:`instructor.grading.record`), so it only exists for a finished
record.
"""

from __future__ import annotations

import hashlib

from instructor.coursedir.course_dir import CourseDir
from instructor.grading.class_state import ClassState
from instructor.grading.intake import read_regular, submitted_notebook
from instructor.grading.prepare import TIMESTAMP
from instructor.grading.submission import Result, Status, Submission


def _sha256(*chunks: bytes) -> str:
    h = hashlib.sha256()
    for chunk in chunks:
        h.update(len(chunk).to_bytes(8, "little"))  # length-prefixed: no two inputs hash alike by gluing
        h.update(chunk)
    return h.hexdigest()


def fingerprint(course_dir: CourseDir, sub: Submission) -> dict:
    """What the result of ``sub`` depends on, as hashes; {} if it cannot be read (graded anew each run)."""
    if sub.status is not Status.QUEUED:  # intake found it ungradable
        return {}
    path = submitted_notebook(sub)
    version = course_dir.student_version(sub.assignment)
    if path is None or not version.is_file():
        return {}
    try:
        data = read_regular(path)
    except OSError:
        return {}
    try:
        stamp_bytes = read_regular(sub.folder / TIMESTAMP, 200)
    except OSError:
        stamp_bytes = b""
    return {
        # the bytes alone (the notebook and nbgrader's stamp, which a collect copies along): a flag cleared for
        # them stays cleared wherever they are graded from (the exchange, submitted/, a copy)
        "submission_sha256": _sha256(data, stamp_bytes),
        # where they were read: a rerun from another source grades again (its arrival time may differ)
        "source": sub.folder.name,
        "release_sha256": _sha256(version.read_bytes()),
    }


def recorded(state: ClassState, sub: Submission, print_: dict) -> Result | None:
    """The recorded result of ``sub`` (as the run read it) if its fingerprint ``print_`` is unchanged, else None.

    A results file cut short or malformed was left out of ``state``: graded again.
    """
    if not print_:
        return None
    result = state.results.get(sub.key)
    if result is None or result.fingerprint != print_ or result.status.retried:
        return None
    return result
