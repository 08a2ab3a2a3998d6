"""Stage 2, prepare: the submitted notebook, ready to run and compared with the student version.

Reads the notebook and the submission's timestamp, then runs the
:data:`~instructor.grading.chains.PREPARE` chain: a notebook without nbgrader
metadata is matched to the student version, tampering is reported and undone,
nbgrader overwrites the locked and test cells, student code that reaches
into the test machinery is flagged. Nothing of the student's runs here.
"""

from __future__ import annotations

import traceback
from datetime import timedelta

import nbformat
from nbgrader.utils import parse_utc

from instructor.coursedir.course_dir import CourseDir
from instructor.errors import first_line
from instructor.grading.chains import PREPARE, run_chain
from instructor.grading.intake import read_regular, sha256, submitted_notebook
from instructor.grading.submission import NotGraded, Submission

#: nbgrader's file in each exchange submission: when the student submitted
TIMESTAMP = "timestamp.txt"
#: clocks of the student's machine and the exchange's may differ by this much
TOLERANCE = timedelta(minutes=2)


def resources_for(course_dir: CourseDir, sub: Submission) -> dict:
    """nbgrader's resources for grading ``sub`` in ``course_dir``; the submission rides along."""
    release_dir = course_dir.release(sub.assignment)
    sub.student_version = release_dir / f"{sub.assignment}.ipynb"
    sub.files = [p for p in sorted(release_dir.iterdir()) if p.is_file() and p.suffix != ".ipynb"]
    return {
        "nbgrader": {
            "db_url": course_dir.gradebook_url,
            "assignment": sub.assignment,
            "notebook": sub.assignment,
            "student": sub.student,
        },
        "course": sub,
    }


def read_timestamp(sub: Submission) -> None:
    """When the student submitted: nbgrader's ``timestamp.txt``, never earlier than the exchange received it.

    ``timestamp.txt`` is written on the student's side. Graded from an
    exchange, the time the files arrived (``sub.received``) counts when the
    stamp claims an earlier one, so a deadline cannot be moved by editing it.
    """
    written = None
    try:
        text = read_regular(sub.folder / TIMESTAMP, 200).decode("utf-8", "replace").strip()
    except OSError:  # none, a link, a folder, too long: no stamp
        text = ""
    if text:
        try:
            written = parse_utc(text)
        except Exception:  # dateutil raises several types; a bad stamp only loses the late check
            sub.note(f"{TIMESTAMP} could not be read")
    received = parse_utc(sub.received) if sub.received else None
    if received is not None and (written is None or written < received - TOLERANCE):
        if written is not None:
            sub.note(
                f"{TIMESTAMP} says {written:%Y-%m-%d %H:%M:%S} UTC, earlier than the exchange received the "
                f"files ({received:%Y-%m-%d %H:%M:%S} UTC): the arrival time counts"
            )
        written = received
    if written is None:  # a folder without nbgrader's stamp: no late check
        return
    sub.timestamp = written.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def prepare(sub: Submission, resources: dict, config):
    """The prepared notebook of ``sub``; raises :class:`NotGraded` with one sentence if there is none."""
    path = submitted_notebook(sub)
    try:
        data = read_regular(path) if path is not None else b""
    except OSError as err:
        raise NotGraded(f"the notebook could not be read again ({first_line(err)})") from None
    if not sub.sha256 or sha256(data) != sub.sha256:
        raise NotGraded("the notebook changed after it was checked at intake; grade again once it is stable")
    nb = nbformat.reads(data.decode("utf-8"), as_version=4)
    read_timestamp(sub)
    try:
        nb, _ = run_chain(PREPARE, nb, resources, config)
    except NotGraded:
        raise
    except Exception as err:  # nbgrader's own checks (metadata, duplicates) raise several types
        sub.log.append(traceback.format_exc())
        raise NotGraded(f"nbgrader could not prepare the notebook ({first_line(err)})") from None
    return nb
