"""Root gives the course directory back to the group without following a link a grader swaps in (issue 58).

``share_course_dir`` runs as root at the end of every privileged step and
changes the group and mode of every entry of a tree the staff write. Read by
path, an entry checked as a regular file could be swapped for a link to a
root-only file before its ``chmod``, which follows links: root would then
make that file the staff group's. The walk goes by directory descriptor and
changes each entry through a descriptor opened without following links, so a
swap changes nothing outside the tree. The swapper here is a thread that
renames a file and a link over one name as fast as it can.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from instructor.hub import accounts
from tests.system import require_root

#: runs of the walk while the names swap (the code before the fix lost the race within a few dozen here)
RUNS = 300


def test_a_link_swapped_in_during_the_walk_is_never_followed(tmp_path: Path):
    require_root("root's walk changes owners and groups")
    secret = tmp_path / "secret"  # a root-only file outside the course directory
    secret.write_text("root's alone\n")
    os.chmod(secret, 0o600)
    course_dir = tmp_path / "course"
    course_dir.mkdir()
    for i in range(20):  # entries for the walk to spend time on
        (course_dir / f"notes-{i}.txt").write_text("x")
    victim = course_dir / "victim"
    plain, link = course_dir / ".plain", course_dir / ".link"
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            for made, maker in (
                (plain, lambda: plain.write_text("a grader's file")),
                (link, lambda: link.symlink_to(secret)),
            ):
                try:
                    maker()
                    os.replace(made, victim)
                except OSError:
                    pass

    swapper = threading.Thread(target=swap, daemon=True)
    swapper.start()
    gid = os.getgid() + 4242
    try:
        for _ in range(RUNS):
            accounts.share_course_dir(course_dir, gid)
    finally:
        stop.set()
        swapper.join()
    info = secret.stat()
    assert (stat.S_IMODE(info.st_mode), info.st_gid, info.st_uid) == (0o600, os.getgid(), 0)
