"""A memory, CPU and process budget per user's server, in the course's own cgroup subtree.

JupyterHub's local-process spawner ignores ``mem_limit`` and ``cpu_limit``
(it only passes them on as variables); a cgroup makes the kernel enforce them:
the server, its kernels and terminals together get at most ``memory_mb``
(the OOM killer ends a process past it), ``cpus`` CPUs' time and
``processes`` processes. Named ``course-hub/<course>/<user>``: each hub has a
parent of its own, so stopping one course's hub leaves another's users
running. The layout (cgroup v2 or v1) is :mod:`instructor.sandbox.cgroup`'s.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from instructor.errors import CourseError
from instructor.sandbox import cgroup

PARENT = "course-hub"
#: where `course hub` keeps each hub's folder by default (one per course: the names are unique there)
HUBS = Path("/srv/course-hub")
#: a course id or a user name as a cgroup folder: one plain path part
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@-]*")


def available() -> bool:
    """True when memory and process limits can be set here (cgroup v2 or v1, as root)."""
    return cgroup.available()


def words() -> str:
    """The limits here in words: "memory, process and CPU limits per cgroup (cgroup v2)"."""
    return cgroup.layout().words()


def why() -> str:
    """Why no memory and process limit can be set here ("" when they can)."""
    return cgroup.layout().why


def hub_name(hub_dir: Path) -> str:
    """The cgroup parent's name of the hub kept in ``hub_dir``: its folder's name under :data:`HUBS` (the course
    id by default), elsewhere with a hash of the whole path (two hubs' folders may share a last name)."""
    if hub_dir.parent == HUBS:
        return hub_dir.name
    return f"{hub_dir.name}-{hashlib.sha256(str(hub_dir).encode()).hexdigest()[:8]}"


def _part(name: str) -> str:
    if not NAME.fullmatch(name):
        raise CourseError(f"{name!r} cannot name a cgroup: letters, digits, '_', '.', '@' and '-' only.")
    return name


def course_group(course: str) -> cgroup.Group:
    """The parent of every user's cgroup of ``course``'s hub."""
    return cgroup.Group(f"{PARENT}/{_part(course)}")


class UserCgroup(cgroup.Group):
    """The cgroup of one user's server on ``course``'s hub: ``course-hub/<course>/<user>``."""

    def __init__(self, course: str, user: str):
        super().__init__(f"{PARENT}/{_part(course)}/{_part(user)}")

    def start(self, memory_mb: int, cpus: float, processes: int) -> UserCgroup:
        """Empty it of a server left by an earlier hub, then (re)make it with these limits."""
        self.kill()
        self.create(cgroup.Budget(memory_mb, processes, cpus))
        return self

    def pids(self) -> list[int]:
        return self.members()

    def remove(self) -> None:
        """Kill whatever is left (kernels started in sessions of their own too) and remove the cgroup."""
        self.destroy()


def leftovers(course: str) -> int:
    """Kill what is left in ``course``'s cgroups (servers its hub could not stop) and remove them; returns how
    many processes were killed.

    Only this course's subtree: another course's hub on the same machine keeps its users.
    """
    return course_group(course).remove_tree()
