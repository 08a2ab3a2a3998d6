"""The only code that runs student notebooks: started inside the sandbox.

    python -I /sandbox/executor.py JOB.json

A script, not a module of the grader: the sandbox binds this one file, and it
imports nothing but nbclient, jupyter_client, nbformat and traitlets from the
venv, and the value channel's names from the student package (:mod:`course.channel`).

``JOB.json`` names the notebook (beside it, readable by the executor alone),
the work folder, the command prefix that starts the kernel under a uid of its
own (``kernel_prefix``; empty without a sandbox) and the limits. The executor
reads the notebook, deletes it from disk (so student code cannot read the
hidden tests before they run), makes itself undumpable, starts the kernel
(in the sandbox: another uid, no capabilities, talking over loopback TCP),
drops all its own capabilities but CAP_KILL (it interrupts and stops the
kernel), then runs every code cell, with:

- a per-cell timeout (the cell is interrupted, grading goes on);
- a budget for the whole notebook (the rest is not run);
- caps on output bytes per cell and per notebook, text and figures each
  within a budget of their own (the rest is cut);
- a check's values (``channel.MIME``) kept only as the cell's code asks for
  them: one output per send call of a split test cell (its cell and check),
  each within a budget of its own; values no call asked for (another cell's,
  a second copy, ones shown by student code anywhere) are dropped with
  ``channel.DROPPED_NOTE`` in their cell, values over their budget with
  ``channel.CUT_NOTE``: the grader fails such a cell and flags the submission;
- an output nested deeper than ``MAX_DEPTH`` (or one that does not become an
  output) replaced by a note, an error or stderr by its strings: it costs
  itself, never the run;
- a display update (``update_display_data``) rewrites only outputs of the
  cell that runs: an output of a cell that has ended is final;

and writes its result (the executed notebook plus what happened, as data)
down the pipe ``JOB["result_fd"]``, whose other end the grader holds.
The grader outside trusts nothing in it beyond its shape.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterable
from queue import Empty
from types import ModuleType
from typing import cast

# jsonschema (under nbformat) imports the format checkers' libraries that are installed (jupyter-events pulls
# them in): rfc3987_syntax builds a grammar (about 2.4 s in every executor process), isoduration imports arrow,
# the others add a few ms each, for format checks that notebook validation never makes (nbformat validates
# with fastjsonschema, or jsonschema without a format checker).
# (None in sys.modules makes the import fail: the import system's documented rule, wider than its type)
for _unused in (
    "rfc3987_syntax",
    "rfc3987",
    "rfc3986_validator",
    "rfc3339_validator",
    "isoduration",
    "uri_template",
    "webcolors",
    "jsonpointer",
    "fqdn",
    "idna",
):
    cast("dict[str, ModuleType | None]", sys.modules).setdefault(_unused, None)
# the home is the kernel's (another uid in the sandbox): jupyter_client looks in IPython's folder there for
# kernel specs only, and IPython warns that it cannot write it
warnings.filterwarnings("ignore", message="IPython parent", category=UserWarning)

# these import jsonschema and IPython: after the two lines above (E402)
import nbformat  # noqa: E402
from jupyter_client.asynchronous import AsyncKernelClient  # noqa: E402
from jupyter_client.manager import AsyncKernelManager  # noqa: E402
from nbclient import NotebookClient  # noqa: E402
from nbclient.exceptions import CellExecutionComplete, CellTimeoutError, DeadKernelError  # noqa: E402
from nbformat.v4 import new_output, output_from_msg  # noqa: E402
from traitlets import List, Type, Unicode  # noqa: E402
from traitlets.config import Config  # noqa: E402

from course import channel  # noqa: E402  (the one definition of the channel's MIME type and notes)

PR_SET_DUMPABLE = 4
#: written beside the job before any student code runs
STARTED = "started"
#: capabilities (linux/capability.h): the executor keeps only CAP_KILL once the kernel runs
CAP_KILL, CAP_SETGID, CAP_SETUID, CAP_SETPCAP = 5, 6, 7, 8
PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4
LINUX_CAPABILITY_VERSION_3 = 0x20080522
#: how deep a message's content may nest (dicts and lists): nbformat and json read it recursively, and
#: a kernel's output nested some hundreds deep would end the executor in a RecursionError
MAX_DEPTH = 64
#: the output kinds a cell keeps (update_display_data rewrites one already kept)
OUTPUT_KINDS = {"stream", "display_data", "execute_result", "error", "update_display_data"}
DEEP_NOTE = "\n[output dropped: nested deeper than the grader reads]\n"
#: a send call in a split test cell's code (instructor.grading.checks.split): the name it binds privately,
#: then the cell's name and the check's index
_SEND_CALL = re.compile(r"^_course_[0-9a-f]+_send\((['\"])([^'\"\n]*)\1, (\d+)[,)]", re.M)
UNREADABLE_NOTE = "\n[output dropped: the grader could not read it]\n"


def _undumpable() -> None:
    """Same uid may ptrace or read /proc/<pid>/mem of a dumpable process; this one is not."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def _keep_only_kill() -> str:
    """Drop every capability but CAP_KILL from all sets; "" if done, else why not.

    The sandbox starts the executor with CAP_SETUID, CAP_SETGID and CAP_SETPCAP
    (to start the kernel under its own uid with no capabilities at all) and
    CAP_KILL: signalling a process of another uid needs it, and the executor
    interrupts a cell at its time limit and kills the kernel at the end. Its
    PID namespace holds only the sandbox's processes.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        for cap in (CAP_SETUID, CAP_SETGID, CAP_SETPCAP):  # CAP_SETPCAP last: dropping needs it
            if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                return f"bounding set: {os.strerror(ctypes.get_errno())}"
        if libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0:
            return f"ambient set: {os.strerror(ctypes.get_errno())}"
        header = (ctypes.c_uint32 * 2)(LINUX_CAPABILITY_VERSION_3, 0)
        kill = 1 << CAP_KILL
        data = (ctypes.c_uint32 * 6)(kill, kill, 0, 0, 0, 0)  # (effective, permitted, inheritable) x 2 words
        if libc.capset(header, data) != 0:
            return f"capset: {os.strerror(ctypes.get_errno())}"
    except (OSError, AttributeError) as err:  # pragma: no cover - not Linux/glibc
        return str(err)
    return ""


def _skip_undecodable(channel) -> None:
    """Make ``channel.get_msg`` pass over a message that does not decode (bad signature, missing parts).

    One such message from the kernel would otherwise end the executor without a
    result: a kernel may send it on purpose, and one whose process limit is full
    sends a half message when its zmq cannot start a thread.
    """
    get = channel.get_msg

    async def get_msg(timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                return await get(timeout=left)
            except (ValueError, TypeError, KeyError, IndexError, RecursionError):  # what Session.deserialize raises
                await asyncio.sleep(0)  # a flood of them does not starve the timeouts

    channel.get_msg = get_msg


class KernelClient(AsyncKernelClient):
    """jupyter_client's client, without the 0.2 s of silence it waits for once the kernel answers."""

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        """Wait until the kernel answers ``kernel_info`` on shell and iopub (as jupyter_client does), then drop the
        iopub messages already here.

        jupyter_client ends its wait by reading iopub until nothing comes for 0.2 s (every kernel start, and
        after an interrupt). Nothing needs that silence: nbclient and ``execute_interactive`` keep only the
        messages whose parent is their own request.
        """
        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        while True:
            self.kernel_info()
            try:
                msg = await self.shell_channel.get_msg(timeout=1)
            except Empty:
                pass
            else:
                if msg["msg_type"] == "kernel_info_reply":
                    try:  # iopub is connected once the reply's status message comes (else ask again)
                        await self.iopub_channel.get_msg(timeout=0.2)
                    except Empty:
                        pass
                    else:
                        self._handle_kernel_info_reply(msg)
                        break
            if not await self._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:g} seconds")
        while True:
            try:
                await self.iopub_channel.get_msg(timeout=0)
            except Empty:
                break


