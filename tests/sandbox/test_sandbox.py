"""Is the sandbox what it claims, and is grading refused without one?"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from instructor import sandbox
from instructor.paths import REPO_ROOT, SOLUTIONS
from instructor.sandbox import command, scratch
from instructor.sandbox import probe as sandbox_probe
from instructor.sandbox import run as sandbox_run
from tests.system import require_sandbox

#: a notebook the sandbox can start a kernel for
KERNEL = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}


#: limits for a cell or two that finish at once
SHORT = sandbox.Limits(cell_timeout=20, notebook_budget=60)


def _run(sources, isolation, limits: sandbox.Limits = SHORT) -> sandbox.Execution:
    """One code cell per source, run in the sandbox."""
    return sandbox.run_notebook(
        new_notebook(cells=[new_code_cell(s) for s in sources], metadata=KERNEL), [], limits, isolation
    )


def _printed(run) -> str:
    """What the first cell of ``run`` printed."""
    return "".join(o.get("text", "") for o in run.notebook.cells[0].outputs)


PROBE = f"""\
import os, socket
print('uid', os.getuid())
print('solutions', os.path.exists({str(SOLUTIONS)!r}))
print('repo tests', os.path.exists({str(REPO_ROOT / "tests")!r}))
print('root home', os.path.exists('/root/.bashrc'))
print('secret', os.environ.get('COURSE_SANDBOX_PROBE_SECRET'))
print('pids', sorted(int(p) for p in os.listdir('/proc') if p.isdigit())[:3])
try:
    socket.create_connection(('1.1.1.1', 53), timeout=2)
    print('network yes')
except OSError:
    print('network no')
"""


def test_kernel_runs_as_its_own_user_without_network_files_or_secrets(monkeypatch):
    """Does a kernel in the sandbox run as its own uid (65533), without network, solutions, /root or the grader's
    environment?"""
    isolation = require_sandbox()
    monkeypatch.setenv("COURSE_SANDBOX_PROBE_SECRET", "do-not-show")
    run = _run([PROBE], isolation)
    assert run.status == "ok", run.log
    text = _printed(run)
    assert f"uid {sandbox.KERNEL_UID}\n" in text and sandbox.KERNEL_UID != sandbox.NOBODY
    assert "solutions False" in text and "repo tests False" in text and "root home False" in text
    assert "secret None" in text
    assert "network no" in text
    assert "pids [1, 2" in text  # its own PID namespace: the grader is invisible


def test_grade_refuses_without_sandbox(run_course, monkeypatch, tmp_path):
    """Is `course grade` refused, in one sentence, when no sandbox is available and --unsafe is not given?"""
    monkeypatch.setenv("COURSE_SANDBOX", "none")
    sandbox.detect.cache_clear()
    try:
        (tmp_path / "subs" / "ann" / "01_rnn").mkdir(parents=True)
        nbformat.write(new_notebook(), str(tmp_path / "subs" / "ann" / "01_rnn" / "01_rnn.ipynb"))
        _, err = run_course(["grade", tmp_path / "subs", "--course-dir", tmp_path / "ws"], retcode=1)
        assert "no sandbox" in err and "--unsafe" in err
        assert len(err.strip().splitlines()) == 1
        assert not (tmp_path / "ws").exists()
    finally:
        sandbox.detect.cache_clear()


def test_unsafe_is_named_in_the_report(monkeypatch):
    """Does an unsafe isolation say, in the words of the report, that code runs with the grader's rights?"""
    monkeypatch.setenv("COURSE_SANDBOX", "none")
    sandbox.detect.cache_clear()
    try:
        isolation = sandbox.detect()
        assert not isolation.safe and "grader's rights" in isolation.detail
    finally:
        sandbox.detect.cache_clear()


