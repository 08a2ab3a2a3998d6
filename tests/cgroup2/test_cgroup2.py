"""The sandbox's and the hub's limits on a real cgroup v2 kernel: Debian 12 in a VM under qemu.

This machine (and CI's) mounts cgroup v1; the machines a class runs on mount
v2 only. The VM (:mod:`tests.cgroup2.vm`: built once, cached) boots a v2
kernel with the host's Python environment and this tree shared read-only,
runs the real-kernel limit tests there (a fork bomb, a memory hog, a busy loop
in the sandbox; a user's server memory limit and two hubs side by side), and
sends back pytest's report and what was measured. Software emulation, one
vCPU: a few minutes on a loaded 2-core machine (see the closing note of issue 44).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import xml.etree.ElementTree as ET

import pytest

from instructor.paths import REPO_ROOT
from tests.cgroup2 import vm
from tests.system import missing, require_root

pytestmark = pytest.mark.cgroup2

#: what runs inside: the tests that use the kernel's cgroups (the fake-tree tests need no VM)
INSIDE = ["tests/sandbox/test_limits.py", "tests/hub/test_cgroups.py"]
#: pytest without the plugins and settings these tests do not use (under emulation each costs seconds to import);
#: ``-p instructor`` imports the course's package first, which keeps jsonschema (under the tests' nbformat) from
#: building rfc3987_syntax's IRI parsers: 1 s of CPU on the host, about 20 s under emulation
OPTIONS = " ".join(
    [
        "-q -rs --durations=0 --noconftest -o addopts= -o filterwarnings= -p no:cacheprovider",
        "-p no:nbval -p no:hypothesispytest -p no:benchmark -p no:anyio -p no:trio -p instructor",
    ]
)
#: grading and commands, not the kernel: tested on the host
DESELECT = "not every_field and not refuse and not hands_its_limits and not output_cap"

GUEST = """#!/bin/sh
echo "guest: started at $(cut -d' ' -f1 /proc/uptime) s of uptime"
while read -r tag path; do
    mkdir -p "$path" && mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288,cache=loose,ro "$tag" "$path"
done < /run/host/shares
echo "guest: $(stat -f -c %T /sys/fs/cgroup) with $(cat /sys/fs/cgroup/cgroup.controllers)"
export HOME=/root LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 CI={ci} COURSE_LIMITS_REPORT=/run/host/limits.json
export PATH={prefix}/bin:/usr/sbin:/usr/bin:/sbin:/bin
cd {repo}
start=$(cut -d' ' -f1 /proc/uptime)
{python} -m pytest {options} {tests} -k '{deselect}' --junitxml=/run/host/junit.xml > /run/host/pytest.txt 2>&1
echo $? > /run/host/status
echo "guest: pytest took $(echo "$(cut -d' ' -f1 /proc/uptime) $start" | awk '{{print $1 - $2}}') s"
sync
echo o > /proc/sysrq-trigger
"""


def test_limits_hold_on_a_cgroup_v2_kernel(tmp_path):
    for tool in ("qemu-system-x86_64", "debootstrap", "mkfs.ext4"):
        if not shutil.which(tool):
            missing(f"{tool} for the cgroup v2 VM")
    require_root("it builds the VM's image (debootstrap) and boots it")
    image, built = vm.build(log=lambda line: None)
    script = GUEST.format(
        ci=os.environ.get("CI", ""),
        prefix=sys.prefix,
        repo=REPO_ROOT,
        python=sys.executable,
        tests=" ".join(INSIDE),
        deselect=DESELECT,
        options=OPTIONS,
    )
    results = tmp_path / "results"
    booted = vm.boot(image, script, results)
    console = booted.console[-3000:]
    assert (results / "status").exists(), f"the guest did not finish (qemu exit {booted.returncode}):\n{console}"
    report = (results / "pytest.txt").read_text()
    assert "guest: cgroup2fs with" in booted.console and "memory" in booted.console, console
    assert (results / "junit.xml").exists(), report
    suite = ET.parse(results / "junit.xml").getroot().find("testsuite")
    counts = {k: int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped")}
    assert counts["tests"] >= 7 and counts["failures"] == counts["errors"] == counts["skipped"] == 0, report
    assert (results / "status").read_text().strip() == "0", report
    measured = json.loads((results / "limits.json").read_text())
    assert measured["isolation"].endswith("memory, process and CPU limits per sandbox (cgroup v2)"), measured
    timings = [line for line in booted.console.splitlines() if line.startswith("guest:")]
    slowest = report[report.find("slowest durations") :].splitlines()[1:12]
    print(
        f"image: {f'built in {built:.0f} s' if built else 'cached'}; qemu ran {booted.seconds:.0f} s",
        *timings,
        json.dumps(measured),
        *slowest,
        sep="\n",
    )
