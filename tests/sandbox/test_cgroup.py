"""The one cgroup module on fake cgroup trees: both layouts found from mountinfo, the files each writes and reads.

A fake tree is plain folders and files: the kernel's side (control files that
appear on mkdir, counters it raises) is written by the test where it matters.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from instructor.hub import cgroups as hub_cgroups
from instructor.sandbox import cgroup
from instructor.sandbox.cgroup import Budget, Group, read_layout

V2_CONTROLLERS = "cpuset cpu io memory hugetlb pids rdma misc"


def mountinfo(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "mountinfo"
    path.write_text("".join(f"{i} 1 0:{i} / {line}\n" for i, line in enumerate(lines, 30)))
    return path


def v2_tree(tmp_path: Path, controllers: str = V2_CONTROLLERS, swap: bool = True) -> tuple[Path, Path]:
    """A v2-only machine, as systemd mounts it: one cgroup2 tree at <tmp>/cgroup."""
    root = tmp_path / "cgroup"
    root.mkdir()
    (root / "cgroup.controllers").write_text(controllers + "\n")
    (root / "cgroup.subtree_control").write_text("")
    info = mountinfo(tmp_path, [f"{root} rw,nosuid - cgroup2 cgroup2 rw,nsdelegate", "/proc rw - proc proc rw"])
    return root, info


def v1_tree(tmp_path: Path, hybrid: bool = False) -> tuple[Path, Path]:
    """A v1 machine: memory, pids and cpu,cpuacct trees (and systemd's empty cgroup2 when ``hybrid``)."""
    root = tmp_path / "cgroup"
    lines = []
    for folder, options in (("memory", "memory"), ("pids", "pids"), ("cpu,cpuacct", "cpu,cpuacct")):
        (root / folder).mkdir(parents=True)
        lines.append(f"{root / folder} rw - cgroup cgroup rw,{options}")
    if hybrid:
        (root / "unified").mkdir()
        (root / "unified" / "cgroup.controllers").write_text("\n")
        lines.append(f"{root / 'unified'} rw - cgroup2 cgroup2 rw,nsdelegate")
    return root, mountinfo(tmp_path, lines)


def test_a_v2_machine_is_found_with_its_controllers(tmp_path):
    root, info = v2_tree(tmp_path)
    found = read_layout(info)
    assert (found.version, found.mounts, found.controllers, found.usable) == (2, {"": root}, cgroup.CONTROLLERS, True)
    assert found.words() == "memory, process and CPU limits per cgroup (cgroup v2)"


def test_a_v1_machine_is_found_and_a_hybrid_one_uses_v1(tmp_path):
    root, info = v1_tree(tmp_path, hybrid=True)
    found = read_layout(info)
    assert found.version == 1 and found.usable
    assert found.mounts == {"memory": root / "memory", "pids": root / "pids", "cpu": root / "cpu,cpuacct"}
    assert found.words() == "memory, process and CPU limits per cgroup (cgroup v1)"


@pytest.mark.parametrize("lines, why", [
    (["/proc rw - proc proc rw"], "no cgroup file system is mounted"),
    (["{tmp}/cgroup rw - cgroup2 cgroup2 rw"], "neither cgroup v2 nor v1 offers the memory and pids controllers"),
])  # fmt: skip
def test_without_memory_and_pids_nothing_is_usable_and_it_says_why(tmp_path, lines, why):
    v2_tree(tmp_path, controllers="cpu io")
    found = read_layout(mountinfo(tmp_path, [line.format(tmp=tmp_path) for line in lines]))
    assert (found.version, found.usable, found.why) == (0, False, why)
    assert found.words() == f"no memory or process limit ({why})"


def test_v2_hands_the_controllers_down_and_writes_the_limits(tmp_path):
    """Does a v2 cgroup get memory.max, memory.swap.max 0, pids.max and cpu.max, each ancestor's
    subtree_control enabling the controllers below it?"""
    root, info = v2_tree(tmp_path)
    leaf = root / "course-sandbox" / "1-a"
    leaf.mkdir(parents=True)
    (leaf / "memory.swap.max").write_text("max\n")  # the kernel makes it on mkdir, where it has swap accounting
    group = Group("course-sandbox/1-a", read_layout(info)).create(Budget(memory_mb=256, processes=32, cpus=0.5))
    assert group.folders == [leaf] and group.held == ("memory", "processes", "cpu")
    assert [(leaf / f).read_text() for f in ("memory.max", "memory.swap.max", "pids.max", "cpu.max")] == [
        str(256 * 2**20),
        "0",
        "32",
        "50000 100000",
    ]
    for folder in (root, root / "course-sandbox"):
        assert (folder / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    assert group.procs_files == [leaf / "cgroup.procs"]
    uncapped = Group("course-sandbox/1-b", read_layout(info)).create(Budget(memory_mb=64, processes=8))
    assert (root / "course-sandbox" / "1-b" / "cpu.max").read_text() == "max 100000"
    assert not (root / "course-sandbox" / "1-b" / "memory.swap.max").exists()  # no swap accounting: not made
    assert uncapped.held == ("memory", "processes", "cpu")


def test_v1_writes_each_controllers_tree(tmp_path):
    root, info = v1_tree(tmp_path)
    memory = root / "memory" / "course-hub" / "c" / "amy"
    memory.mkdir(parents=True)
    (memory / "memory.memsw.limit_in_bytes").write_text("9223372036854771712\n")
    group = Group("course-hub/c/amy", read_layout(info)).create(Budget(memory_mb=200, processes=16, cpus=1.0))
    assert group.held == ("memory", "processes", "cpu")
    assert (memory / "memory.limit_in_bytes").read_text() == (memory / "memory.memsw.limit_in_bytes").read_text()
    assert (root / "pids" / "course-hub" / "c" / "amy" / "pids.max").read_text() == "16"
    assert (root / "cpu,cpuacct" / "course-hub" / "c" / "amy" / "cpu.cfs_quota_us").read_text() == "100000"
    assert group.procs_files == [
        root / c / "course-hub/c/amy" / "cgroup.procs" for c in ("memory", "pids", "cpu,cpuacct")
    ]


@pytest.mark.parametrize("version", [1, 2])
def test_what_happened_is_read_on_both_layouts(tmp_path, version):
    """Do the kernel's counters say "killed: memory limit" and "too many processes" on v1 and on v2?"""
    root, info = v2_tree(tmp_path) if version == 2 else v1_tree(tmp_path)
    group = Group("course-sandbox/1-a", read_layout(info)).create(Budget(memory_mb=64, processes=8))
    memory, pids = (group.folders[0], group.folders[0]) if version == 2 else group.folders[:2]
    quiet = {
        2: {"memory.events": "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n", "pids.events": "max 0\n"},
        1: {
            "memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n",
            "memory.failcnt": "0\n",
            "pids.events": "max 0\n",
        },
    }[version]
    for name, text in quiet.items():
        (pids if name.startswith("pids") else memory).joinpath(name).write_text(text)
    assert not group.out_of_memory() and not group.hit_process_limit()
    if version == 2:
        (memory / "memory.events").write_text("low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n")
        (memory / "memory.peak").write_text(str(64 * 2**20))
    else:
        (memory / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 1\n")
        (memory / "memory.max_usage_in_bytes").write_text(str(64 * 2**20))
    (pids / "pids.events").write_text("max 3\n")
    assert group.out_of_memory() and group.hit_process_limit() and group.memory_peak_mb() == 64


def test_a_v2_group_is_emptied_through_cgroup_kill(tmp_path):
    root, info = v2_tree(tmp_path)
    group = Group("course-sandbox/1-a", read_layout(info)).create(Budget(memory_mb=64, processes=8))
    (group.folders[0] / "cgroup.procs").write_text("4194305\n")  # above any pid_max: no process gets the signal
    assert group.kill() == 1 and (group.folders[0] / "cgroup.kill").read_text() == "1"


@pytest.mark.parametrize("version", [1, 2])
def test_stopping_one_hub_leaves_the_other_courses_users(tmp_path, monkeypatch, version):
    """Two hubs on one machine: each course has its parent; the leftovers of one are only its own."""
    root, info = v2_tree(tmp_path) if version == 2 else v1_tree(tmp_path)
    monkeypatch.setattr(cgroup, "layout", lambda: read_layout(info))
    for course, user in (("rnn", "amy"), ("rnn", "bob"), ("nlp", "amy")):
        hub_cgroups.UserCgroup(course, user).start(memory_mb=64, cpus=1.0, processes=8)
    top = root if version == 2 else root / "pids"
    assert sorted(p.name for p in (top / "course-hub").iterdir() if p.is_dir()) == ["nlp", "rnn"]
    killed = []
    monkeypatch.setattr(Group, "kill", lambda self: killed.append(self.name) or 0)
    hub_cgroups.leftovers("rnn")
    assert sorted(killed) == ["course-hub/rnn", "course-hub/rnn/amy", "course-hub/rnn/bob"]
    assert (top / "course-hub" / "nlp" / "amy" / "pids.max").read_text() == "8"


def test_a_hub_is_named_after_its_folder():
    assert hub_cgroups.hub_name(Path("/srv/course-hub/seqmodels")) == "seqmodels"
    other = hub_cgroups.hub_name(Path("/tmp/a/seqmodels"))
    assert other.startswith("seqmodels-") and other != hub_cgroups.hub_name(Path("/tmp/b/seqmodels"))
    with pytest.raises(Exception, match="cannot name a cgroup"):
        hub_cgroups.UserCgroup("rnn", "../x")


def test_a_v2_root_that_cannot_hand_the_controllers_down_is_not_usable(tmp_path):
    """A container's own cgroup namespace: its root holds processes, so the kernel refuses subtree_control."""
    root, info = v2_tree(tmp_path)
    (root / "cgroup.subtree_control").unlink()
    (root / "cgroup.subtree_control").mkdir()  # unreadable and unwritable as a file, as EBUSY is to us
    found = read_layout(info)
    assert not found.usable and "cannot hand memory and pids down" in found.why
