"""nbgrader's exchange, laid out so that it is the course's and not the students'.

nbgrader makes its exchange root world-writable (0777) and its ``inbound``
``2733``: a student could then rename the course's folder and plant her own
``outbound`` for classmates to fetch. Here every folder is root's and only
``inbound`` takes writes from students::

    <root>/                 root:root 0755   nobody else creates, renames or removes anything
    <root>/<course>/        root:root 0755
        outbound/           root:root 0755   released assignments: only root (the staff's privileged path) writes
        inbound/            root:root 1733   a student makes her own folder; cannot list, rename or remove others'
        feedback/           root:root 0711   feedback pages by their hash, not listable

Students' nbgrader then needs ``CourseDirectory.groupshared = True`` (it
skips nbgrader's check that the root is world-writable; the hub's student
settings say so), and :class:`instructor.hub.student.PrivateSubmit` leaves a submission folder
0755 where nbgrader leaves it 0777.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from instructor.errors import CourseError

#: {path inside the exchange root: mode}; "" is the root itself, "{course}" the course's folder
MODES = {
    "": 0o755,
    "{course}": 0o755,
    "{course}/outbound": 0o755,
    "{course}/inbound": 0o1733,
    "{course}/feedback": 0o711,
}


def folders(root: Path, course_id: str) -> dict[Path, int]:
    """``{folder: mode}`` of the exchange ``root`` for ``course_id``, outermost first."""
    return {root / part.format(course=course_id) if part else root: mode for part, mode in MODES.items()}


def lay_out(root: Path, course_id: str) -> list[str]:
    """As root: make or fix the exchange's folders (owner root, :data:`MODES`); returns what changed.

    A folder there that is a link, not a folder, or owned by someone other
    than root was made by somebody else (a student, through nbgrader's old
    0777 root): it is refused in one sentence, never adopted.
    """
    if os.geteuid() != 0:
        raise CourseError(f"only root can lay out the exchange {root} (students must not own any of it).")
    changed = []
    for folder, mode in folders(root, course_id).items():
        if not os.path.lexists(folder):
            folder.mkdir(parents=True)
            changed.append(f"{folder}: made")
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0:
            what = "not a folder" if not stat.S_ISDIR(info.st_mode) else f"owned by uid {info.st_uid}"
            raise CourseError(
                f"{folder} is {what}: somebody else made it; move it away "
                f"(`sudo mv {folder} {folder}.suspect`) and start again."
            )
        if info.st_gid != 0:
            os.chown(folder, 0, 0, follow_symlinks=False)
            changed.append(f"{folder}: group root")
        if stat.S_IMODE(info.st_mode) != mode:
            os.chmod(folder, mode)
            changed.append(f"{folder}: {stat.S_IMODE(info.st_mode):04o} -> {mode:04o}")
    return changed


def problems(root: Path, course_id: str) -> list[str]:
    """What differs from :data:`MODES` (read only; empty when the exchange is laid out)."""
    found = []
    for folder, mode in folders(root, course_id).items():
        try:
            info = os.lstat(folder)
        except FileNotFoundError:
            found.append(f"{folder} is missing")
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or stat.S_IMODE(info.st_mode) != mode:
            found.append(f"{folder} is uid {info.st_uid}, {stat.S_IMODE(info.st_mode):04o} (want root, {mode:04o})")
    return found
