"""The only code that runs student notebooks: started inside the sandbox.

    python -I /sandbox/executor.py JOB.json

A script, not a module of the grader: the sandbox binds this one file, and it
imports nothing but nbclient, nbformat and traitlets from the venv.

``JOB.json`` names the notebook (in the sandbox's work folder), where to
write the result and the limits. The executor reads the notebook, deletes
it from disk (so student code cannot read the hidden tests before they run),
makes itself undumpable (so the kernel, same uid, cannot read its memory),
then runs every code cell in a kernel it starts, with:

- a per-cell timeout (the cell is interrupted, grading goes on);
- a budget for the whole notebook (the rest is not run);
- caps on output bytes per cell and per notebook, text and figures each
  within a budget of their own (the rest is cut);

and writes its result (the executed notebook plus what happened, as data)
down the pipe ``JOB["result_fd"]``, whose other end the grader holds.
The grader outside trusts nothing in it beyond its shape.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import time

# jsonschema (under nbformat) imports rfc3987_syntax when it is installed
# (jupyter-events pulls it in); building its grammar costs about 2.4 s in every
# executor process, for an IRI format check that notebook validation never uses.
sys.modules.setdefault("rfc3987_syntax", None)

import nbformat  # noqa: E402  (after the line above)
from nbclient import NotebookClient  # noqa: E402
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.v4 import new_output, output_from_msg
from traitlets.config import Config

PR_SET_DUMPABLE = 4
#: written beside the result before any student code runs
STARTED = "started"


def _undumpable() -> None:
    """Same uid may ptrace or read /proc/<pid>/mem of a dumpable process; this one is not."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


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


class CappedClient(NotebookClient):
    """An nbclient that keeps at most ``caps[is_figure]`` = (per cell, per notebook) bytes of output."""

    def __init__(self, nb, caps: dict[bool, tuple[int, int]], verdict_chars: int, **kw):
        super().__init__(nb, **kw)
        self.caps = caps  # is a figure -> (bytes per cell, bytes per notebook)
        self.verdict_chars = verdict_chars
        self.used_cell: dict[tuple[int, bool], int] = {}
        self.used_total = {False: 0, True: 0}
        self.cut: set[int] = set()

    timed_out_now = False
    timeout_text = "the cell ran past its time limit and was interrupted"

    async def _async_handle_timeout(self, timeout, cell=None):
        # nbclient answers a timeout with a made-up reply but leaves no trace in
        # the cell; put the error there, so nbgrader scores a timed-out test 0
        self.timed_out_now = True
        if cell is not None:
            cell.outputs.append(new_output("error", ename="TimeoutError", evalue=self.timeout_text,
                                           traceback=[f"TimeoutError: {self.timeout_text}"]))
        return await super()._async_handle_timeout(timeout, cell)

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

    def _capped_output(self, outs, msg, display_id, cell_index):
        content = msg.get("content", {})
        size = len(json.dumps(content))
        image = any(str(kind).startswith("image/") for kind in (content.get("data") or {}))
        per_cell, per_notebook = self.caps[image]
        used = self.used_cell.get((cell_index, image), 0)
        if used + size > per_cell or self.used_total[image] + size > per_notebook:
            if _is_verdict(msg) and not any(_fails(o) for o in outs):
                # an error (or stderr) fails a test cell: the first is never cut, only shortened, so
                # output padded up to the cap cannot drop the one line that says "failed"
                _shorten(content, self.verdict_chars)
                return super().output(outs, msg, display_id, cell_index)
            if cell_index not in self.cut:
                self.cut.add(cell_index)
                outs.append(new_output("stream", name="stdout", text="\n[output cut: over the grader's byte limit]\n"))
            return None
        self.used_cell[(cell_index, image)] = used + size
        self.used_total[image] += size
        return super().output(outs, msg, display_id, cell_index)


def _answers(client, seconds: float = 10) -> bool:
    """After an interrupt: does the kernel answer again (or does it ignore SIGINT)?"""
    from jupyter_core.utils import run_sync

    try:
        run_sync(client.kc.wait_for_ready)(timeout=seconds)
        return True
    except RuntimeError:
        return False


def run(job: dict) -> dict:
    """Execute the job's notebook; returns the result record (see module doc)."""
    path = job["notebook"]
    with open(path, encoding="utf-8") as f:
        nb = nbformat.read(f, as_version=4)
    os.remove(path)
    _undumpable()
    limits = job["limits"]
    cfg = Config()
    cfg.KernelManager.transport = "ipc"
    cfg.KernelManager.ip = "/tmp/kernel-ipc"
    timeout_msg = f"the cell ran longer than the {limits['cell_timeout']:g} s limit and was interrupted"
    client = CappedClient(
        nb, {False: (limits["cell_output_bytes"], limits["notebook_output_bytes"]),
             True: (limits["cell_image_bytes"], limits["notebook_image_bytes"])},
        limits["verdict_chars"],
        timeout=int(limits["cell_timeout"]), kernel_name="python3", allow_errors=True,
        interrupt_on_timeout=True, iopub_timeout=4,
        error_on_timeout={"ename": "TimeoutError", "evalue": timeout_msg, "traceback": [f"TimeoutError: {timeout_msg}"]},
        record_timing=False, config=cfg, resources={"metadata": {"path": os.path.dirname(path)}},
    )
    client.timeout_text = timeout_msg
    start = time.monotonic()
    deadline = start + limits["notebook_budget"]
    status, detail, stopped_at, timed_out = "ok", "", None, []
    try:
        with client.setup_kernel():
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                left = deadline - time.monotonic()
                if left < 1:
                    status, stopped_at = "budget", index
                    detail = f"the notebook used its whole {limits['notebook_budget']:g} s budget before cell {index}"
                    break
                client.timeout = max(1, int(min(limits["cell_timeout"], left)))
                client.timed_out_now = False
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
    return {
        "status": status, "detail": detail, "stopped_at": stopped_at, "timed_out": timed_out,
        "output_cut": sorted(client.cut), "seconds": round(time.monotonic() - start, 3),
        "notebook": nb,
    }


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as f:
        job = json.load(f)
    # the result goes down a pipe the grader holds the other end of; no child (the kernel) inherits it,
    # and this process is undumpable, so the kernel (same uid) can neither write to it nor reach it in /proc
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
