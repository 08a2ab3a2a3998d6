"""Resumable grading: which submissions already have an up-to-date outcome.

A recorded outcome (``<workspace>/results/<s>/<a>.json``) carries the
fingerprint of what was graded: a hash of the submitted notebook's bytes (with
``timestamp.txt`` and the folder name, so a re-submission with a new stamp
counts as new) and a hash of the release notebook it was graded against. A
rerun skips a submission whose fingerprint is unchanged; everything else
(new, re-submitted, release changed, never recorded, killed mid-record) is
graded again.

The results file is written last, atomically (:func:`write_atomic`), and
removed before a record starts, so it only exists for a finished record.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

#: reasons that say the grader itself failed: always worth another try
RETRY_REASONS = ("the grader failed",)


def _sha256(*chunks: bytes) -> str:
    h = hashlib.sha256()
    for chunk in chunks:
        h.update(len(chunk).to_bytes(8, "little"))  # length-prefixed: no two inputs hash alike by gluing
        h.update(chunk)
    return h.hexdigest()


def fingerprint(workspace: Path, sub) -> dict:
    """What the outcome of ``sub`` depends on, as hashes; {} if it cannot be read (graded anew each run)."""
    from course.grading import submitted_notebook

    if sub.problem:
        return {}
    path = submitted_notebook(sub)
    release = workspace / "release" / sub.assignment / f"{sub.assignment}.ipynb"
    if path is None or not path.is_file() or not release.is_file():
        return {}
    stamp = sub.folder / "timestamp.txt"
    stamp_bytes = stamp.read_bytes()[:200] if stamp.is_file() and not stamp.is_symlink() else b""
    return {
        "submission_sha256": _sha256(path.read_bytes(), stamp_bytes, sub.folder.name.encode()),
        "release_sha256": _sha256(release.read_bytes()),
    }


def results_path(workspace: Path, student: str, assignment: str) -> Path:
    return workspace / "results" / student / f"{assignment}.json"


def recorded(workspace: Path, sub, print_: dict) -> dict | None:
    """The recorded outcome of ``sub`` if its fingerprint ``print_`` is unchanged, else None."""
    if not print_:
        return None
    path = results_path(workspace, sub.student, sub.assignment)
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):  # missing or cut short: grade again
        return None
    if data.get("fingerprint") != print_ or str(data.get("reason", "")).startswith(RETRY_REASONS):
        return None
    return data


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader (or a kill) sees the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