def test_nbgrader_own_commands_use_the_sandbox_and_safe_feedback():
    """Do nbgrader's own autograde and feedback, run in grader/, get the sandbox and the leak guards?"""
    from traitlets.config.loader import PyFileConfigLoader

    from instructor.paths import GRADER

    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(GRADER)).load_config()
    autograde = [p.__name__ for p in cfg.Autograde.autograde_preprocessors]
    assert autograde[0] == "SandboxedExecute" and "Execute" not in autograde
    feedback = [p.__name__ for p in cfg.GenerateFeedback.preprocessors]
    # hidden-test outputs are hidden before ClearHiddenTests; the leak check runs last but the CSS
    assert feedback.index("HideHiddenTestOutputs") < feedback.index("ClearHiddenTestsOfTests")
    assert feedback[-2] == "WithholdLeaks" and "EscapeStudentHTML" in feedback and "CapOutputBytes" in feedback


GRADER_PROBE = f"""\
import importlib, os
for name in ('course.runtime', 'course.cipher_data', 'instructor', 'instructor.grading', 'course_data'):
    try:
        importlib.import_module(name)
        print(name, 'imported')
    except ImportError:
        print(name, 'missing')
print('grader source', os.path.exists({str(REPO_ROOT / "instructor" / "grading")!r}))
"""


def test_kernel_sees_the_student_package_and_not_the_grader():
    """Does a kernel in the sandbox import the student package, and neither the grader nor the data builder?"""
    isolation = require_sandbox()
    run = _run([GRADER_PROBE], isolation)
    assert run.status == "ok", run.log
    text = _printed(run)
    assert "course.runtime imported" in text and "course.cipher_data imported" in text
    assert "instructor missing" in text and "instructor.grading missing" in text and "course_data missing" in text
    assert "grader source False" in text


def test_grader_installed_in_the_venv_is_covered(monkeypatch, tmp_path):
    """When the grader is installed into the venv the sandbox binds (not editable), is it covered by an empty folder?"""
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    monkeypatch.setattr(command, "package_dir", lambda name: site / name)
    args = command.bwrap_args([str(tmp_path / "venv")], {})
    for name in ("instructor", "course_data"):
        at = args.index(str(site / name))
        assert args[at - 1] == "--tmpfs" and args[at + 1 : at + 3] == ["--remount-ro", str(site / name)]
    assert command.hidden([str(tmp_path / "elsewhere")]) == []  # an editable install lives outside the venv


def test_a_venv_under_tmp_is_seen_inside(monkeypatch):
    """Does a read-only root under the host's /tmp (a venv or clone made there) show inside, with /tmp still
    writable?"""
    import tempfile

    isolation = require_sandbox()
    root = Path(tempfile.mkdtemp(prefix="course-venv-", dir="/tmp"))
    try:
        (root / "marker.txt").write_text("seen")
        root.chmod(0o755)
        roots = command.readonly_roots()
        monkeypatch.setattr(command, "readonly_roots", lambda: sorted({*roots, str(root)}))
        probe = (
            f"print(open({str(root / 'marker.txt')!r}).read())\n"
            "open('/tmp/scratch.txt', 'w').write('ok')\nprint(open('/tmp/scratch.txt').read())"
        )
        run = _run([probe], isolation)
        assert run.status == "ok", run.log
        assert _printed(run).split() == ["seen", "ok"]
    finally:
        shutil.rmtree(root)


def test_the_probe_runs_the_real_interpreter_with_the_real_binds(monkeypatch):
    """Does the start-up probe fail, with the cause in one line, when the interpreter is not bound inside
    (as when a venv's folder is hidden), where a probe of /usr/bin/true would have passed?"""
    require_sandbox()
    monkeypatch.setattr(command, "readonly_roots", lambda: [str(REPO_ROOT / "course")])
    why = sandbox_probe.probe()
    assert why and "\n" not in why, why
    sandbox.detect.cache_clear()
    try:
        assert not sandbox.detect().safe and "does not start here" in sandbox.detect().detail
    finally:
        monkeypatch.undo()
        sandbox.detect.cache_clear()
    assert sandbox_probe.probe() == "" and sandbox.detect().safe


def _grade_the_reference(course_repo: Path, tmp_path: Path) -> list:
    """The toy course's reference as student ``ref``'s 01_toy; the arguments of `course` that grade it."""
    subs = tmp_path / "subs" / "ref" / "01_toy"
    subs.mkdir(parents=True)
    shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", subs)
    course = ["--course-dir", tmp_path / "cd", "--root", course_repo, "--assignment", "01_toy"]
    return ["grade", tmp_path / "subs", *course]


