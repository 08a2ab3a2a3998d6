"""Before a Dask run: can every worker grade? (It must see what the coordinator sees, and have a sandbox.)

Workers read the course directory (release, gradebook for SQLite) and the
submissions by path, so they must see them on a filesystem shared with the
coordinator, under the same paths. The sandbox needs root, so workers run as
root like the coordinator.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from instructor import sandbox
from instructor.errors import CourseError

if TYPE_CHECKING:
    from instructor.coursedir.course_dir import CourseDir


def _worker_sees(token_path: str, token: str, submissions_dirs: list[str]) -> str:
    """Run on each worker: "" if it sees the course directory and the submissions, else why not."""
    try:
        if Path(token_path).read_text() != token:
            return f"it sees another {Path(token_path).parent} (not the coordinator's)"
    except OSError:
        return f"it cannot read the course directory {Path(token_path).parent}"
    for submissions_dir in submissions_dirs:
        if not Path(submissions_dir).is_dir():
            return f"it cannot read the submissions folder {submissions_dir}"
    return ""


def _worker_sandbox() -> tuple[bool, str]:
    isolation = sandbox.detect()
    return isolation.safe, isolation.detail


def require_workers(client, course_dir: CourseDir, submissions: list[Path], unsafe: bool) -> int:
    """Refuse in one sentence unless every worker sees the course directory and the submissions (and has a sandbox)."""
    workers = client.scheduler_info().get("workers", {})
    if not workers:
        client.wait_for_workers(1, timeout=60)
    token = uuid.uuid4().hex
    token_path = course_dir.path / f".course-worker-check-{token}"
    token_path.write_text(token)
    try:
        seen = client.run(_worker_sees, str(token_path), token, sorted({str(f) for f in submissions}))
        sandboxes = client.run(_worker_sandbox)
    finally:
        token_path.unlink(missing_ok=True)
    for address, why in sorted(seen.items()):
        if why:
            raise CourseError(
                f"the Dask worker at {address} cannot grade: {why}; workers need the course directory "
                "and the submissions on a filesystem they share with this machine, under the same paths."
            )
    for address, (safe, detail) in sorted(sandboxes.items()):
        if not safe and not unsafe:
            raise CourseError(
                f"the Dask worker at {address} has no sandbox ({detail}); "
                "run workers as root with bubblewrap installed, or pass --unsafe."
            )
    return len(seen)