class KernelManager(AsyncKernelManager):
    """Starts the kernel behind ``launch_prefix`` (in the sandbox: ``setpriv`` to the kernel's own uid)."""

    launch_prefix = List(Unicode(), config=True)
    client_factory = Type(KernelClient, klass=AsyncKernelClient, config=True)

    async def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:  # type: ignore[override]
        """Kill the kernel and its process group at once, and wait until it is gone (nbclient's last step).

        jupyter_client's shutdown interrupts the kernel, asks it to stop (its atexit hooks run: student code)
        and polls every 0.1 s for up to 5 s before it kills it; nothing a kernel does after its last cell is
        read, so it is killed (``now`` and ``restart`` change nothing).
        """
        self.shutting_down = True
        self.stop_restarter()
        provisioner = self.provisioner
        process = getattr(provisioner, "process", None)
        if provisioner is None or process is None:
            return
        await provisioner.kill()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # not dead 5 s after SIGKILL: the grader kills what is left
            return
        await provisioner.wait()  # the process is gone: jupyter_client closes its pipes and forgets it

    def format_kernel_cmd(self, extra_arguments=None):
        return [*self.launch_prefix, *super().format_kernel_cmd(extra_arguments)]

    def write_connection_file(self, **kwargs):
        super().write_connection_file(**kwargs)
        if self.launch_prefix:  # written 0600; the kernel (another uid, the only one here) must read it
            os.chmod(self.connection_file, 0o644)