def _full_marks(out: str) -> bool:
    """Does the grade table ``out`` give ``ref`` 2 / 2 on 01_toy?"""
    return any(line.split()[:5] == ["ref", "01_toy", "2", "/", "2"] for line in out.splitlines())


def test_a_sandbox_that_did_not_start_is_retried(course_repo, tmp_path, run_course, monkeypatch):
    """Is a submission whose sandbox failed to start (the grader's fault) reported as such, not recorded
    as graded or as the student's failure, and graded by the next run without --force?"""
    require_sandbox()
    args = _grade_the_reference(course_repo, tmp_path)
    monkeypatch.setattr(
        command, "readonly_roots", lambda: [str(REPO_ROOT / "course")]
    )  # after detect(): a run-time break
    out, _ = run_course(args)
    assert "not graded: the grader failed on this submission (the sandbox did not start" in out, out
    monkeypatch.undo()
    out, _ = run_course(args)
    assert _full_marks(out), out


def test_grading_works_with_an_interpreter_under_tmp(course_repo, tmp_path):
    """Does `course grade`, run by a Python environment that lives under the host's /tmp (which the sandbox
    replaces by a small tmpfs of its own), grade the reference in full?"""
    import subprocess
    import sys
    import tempfile

    require_sandbox()
    env_dir = Path(tempfile.mkdtemp(prefix="course-env-", dir="/tmp")) / "venv"
    try:
        if sys.prefix != sys.base_prefix:  # a venv: the same files, hard-linked (fast, no download)
            subprocess.run(["cp", "-al", sys.prefix, str(env_dir)], check=True)
        else:  # packages installed into the base Python: a venv that sees them
            subprocess.run(
                [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(env_dir)], check=True
            )
        python = env_dir / "bin" / "python"
        assert subprocess.run(
            [python, "-c", "import sys; print(sys.prefix)"], capture_output=True, text=True, check=True
        ).stdout.strip() == str(env_dir)
        args = _grade_the_reference(course_repo, tmp_path)
        done = subprocess.run(
            [python, "-m", "instructor", *map(str, args)], capture_output=True, text=True, timeout=600
        )
        out = done.stdout + done.stderr
        assert done.returncode == 0, out[-2000:]
        assert _full_marks(out), out
    finally:
        shutil.rmtree(env_dir.parent, ignore_errors=True)


def test_a_sandbox_cannot_fill_the_disk_and_leaves_nothing_behind():
    """Does a notebook that writes more than the sandbox's disk size get 'no space left', with nothing
    written into the host's /tmp, and is a killed grader's scratch folder removed by the next sandbox?"""
    import shutil as sh
    import tempfile

    isolation = require_sandbox()
    dead = Path(tempfile.gettempdir()) / f"{scratch.SCRATCH}999999999-leftover"
    (dead / "work").mkdir(parents=True, exist_ok=True)
    (dead / "work" / "notebook.ipynb").write_text("hidden tests")
    free_before = sh.disk_usage(tempfile.gettempdir()).free
    fill = (
        "import os\nwritten = 0\ntry:\n    with open('/sandbox/work/fill.bin', 'wb') as f:\n"
        "        for _ in range(2000):\n            f.write(b'x' * 2**20); f.flush(); written += 1\n"
        "except OSError as err:\n    print('stopped', err.errno)\nprint('MB', written)"
    )
    run = _run([fill], isolation, sandbox.Limits(cell_timeout=60, notebook_budget=90, disk_mb=128, file_mb=1024))
    assert run.status == "ok", run.log
    text = _printed(run)
    assert "stopped 28" in text, text  # ENOSPC
    assert int(text.split("MB")[-1]) < 128
    assert sh.disk_usage(tempfile.gettempdir()).free > free_before - 64 * 2**20
    assert not dead.exists()


