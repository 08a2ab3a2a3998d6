"""What root writes in a course directory belongs to the instructor who owns it.

Grading needs root (the sandbox switches to uids 65534 and 65533 and makes cgroups);
nothing else does. After ``sudo course grade`` (or ``feedback``, ``unflag``),
the files the autograder wrote go back to the owner of the course directory, so
the formgrader, exports and hand grading run as that instructor, without
root's rights (a page that could run script would then hold only theirs).

Only the folders the autograder writes are walked, never the exchange (students
write there); links are not followed, and a file with a second hard link is
left alone (it may be somebody else's file).
"""

from __future__ import annotations

import os

from instructor.coursedir.course_dir import COURSE_WRITES, CourseDir  # COURSE_WRITES: what `course` writes there


def hand_back(course_dir: CourseDir) -> int:
    """As root, give root's files among :data:`COURSE_WRITES` to ``course_dir``'s owner; returns how many."""
    if os.geteuid() != 0:
        return 0
    owner = os.stat(course_dir.path)
    if owner.st_uid == 0:
        return 0
    changed = 0
    for name in COURSE_WRITES:
        top = course_dir.path / name
        paths = [top] if top.is_file() or top.is_symlink() else [top, *top.rglob("*")] if top.is_dir() else []
        for path in paths:
            info = os.lstat(path)
            if info.st_uid != 0 or (path.is_file() and not path.is_symlink() and info.st_nlink > 1):
                continue
            os.chown(path, owner.st_uid, owner.st_gid, follow_symlinks=False)
            changed += 1
    return changed
