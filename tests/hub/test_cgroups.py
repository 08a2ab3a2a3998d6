"""Each user's server in a cgroup of its hub's own: the limit the kernel enforces, and two hubs side by side.

Real cgroups of the kernel this runs on (v1 here, v2 in tests/cgroup2's VM);
the fake-tree tests of both layouts are tests/sandbox/test_cgroup.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest

from instructor.hub import cgroups
from tests.system import missing, require_root

ALLOCATE = "import sys; b = bytearray(int(sys.argv[1]) * 2**20); b[::4096] = b'x' * len(b[::4096]); print('ok')"


@pytest.fixture
def course():
    """A course name of this test's own, its cgroups removed after it."""
    require_root("the test writes cgroups")
    if not cgroups.available():
        missing(f"cgroups to write ({cgroups.why()})")
    name = f"test-{uuid.uuid4().hex[:8]}"
    yield name
    cgroups.leftovers(name)


def joining(group: cgroups.UserCgroup):
    """A preexec function that puts the child in ``group``, as the spawner's does."""
    files = [str(f) for f in group.procs_files]

    def join():
        for procs in files:
            with open(procs, "w") as f:
                f.write(str(os.getpid()))

    return join


def test_the_memory_limit_is_enforced(course):
    """A process inside a user's cgroup of 200 MB gets 100 MB and is killed asking for 400 MB."""
    group = cgroups.UserCgroup(course, "amy").start(memory_mb=200, cpus=0.5, processes=32)
    assert group.held == ("memory", "processes", "cpu")
    small = subprocess.run([sys.executable, "-c", ALLOCATE, "100"], preexec_fn=joining(group), capture_output=True)
    large = subprocess.run([sys.executable, "-c", ALLOCATE, "400"], preexec_fn=joining(group), capture_output=True)
    assert small.returncode == 0, small.stderr
    assert large.returncode == -9, (large.returncode, large.stderr[-500:])  # the OOM killer's SIGKILL
    assert group.out_of_memory()
    group.remove()
    assert not any(folder.exists() for folder in group.folders)


def test_stopping_one_hub_leaves_the_other_hubs_users_running(course):
    """Two hubs on one machine, a user of each: the first hub's leftovers end its user's processes only
    (before: every hub's users shared course-hub/<user> and all were killed)."""
    other = f"{course}-other"
    mine = cgroups.UserCgroup(course, "amy").start(memory_mb=200, cpus=1.0, processes=32)
    theirs = cgroups.UserCgroup(other, "amy").start(memory_mb=200, cpus=1.0, processes=32)
    procs = [subprocess.Popen(["sleep", "60"], preexec_fn=joining(g)) for g in (mine, theirs)]
    try:
        assert mine.members() == [procs[0].pid] and theirs.members() == [procs[1].pid]
        assert cgroups.leftovers(course) == 1
        assert procs[0].wait(timeout=10) == -9
        assert procs[1].poll() is None and theirs.members() == [procs[1].pid]
        assert not cgroups.course_group(course).folders[0].exists()
    finally:
        cgroups.leftovers(other)
        for proc in procs:
            proc.wait(timeout=10)


def test_a_server_is_not_started_where_no_limit_can_be_set(monkeypatch):
    """The spawner fails closed too (a hub started from its configuration file alone): no server without
    limits unless the file says no_limits (before: it logged a warning and started the server unlimited)."""
    import asyncio
    from types import SimpleNamespace

    pytest.importorskip("jupyterhub")
    from jupyterhub.spawner import LocalProcessSpawner

    from instructor.hub.spawner import CourseSpawner
    from instructor.sandbox import cgroup

    monkeypatch.setattr(cgroup, "layout", lambda: cgroup.Layout(0, why="no cgroup file system is mounted"))

    async def started(self):
        return ("127.0.0.1", 1)

    monkeypatch.setattr(LocalProcessSpawner, "start", started)
    user = SimpleNamespace(name="amy", url="/user/amy/")
    with pytest.raises(RuntimeError, match="no memory and process limit can be set .*no cgroup file system"):
        asyncio.run(CourseSpawner(user=user, cgroup_parent="rnn").start())
    assert asyncio.run(CourseSpawner(user=user, cgroup_parent="rnn", no_limits=True).start()) == ("127.0.0.1", 1)