#: ``n`` processes that each spin from T0 to T1 (seconds since the epoch), then what they had: their CPU time
#: together (the kernel's accounting of the reaped children) and the seconds of the window they spun in
SPINNERS = """
import multiprocessing as mp, resource, time
T0, T1 = {t0!r}, {t1!r}
def spin():
    time.sleep(max(0.0, T0 - time.time()))
    while time.time() < T1:
        pass
start = max(T0, time.time())
procs = [mp.Process(target=spin) for _ in range({n})]
[p.start() for p in procs]
[p.join() for p in procs]
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(used.ru_utime + used.ru_stime, T1 - start)
"""


def test_busy_processes_leave_the_student_beside_them_their_share(tmp_path):
    """With a sandbox running 20 busy processes a CPU beside a student's one, does the student's process get
    many times the CPU time of one of them (each sandbox has a cpu cgroup: an equal share of the machine
    between sandboxes, not between processes), with the kernel's per-session fairness (autogroup) switched off
    so that only the course's guard is measured?

    Measured in CPU time, not in seconds on the clock: whatever else loads the machine takes from both
    sandboxes alike, so the ratio holds on a busy machine too. Without the cgroup every process has an equal
    share, the student's no more than one of the hog's.
    """
    import time
    from concurrent.futures import ThreadPoolExecutor

    from instructor.sandbox import cgroup

    isolation = require_sandbox()
    if "cpu" not in cgroup.layout().controllers:
        from tests.system import missing

        missing("the cpu cgroup controller")
    hogs = 20 * len(os.sched_getaffinity(0))  # the student's sandbox gets about 1 CPU; one hog, a 20th of one
    limits = sandbox.Limits(cell_timeout=120, notebook_budget=180, processes=hogs + 32)

    def rates(lead: float) -> list[tuple[float, float]]:
        """(CPU seconds per second of the window, window) of the hog (``hogs`` processes) and of the student (1)."""
        t0 = time.time() + lead  # both sandboxes have started by then on an idle machine
        cells = [SPINNERS.format(t0=t0, t1=t0 + 6, n=n) for n in (hogs, 1)]  # 6 s of spinning: 12 s of CPU on 2 CPUs
        with ThreadPoolExecutor(2) as pool:
            runs = list(pool.map(lambda cell: _run([cell], isolation, limits), cells))
        assert [run.status for run in runs] == ["ok", "ok"], [run.log for run in runs]
        used = [tuple(map(float, _printed(run).split())) for run in runs]
        return [(cpu / window if window > 0 else 0.0, window) for cpu, window in used]

    autogroup = Path("/proc/sys/kernel/sched_autogroup_enabled")
    before = autogroup.read_text() if autogroup.exists() else None
    try:
        if before is not None:
            autogroup.write_text("0")
        (hog, hog_window), (student, student_window) = rates(lead=15)
        if min(hog_window, student_window) < 5:  # a sandbox started late (a loaded machine): a longer lead
            (hog, hog_window), (student, student_window) = rates(lead=60)
    finally:
        if before is not None:
            autogroup.write_text(before)
    assert min(hog_window, student_window) >= 5, (hog_window, student_window)  # they did spin side by side
    assert hog > 0, hog
    # an equal share between sandboxes: 13-20 times one hog's CPU time (24 at load 17 here); between processes: 1
    assert student > 4 * hog / hogs, (student, hog, hogs)


FIGURES = """
from IPython.display import display
display({"image/png": "A" * 300_000, "text/plain": "<Figure>"}, raw=True)
print("x" * 300_000)
"""


def test_figures_and_text_have_budgets_of_their_own():
    """Is a 300 kB figure kept (figures: 1 MB a cell) while 300 kB of printed text is cut (text: 64 kB a cell)?"""
    from instructor.grading.preprocessors.cap_output_bytes import CapOutputBytes

    isolation = require_sandbox()
    run = _run([FIGURES], isolation)
    outputs = run.notebook.cells[0].outputs
    assert [o.output_type for o in outputs] == ["display_data", "stream"], outputs
    assert len(outputs[0]["data"]["image/png"]) == 300_000 and "output cut" in outputs[1]["text"]
    # the same budgets once more outside, where the returned notebook is scored and shown
    many = new_notebook(
        cells=[
            new_code_cell("", outputs=[nbformat.v4.new_output("display_data", data={"image/png": "B" * 900_000})])
            for _ in range(6)
        ]
    )
    kept, _ = CapOutputBytes()(many, {})
    assert sum(o.output_type == "display_data" for c in kept.cells for o in c.outputs) == 4  # 4 MB a notebook