def _is_verdict(msg) -> bool:
    """An output that fails a test cell by nbgrader's rule: an error, or text on stderr."""
    kind = _kind(msg)
    return kind == "error" or (kind == "stream" and msg.get("content", {}).get("name") == "stderr")


def _kind(msg) -> str:
    return msg.get("msg_type") or msg.get("header", {}).get("msg_type") or ""


def _fails(out) -> bool:
    """An output already in a cell that fails it: an error, or a stderr stream."""
    return out.get("output_type") == "error" or (out.get("output_type") == "stream" and out.get("name") == "stderr")


def _shorten(content: dict, chars: int) -> None:
    """Keep an error's name and the first ``chars`` of its value and traceback lines; a stream's first ``chars``.

    The grader's ``CapOutputBytes`` does the same outside (this script imports nothing of the grader).
    """
    if "text" in content:
        content["text"] = str(content["text"])[:chars]
    if "evalue" in content:
        content["evalue"] = str(content["evalue"])[:chars]
        content["ename"] = str(content.get("ename", ""))[:100]
        content["traceback"] = [str(line)[:chars] for line in (content.get("traceback") or [])[-3:]]


def _too_deep(value, limit: int = MAX_DEPTH) -> bool:
    """Does ``value`` nest dicts and lists deeper than ``limit``? Measured with a stack of its own, not recursion."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[object]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list, tuple)))
    return False


def _text(value, chars: int) -> str:
    """``value`` cut to ``chars`` if a string, else "" (never its repr: that recurses)."""
    return value[:chars] if isinstance(value, str) else ""


def _stand_in(msg, note: str, chars: int) -> dict:
    """A message to handle instead of ``msg``, an output the grader could not read: its strings if it fails
    a test cell (an error's name, value and traceback lines; stderr's text), else a note on stdout."""
    content = msg.get("content")
    content = content if isinstance(content, dict) else {}
    kind = _kind(msg)
    if kind == "error":
        lines = content.get("traceback")
        lines = [_text(line, chars) for line in lines[-3:] if isinstance(line, str)] if isinstance(lines, list) else []
        new = {
            "ename": _text(content.get("ename"), 100) or "Error",
            "evalue": _text(content.get("evalue"), chars) or note.strip(),
            "traceback": lines,
        }
    elif kind == "stream" and content.get("name") == "stderr":
        kind, new = "stream", {"name": "stderr", "text": _text(content.get("text"), chars) or note}
    else:
        kind, new = "stream", {"name": "stdout", "text": note}
    header = msg.get("header")
    header = dict(header, msg_type=kind) if isinstance(header, dict) else {"msg_type": kind}
    return {**msg, "msg_type": kind, "header": header, "content": new}


def _budget(content: dict) -> str:
    """Which byte budget an output counts against: "values", "image" or "text"."""
    data = content.get("data") or {}
    if isinstance(data, dict) and channel.MIME in data:
        return "values"
    return "image" if any(str(kind).startswith("image/") for kind in data) else "text"


class CappedClient(NotebookClient):
    """An nbclient that keeps at most ``caps[budget]`` = (per cell, per notebook) bytes of output."""

    def __init__(self, nb, caps: dict[str, tuple[int, int]], verdict_chars: int, **kw):
        super().__init__(nb, **kw)
        self.caps = caps  # "text", "image" or "values" -> (bytes per cell, bytes per notebook)
        self.verdict_chars = verdict_chars
        self.used_cell: dict[tuple[int, str], int] = {}
        self.used_total = dict.fromkeys(caps, 0)
        self.cut: set[int] = set()
        self.received: set[tuple[int, str, int]] = set()  # (cell index, cell name, check) of each values kept
        self.noted: set[tuple[int, str]] = set()
        self.current = -1  # the index of the cell that runs

    def asked(self, cell_index: int) -> set[tuple[str, int]]:
        """The values the code of cell ``cell_index`` asks for: (cell name, check index) of each send call."""
        cell = self.nb.cells[cell_index] if 0 <= cell_index < len(self.nb.cells) else {}
        source = cell.get("source", "") if isinstance(cell.get("source", ""), str) else ""
        return {(m.group(2), int(m.group(3))) for m in _SEND_CALL.finditer(source)}

    def note(self, outs, cell_index: int, text: str) -> None:
        """``text`` once in the cell's outputs (it marks the cell: the grader fails it and flags the submission)."""
        self.cut.add(cell_index)
        if (cell_index, text) not in self.noted:
            self.noted.add((cell_index, text))
            outs.append(new_output("stream", name="stdout", text=text))

    def _update_display_id(self, display_id, msg):
        # an update rewrites outputs already kept, in any cell: it never makes one of them a check's values
        data = msg.get("content", {}).get("data")
        if isinstance(data, dict) and channel.MIME in data:
            if 0 <= self.current < len(self.nb.cells):
                self.note(self.nb.cells[self.current].setdefault("outputs", []), self.current, channel.DROPPED_NOTE)
            return None
        # nor an output of a cell that has ended: that one is final (a display of a cell before any hidden check,
        # rewritten once a later cell had run one, carried what it passed onto the feedback page); a cell's
        # updates of its own displays (a live plot) rewrite them as before
        slots = self._display_id_map.get(display_id, {})
        for ended in [index for index in slots if index != self.current]:
            del slots[ended]
        return super()._update_display_id(display_id, msg)

    timed_out_now = False
    timeout_text = "the cell ran past its time limit and was interrupted"

    async def _async_handle_timeout(self, timeout, cell=None):
        # nbclient answers a timeout with a made-up reply but leaves no trace in
        # the cell; put the error there, so nbgrader scores a timed-out test 0
        self.timed_out_now = True
        if cell is not None:
            cell.outputs.append(
                new_output(
                    "error",
                    ename="TimeoutError",
                    evalue=self.timeout_text,
                    traceback=[f"TimeoutError: {self.timeout_text}"],
                )
            )
        return await super()._async_handle_timeout(timeout, cell)

    def process_message(self, msg, cell, cell_index):
        """nbclient's, but a message nested too deep, or one that fails to become an output, costs only itself.

        An output is replaced by a note (its cell is in ``cut``), an error or stderr
        by its strings (it fails a test cell); any other such message is passed over.
        """
        kind = _kind(msg)
        self.current = cell_index
        if _too_deep(msg.get("content")):
            content = msg.get("content")
            if kind == "status" and isinstance(content, dict) and content.get("execution_state") == "idle":
                raise CellExecutionComplete()
            if kind not in OUTPUT_KINDS:
                return None
            return self._handle_stand_in(msg, cell, cell_index, DEEP_NOTE)
        try:
            return super().process_message(msg, cell, cell_index)
        except CellExecutionComplete:
            raise
        except Exception:
            if kind not in OUTPUT_KINDS:
                return None
            return self._handle_stand_in(msg, cell, cell_index, UNREADABLE_NOTE)

    def _handle_stand_in(self, msg, cell, cell_index, note: str):
        self.cut.add(cell_index)
        stand_in = _stand_in(msg, note, self.verdict_chars)
        try:
            return super().process_message(stand_in, cell, cell_index)
        except CellExecutionComplete:
            raise
        except Exception:
            out = (
                new_output("error", ename="Error", evalue=note.strip(), traceback=[])
                if _is_verdict(stand_in)
                else new_output("stream", name="stdout", text=note)
            )
            cell.outputs.append(out)
            return out

    def output(self, outs, msg, display_id, cell_index):
        verdicts = [o for o in outs if _fails(o)]
        out = self._capped_output(outs, msg, display_id, cell_index)
        if out is None and _is_verdict(msg) and not any(_fails(o) for o in outs):
            # nbclient handed it to an output hook (an ipywidgets Output swallows it): it stays in the cell
            _shorten(msg.get("content", {}), self.verdict_chars)
            try:
                out = output_from_msg(msg)
                outs.append(out)
            except ValueError:
                pass
        # a clear_output() deferred to this output removes what was shown, never a verdict
        outs[:0] = [o for o in verdicts if all(o is not kept for kept in outs)]
        return out

    def clear_output(self, outs, msg, cell_index):
        verdicts = [o for o in outs if _fails(o)]
        super().clear_output(outs, msg, cell_index)
        outs[:0] = [o for o in verdicts if not any(o is kept for kept in outs)]

    def _values_output(self, outs, msg, display_id, cell_index, size: int):
        """Keep a check's values only if the cell's code asked for them and has not had them yet, within their
        budget."""
        data = msg.get("content", {}).get("data", {})
        sent = data.get(channel.MIME) if list(data) == [channel.MIME] else None
        key = (sent.get("cell"), sent.get("check")) if isinstance(sent, dict) else None
        if (
            _kind(msg) != "display_data"
            or display_id
            or key is None
            or type(key[1]) is not int
            or key not in self.asked(cell_index)
            or (cell_index, *key) in self.received
        ):
            self.note(outs, cell_index, channel.DROPPED_NOTE)
            return None
        self.received.add((cell_index, *key))
        per_check, per_notebook = self.caps["values"]
        if size > per_check or self.used_total["values"] + size > per_notebook:
            self.note(outs, cell_index, channel.CUT_NOTE)
            return None
        self.used_total["values"] += size
        return super().output(outs, msg, display_id, cell_index)

    def _capped_output(self, outs, msg, display_id, cell_index):
        content = msg.get("content", {})
        size = len(json.dumps(content))
        budget = _budget(content)
        if budget == "values":
            return self._values_output(outs, msg, display_id, cell_index, size)
        per_cell, per_notebook = self.caps[budget]
        used = self.used_cell.get((cell_index, budget), 0)
        if used + size > per_cell or self.used_total[budget] + size > per_notebook:
            if _is_verdict(msg) and not any(_fails(o) for o in outs):
                # an error (or stderr) fails a test cell: the first is never cut, only shortened, so
                # output padded up to the cap cannot drop the one line that says "failed"
                _shorten(content, self.verdict_chars)
                return super().output(outs, msg, display_id, cell_index)
            if cell_index not in self.cut:
                self.cut.add(cell_index)
                outs.append(new_output("stream", name="stdout", text="\n[output cut: over the grader's byte limit]\n"))
            return None
        self.used_cell[(cell_index, budget)] = used + size
        self.used_total[budget] += size
        return super().output(outs, msg, display_id, cell_index)


