"""The feedback root releases: copied out of the staff's folder by descriptor, never followed by path.

``nbgrader release_feedback`` reads ``<dir>/feedback/<student>/<a>/`` (each
page, ``timestamp.txt`` and ``submission_secret.txt``) by path and copies the
pages into the exchange, as root. The course directory is the staff's to
write: a link planted there would make root read a file of root's and put it
where a student fetches feedback; a FIFO would stall the step. So root first
copies what nbgrader will read into a folder of its own (:func:`copy_feedback`),
walking the staff's folders by descriptor (``O_NOFOLLOW`` at every name) and
taking only regular files with one link and within :data:`MAX_BYTES`; then
nbgrader releases from that copy. Each file it leaves out gets one line
naming the student and the file; the other students' feedback is released.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from instructor.coursedir.atomic import open_folder
from instructor.coursedir.ids import is_student_id
from instructor.coursedir.tree_copy import copy_file_at

#: the largest file copied (a feedback page with its figures is well under it)
MAX_BYTES = 20 * 2**20
#: what nbgrader's release_feedback reads in each student's folder, besides the pages (``*.html``)
RECORDS = ("timestamp.txt", "submission_secret.txt")
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def copy_feedback(course_dir: Path, assignment: str, into: Path) -> list[str]:
    """Copy ``<course_dir>/feedback/*/<assignment>/`` into ``into/<student>/<assignment>/`` (``into``: a folder
    of the caller's alone); returns one line for each file or folder left out, and why."""
    left_out: list[str] = []
    try:
        top = open_folder(course_dir)
    except OSError as err:
        return [f"the course directory cannot be opened ({err.strerror}): no feedback copied"]
    try:
        feedback = _open_dir("feedback", top)
    except OSError as err:
        return [] if err.errno == errno.ENOENT else [f"feedback/ is not a folder ({err.strerror}): no feedback copied"]
    finally:
        os.close(top)
    try:
        for student in sorted(os.listdir(feedback)):
            if not is_student_id(student):
                left_out.append(f"feedback/{student!r}: not a student id, left out")
                continue
            left_out += _copy_student(feedback, student, assignment, into)
    finally:
        os.close(feedback)
    return left_out


def _open_dir(name: str, parent: int) -> int:
    return os.open(name, _DIR, dir_fd=parent)


def _copy_student(feedback: int, student: str, assignment: str, into: Path) -> list[str]:
    where = f"feedback/{student}/{assignment}"
    try:
        folder = _open_dir(student, feedback)
    except OSError as err:
        return [f"feedback/{student}: {_folder_error(err)}, left out"]
    try:
        try:
            inner = _open_dir(assignment, folder)
        except FileNotFoundError:
            return []
        except OSError as err:
            return [f"{where}: {_folder_error(err)}, left out"]
    finally:
        os.close(folder)
    left_out = []
    try:
        names = sorted(n for n in os.listdir(inner) if n.endswith(".html") or n in RECORDS)
        target = into / student / assignment
        target.mkdir(mode=0o700, parents=True)
        for name in names:
            why = copy_file_at(inner, name, target / name, MAX_BYTES)
            if why:
                left_out.append(f"{where}/{name}: {why}, left out")
    finally:
        os.close(inner)
    return left_out


def _folder_error(err: OSError) -> str:
    if err.errno in (errno.ELOOP, errno.ENOTDIR):
        return "not a folder of its own (a link or a file)"
    return err.strerror or "cannot be opened"