SHAPED = [
    # output padded up to the cell's byte cap, then the failure
    "print('x' * 70_000)\nraise AssertionError('the test failed')",
    # the failure routed into an ipywidgets Output, which swallows the exception
    "from ipywidgets import Output\nfrom IPython.display import display\nbox = Output()\ndisplay(box)\n"
    "with box:\n    raise AssertionError('the test failed')",
    # stderr, then the output cleared
    "import sys\nfrom IPython.display import clear_output\nprint('the test failed', file=sys.stderr)\nclear_output()",
]


def test_the_line_that_fails_a_cell_stays_in_it():
    """Does an error (or stderr) stay in the cell however the kernel pads, captures or clears its output?"""
    isolation = require_sandbox()
    run = _run(SHAPED, isolation, sandbox.Limits(cell_timeout=30, notebook_budget=90))
    for code, cell in zip(SHAPED, run.notebook.cells, strict=True):
        kinds = [(o.output_type, o.get("name")) for o in cell.outputs]
        assert ("error", None) in kinds or ("stream", "stderr") in kinds, (code, kinds)
    assert "the test failed" in run.notebook.cells[0].outputs[-1]["evalue"]


CHANNEL = """
import fcntl, json, os, stat
fd = json.load(open('/sandbox/out/job.json'))['result_fd']
forged = json.dumps({"status": "ok", "detail": "", "stopped_at": None, "timed_out": [], "output_cut": [],
                     "seconds": 1, "notebook": {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}})
try:  # the same number in the kernel is the channel only if it was inherited: a pipe open for writing
    mode = os.fstat(fd).st_mode
    writable = fcntl.fcntl(fd, fcntl.F_GETFL) & (os.O_WRONLY | os.O_RDWR)
    if stat.S_ISFIFO(mode) and writable:  # a pipe of the kernel's own may sit at that number: name it
        os.write(fd, forged.encode())
        print(f'wrote to pipe {os.fstat(fd).st_ino}')
    else:
        print('not the channel')
except OSError:
    print('not open')
try:
    os.close(os.open(f'/proc/{os.getppid()}/fd/{fd}', os.O_WRONLY))
    print('reached')
except OSError:
    print('unreachable')
"""


def test_the_kernel_cannot_write_the_result(monkeypatch):
    """Is the executor's result pipe neither inherited by the kernel nor reachable through /proc?

    The pipe is known by its inode (global to the machine, namespaces or not): the
    kernel may hold a writable pipe of its own at the same number, which is no channel.
    """
    isolation = require_sandbox()
    channels = []
    real_pipe = os.pipe

    def recorded_pipe():
        ends = real_pipe()
        channels.append(os.fstat(ends[0]).st_ino)
        return ends

    monkeypatch.setattr(sandbox_run.os, "pipe", recorded_pipe)
    run = _run([CHANNEL], isolation)
    assert run.status == "ok", run.log  # the real result came back, not the forged (cell-less) one
    assert len(run.notebook.cells) == 1
    text = _printed(run)
    assert channels, "sandbox.run_notebook made no pipe: this test no longer follows the channel"
    assert not any(f"wrote to pipe {inode}\n" in text for inode in channels) and "unreachable" in text, text