def _answers(client, seconds: float = 10) -> bool:
    """After an interrupt: does the kernel answer again (or does it ignore SIGINT)?"""
    from jupyter_core.utils import run_sync

    try:
        run_sync(client.kc.wait_for_ready)(timeout=seconds)
        return True
    except RuntimeError:
        return False


#: run silently in the kernel once it has started, before the first cell: the notebook's folder ('', the kernel's
#: working directory) goes on sys.path where IPython puts it, after the standard library. The kernel starts with
#: PYTHONSAFEPATH (no student file runs as it starts); IPython 9.7 and later honour it for good and leave the
#: folder off, so a student's own module beside her notebook would not import.
WORK_FOLDER_ON_PATH = (
    "import sys as _s\n"
    "if '' not in _s.path:\n"
    "    _s.path.insert(next((i for i, p in enumerate(_s.path)\n"
    "                         if p.rstrip('/').endswith(('site-packages', 'dist-packages'))), 0), '')\n"
    "del _s\n"
)


def _work_folder_importable(client) -> None:
    """Puts the notebook's folder on the kernel's sys.path (:data:`WORK_FOLDER_ON_PATH`), as a notebook server's
    kernel has it; a failure is the executor's (nothing of the student's has run yet)."""
    from jupyter_core.utils import run_sync

    reply = run_sync(client.kc.execute_interactive)(
        WORK_FOLDER_ON_PATH, silent=True, store_history=False, timeout=60, output_hook=lambda msg: None
    )
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"the kernel could not put the notebook's folder on sys.path: {reply['content']}")