EXECUTOR = (
    """
import errno, os
def status(pid):
    return dict(line.split(':', 1) for line in open(f'/proc/{pid}/status').read().splitlines())
def tried(what, action):
    try:
        action()
        print(what, 'done')
    except OSError as err:
        print(what, errno.errorcode.get(err.errno, err.errno))
me = status('self')
print('kernel uid', os.getuid(), 'gid', os.getgid(), 'groups', os.getgroups())
print('kernel caps', *(int(me[k], 16) for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb')), """  # one code line
    """'nnp', me['NoNewPrivs'].strip())
pid = os.getppid()  # the kernel's parent: the executor (setpriv exec'd the kernel)
assert b'executor.py' in open(f'/proc/{pid}/cmdline', 'rb').read()
it = status(pid)
print('executor uid', it['Uid'].split()[0], 'caps', int(it['CapEff'], 16), int(it['CapPrm'], 16),
      int(it['CapBnd'], 16), int(it['CapAmb'], 16), int(it['CapInh'], 16))
tried('signal', lambda: os.kill(pid, 0))
tried('fd list', lambda: os.listdir(f'/proc/{pid}/fd'))
for fd in range(12):
    tried(f'fd {fd}', lambda: os.close(os.open(f'/proc/{pid}/fd/{fd}', os.O_RDONLY)))
tried('mem', lambda: os.close(os.open(f'/proc/{pid}/mem', os.O_RDONLY)))
tried('environ', lambda: open(f'/proc/{pid}/environ').read())
tried('new file', lambda: open('/sandbox/out/forged.json', 'w').close())
tried('started', lambda: open('/sandbox/out/started', 'a').close())
tried('job', lambda: open('/sandbox/out/job.json', 'a').close())
tried('replace', lambda: os.rename('/sandbox/out/job.json', '/sandbox/out/old.json'))
tried('delete', lambda: os.unlink('/sandbox/out/started'))
tried('chmod', lambda: os.chmod('/sandbox/out', 0o777))
tried('notebook', lambda: open('/sandbox/out/notebook.ipynb').read())
tried('work', lambda: open('/sandbox/work/mine.txt', 'w').write('x'))
tried('home', lambda: open(os.path.expanduser('~/mine.txt'), 'w').write('x'))
"""
)


def test_the_kernel_cannot_reach_the_executor():
    """Does the kernel run as another uid than the executor, with no capability, unable to signal it, open its
    /proc files (fds, memory, environment) or write where its files are, while its own folders stay writable;
    and does the executor keep only CAP_KILL once the kernel runs?"""
    isolation = require_sandbox()
    run = _run([EXECUTOR], isolation)
    assert run.status == "ok", run.log
    outputs = run.notebook.cells[0].outputs
    assert not any(o.output_type == "error" for o in outputs), outputs
    lines = "".join(o.get("text", "") for o in outputs).splitlines()
    said = dict(line.rsplit(" ", 1) for line in lines)  # what was tried -> "done" or the error's name
    assert f"kernel uid {sandbox.KERNEL_UID} gid {sandbox.KERNEL_UID} groups []" in lines
    assert "kernel caps 0 0 0 0 0 nnp 1" in lines
    assert f"executor uid {sandbox.NOBODY} caps 32 32 32 0 0" in lines  # 1 << CAP_KILL: all it kept
    assert said["signal"] == "EPERM"
    assert said["fd list"] == "EACCES" and all(said[f"fd {n}"] in ("EACCES", "ENOENT") for n in range(12))
    assert said["mem"] == "EACCES" and said["environ"] == "EACCES"
    for what in ("new file", "started", "job", "replace", "delete", "chmod", "notebook"):
        assert said[what] in ("EACCES", "EPERM", "ENOENT"), (what, said[what])
    assert said["notebook"] == "ENOENT"  # deleted before any cell ran (and the executor's alone before that)
    assert said["work"] == "done" and said["home"] == "done"


#: a cell that asks for one check's values (as a split test cell does: a line that calls the private send
#: function), then shows values nobody asked for, and an output that merely includes the values' MIME type
VALUES = """
from IPython.display import display
def _course_0a_send(cell, check, **values):
    display({"application/vnd.course.values+json": {"cell": cell, "check": check, "values": values}}, raw=True)
_course_0a_send('c', 0, x="v" * 300_000)
display({"application/vnd.course.values+json": {"cell": "c", "check": 7, "values": {}}}, raw=True)
display({"application/vnd.course.values+json": {"x": "w" * 300_000}, "text/plain": "also text"}, raw=True)
"""


def test_the_values_checks_send_have_a_budget_of_their_own():
    """Are the values its cell's code asked for kept past the text cap (64 kB a cell), within a budget of
    their own (per check, and for the notebook), and cut past it with a note; are values no call asked for
    (another check, or an output that merely includes that MIME type) dropped with a note, never kept?"""
    from course.channel import CUT_NOTE, DROPPED_NOTE

    isolation = require_sandbox()
    limits = sandbox.Limits(
        cell_timeout=20, notebook_budget=60, cell_values_bytes=400_000, notebook_values_bytes=600_000
    )
    run = _run([VALUES, VALUES, "print('still here')"], isolation, limits)
    assert run.status == "ok", run.log
    first, second, third = (c.outputs for c in run.notebook.cells)
    assert [o.output_type for o in first] == ["display_data", "stream"], first  # the two unasked: dropped, noted
    assert len(first[0]["data"]["application/vnd.course.values+json"]["values"]["x"]) == 300_000
    assert first[1]["text"] == DROPPED_NOTE
    # 600 kB a notebook: the second cell's values are cut, and its unasked ones dropped
    assert [o["text"] for o in second] == [CUT_NOTE, DROPPED_NOTE], second
    assert run.output_cut == [0, 1]
    assert third[0]["text"] == "still here\n"


UNDECODABLE = """
kernel = get_ipython().kernel
kernel.iopub_socket.send_multipart([b'x', b'<IDS|MSG>', b'0' * 64, b'{}', b'{}', b'{}', b'{}'])  # a bad signature
kernel.iopub_socket.send_multipart([b'<IDS|MSG>', b'0' * 64])  # too few parts
import time
time.sleep(0.5)
print('after')
"""


def test_a_message_that_does_not_decode_does_not_end_the_run():
    """Does the executor pass over a message from the kernel that does not decode (forged, or half sent by a
    kernel at its process limit), instead of ending without a result?"""
    isolation = require_sandbox()
    run = _run([UNDECODABLE, "print('next')"], isolation)
    assert run.status == "ok", run.log
    assert [[o.get("text") for o in c.outputs] for c in run.notebook.cells] == [["after\n"], ["next\n"]]


DEEP = """
from IPython.display import publish_display_data
x = []
for _ in range(600):
    x = [x]
publish_display_data({"application/json": x, "text/plain": "deep"})
print('before the deep error', flush=True)
"""

#: an error and a stderr whose content nests 600 deep: they fail the cell, so their strings are kept
DEEP_VERDICTS = """
kernel = get_ipython().kernel
x = "[" * 600 + "]" * 600  # sent packed: the kernel's own json would recurse
parent = kernel.get_parent("shell")
kernel.session.send(kernel.iopub_socket, "error", ('{"ename": "AssertionError", "evalue": "the test failed", '
                    f'"traceback": [{x}, "AssertionError: the test failed"]}}').encode(), parent=parent)
kernel.session.send(kernel.iopub_socket, "stream", f'{{"name": "stderr", "text": {x}}}'.encode(), parent=parent);
"""


def test_a_deeply_nested_output_is_dropped_not_the_run():
    """Is an output nested 600 deep (deeper than nbformat reads without a RecursionError) replaced by a note,
    while the run goes on and the next cell's output is kept?"""
    isolation = require_sandbox()
    run = _run([DEEP, DEEP_VERDICTS, "print('still here')"], isolation)
    assert run.status == "ok", run.log
    first, verdicts, last = (c.outputs for c in run.notebook.cells)
    assert [(o.output_type, o.get("name")) for o in first] == [("stream", "stdout")] * 2, first
    assert "[output dropped: nested deeper than the grader reads]" in first[0]["text"]
    assert first[1]["text"] == "before the deep error\n"
    # the error keeps its name, value and string lines; stderr stays stderr (a note for its text)
    assert [(o.output_type, o.get("name")) for o in verdicts] == [("error", None), ("stream", "stderr")], verdicts
    assert (verdicts[0]["ename"], verdicts[0]["evalue"]) == ("AssertionError", "the test failed")
    assert verdicts[0]["traceback"] == ["AssertionError: the test failed"]
    assert "nested deeper" in verdicts[1]["text"]
    assert run.output_cut == [0, 1]
    assert [o.get("text") for o in last] == ["still here\n"]
    # a result nested too deep for json or nbformat is malformed: no result, not a crash of the grader
    deep = "[" * 100_000 + "]" * 100_000
    assert sandbox_run._read_result(f'{{"status": "ok", "notebook": {deep}}}'.encode()) is None