def run(job: dict) -> dict:
    """Execute the job's notebook; returns its result (see module doc)."""
    path = job["notebook"]
    with open(path, encoding="utf-8") as f:
        nb = nbformat.read(f, as_version=4)
    os.remove(path)
    _undumpable()
    limits = job["limits"]
    prefix = list(job.get("kernel_prefix") or [])
    cfg = Config()
    cfg.KernelManager.launch_prefix = prefix
    if prefix:  # the kernel is another uid: its ipc socket files would be its own (mode 0755), so loopback
        cfg.KernelManager.transport = "tcp"  # TCP, in the sandbox's own network namespace
        cfg.KernelManager.ip = "127.0.0.1"
    else:  # no sandbox (--unsafe): ipc sockets in a folder of this run's own, removed at the end (executors
        # running side by side in the host's /tmp picked the same socket names: a kernel that could not bind hung
        # until the budget ran out, "the grading machine was too busy")
        cfg.KernelManager.transport = "ipc"
        cfg.KernelManager.ip = os.path.join(tempfile.mkdtemp(prefix="kernel-ipc-"), "kernel")
    timeout_msg = f"the cell ran longer than the {limits['cell_timeout']:g} s limit and was interrupted"
    client = CappedClient(
        nb,
        {
            "text": (limits["cell_output_bytes"], limits["notebook_output_bytes"]),
            "image": (limits["cell_image_bytes"], limits["notebook_image_bytes"]),
            "values": (limits["cell_values_bytes"], limits["notebook_values_bytes"]),
        },
        limits["verdict_chars"],
        timeout=int(limits["cell_timeout"]),
        # the kernel's start is part of the notebook's budget (its clock starts before), not a limit of its own
        startup_timeout=max(1, int(limits["notebook_budget"])),
        kernel_name="python3",
        allow_errors=True,
        interrupt_on_timeout=True,
        iopub_timeout=4,
        kernel_manager_class=KernelManager,
        error_on_timeout={
            "ename": "TimeoutError",
            "evalue": timeout_msg,
            "traceback": [f"TimeoutError: {timeout_msg}"],
        },
        record_timing=False,
        config=cfg,
        resources={"metadata": {"path": job["work"]}},
    )
    client.timeout_text = timeout_msg
    start = time.monotonic()
    deadline = start + limits["notebook_budget"]
    status, detail, stopped_at, timed_out = "ok", "", None, []
    started = False
    try:
        with client.setup_kernel():
            started = True
            if client.kc is None:
                raise RuntimeError("the kernel started without a client to talk to it")
            _skip_undecodable(client.kc.iopub_channel)
            _skip_undecodable(client.kc.shell_channel)
            if prefix:  # the kernel runs: setuid and friends are no longer needed
                why = _keep_only_kill()
                if why:
                    print(f"executor: capabilities not dropped ({why})", file=sys.stderr, flush=True)
                _undumpable()
            _work_folder_importable(client)
            last: int | None = None  # the code cell that ran last: the budget ran out in it (None: before any ran)
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                left = deadline - time.monotonic()
                if left < 1:
                    status, stopped_at = "budget", last
                    detail = f"the notebook used its whole {limits['notebook_budget']:g} s budget before cell {index}"
                    break
                client.timeout = max(1, int(min(limits["cell_timeout"], left)))
                client.timed_out_now = False
                last = index
                client.execute_cell(cell, index, store_history=True)
                if client.timed_out_now:
                    timed_out.append(index)
                    if not _answers(client):
                        raise CellTimeoutError(detail)
                    if client.timeout < limits["cell_timeout"]:
                        status, stopped_at = "budget", index
                        detail = f"the notebook used its whole {limits['notebook_budget']:g} s budget in cell {index}"
                        break
    except CellTimeoutError:
        status, stopped_at = "unresponsive", index
        detail = f"the kernel did not stop when cell {index} was interrupted at its time limit"
    except DeadKernelError:
        status, stopped_at = "died", index
        detail = f"the kernel died while running cell {index}"
    except RuntimeError:  # after DeadKernelError, which is one
        # jupyter_client's "Kernel didn't respond in N seconds": no student code can slow the start (the
        # environment's PYTHONSAFEPATH), so a start that used the whole budget is the machine's (the grader
        # grades it again: instructor.grading.machine_busy); any other failure is the executor's, as before
        if started or time.monotonic() < deadline - 1:
            raise
        status, stopped_at = "budget", None
        detail = f"the kernel did not start within the notebook's whole {limits['notebook_budget']:g} s budget"
    if not prefix:
        shutil.rmtree(os.path.dirname(cfg.KernelManager.ip), ignore_errors=True)
    return {
        "status": status,
        "detail": detail,
        "stopped_at": stopped_at,
        "timed_out": timed_out,
        "output_cut": sorted(client.cut),
        "seconds": round(time.monotonic() - start, 3),
        "notebook": nb,
    }


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as f:
        job = json.load(f)
    # the result goes down a pipe the grader holds the other end of; no child (the kernel) inherits it, and
    # the kernel (another uid in the sandbox; this process is undumpable too) cannot reach it in /proc
    channel = int(job["result_fd"])
    os.set_inheritable(channel, False)
    # the grader's sign that the sandbox started: no result without it is the grader's failure, not the student's
    with open(os.path.join(job["out"], STARTED), "w") as f:
        f.write("started\n")
    result = run(job)
    with os.fdopen(channel, "w", encoding="utf-8") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