def test_a_students_file_does_not_run_while_the_kernel_starts(tmp_path):
    """A file beside the notebook named as the module that starts the kernel (``ipykernel_launcher.py``): does
    the kernel still start and run the cells (the student's file never runs before them), while the notebook
    can still import a module of the student's own from its folder?"""
    isolation = require_sandbox()
    hijack = tmp_path / "ipykernel_launcher.py"
    hijack.write_text("raise SystemExit('a student file ran as the kernel started')\n")
    helper = tmp_path / "my_helper.py"
    helper.write_text("ANSWER = 42\n")
    nb = new_notebook(cells=[new_code_cell("import my_helper\nprint('helper', my_helper.ANSWER)")], metadata=KERNEL)
    run = sandbox.run_notebook(nb, [hijack, helper], SHORT, isolation)
    assert run.status == "ok", (run.status, run.reason, run.log[-2000:])
    assert "helper 42" in _printed(run)


def test_a_kernel_that_does_not_start_within_the_budget_is_the_machines(monkeypatch):
    """A kernel whose start takes longer than the whole notebook's budget (a loaded machine, here a start that
    sleeps first): is the run ended at the budget, before any cell, and said to be the machine's?"""
    from instructor.grading.machine_busy import busy_reason

    isolation = require_sandbox()
    slow_start = ["sh", "-c", 'sleep 20; exec "$@"', "sh", *sandbox_run.KERNEL_LAUNCH]
    monkeypatch.setattr(sandbox_run, "KERNEL_LAUNCH", slow_start)
    nb = new_notebook(cells=[new_code_cell("print('ran')")], metadata=KERNEL)
    run = sandbox.run_notebook(nb, [], sandbox.Limits(cell_timeout=2, notebook_budget=3), isolation)
    assert (run.status, run.stopped_at) == ("budget", None), (run.status, run.reason, run.log[-2000:])
    assert "did not start" in run.reason
    assert "ran" not in _printed(run)
    assert "too busy" in busy_reason(run.status, run.stopped_at, run.timed_out, nb, None, 2)


def test_the_executor_starts_without_numpy_or_iri_parsers():
    """Does the executor, started as the sandbox starts it (``python -I executor.py``), load neither NumPy (0.13 s
    of every sandbox: it needs only the value channel's names, :mod:`course.channel`) nor rfc3987_syntax's
    parsers, and does it still read the channel's MIME type as the kernel's side writes it?"""
    import subprocess
    import sys

    from course.channel import MIME

    probe = (
        "import runpy, sys\n"
        f"names = runpy.run_path({str(command.EXECUTOR)!r}, run_name='probe')\n"
        "print(names['channel'].MIME)\n"
        "print(sorted(m for m in ('numpy', 'rfc3987_syntax') if sys.modules.get(m) is not None))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", probe], capture_output=True, text=True, timeout=120, check=True, cwd="/"
    )
    assert done.stdout.split() == [MIME, "[]"], done.stdout + done.stderr


def test_a_display_update_rewrites_only_the_running_cells_outputs():
    """An output of a cell that has ended is final: does a later cell's update of it change nothing (a display of
    a cell before any hidden check, rewritten once a later cell had run one, carried the values it passed onto
    the feedback page), while a cell's updates of its own display (a live plot) still rewrite it?"""
    isolation = require_sandbox()
    run = _run(
        [
            "slot = display({'text/plain': 'loading'}, raw=True, display_id='slot')",
            "display({'text/plain': 'first'}, raw=True, display_id='own')\n"
            "display({'text/plain': 'second'}, raw=True, display_id='own', update=True)\n"
            "slot.update({'text/plain': 'what a hidden check passed'}, raw=True)\n",
        ],
        isolation,
    )
    shown = [[o.get("data", {}).get("text/plain") for o in cell.outputs] for cell in run.notebook.cells]
    assert shown == [["loading"], ["second"]], shown
