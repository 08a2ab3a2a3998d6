"""Quick mode and the training plot helper, in a real kernel where it matters."""

from __future__ import annotations

import os

import pytest
from jupyter_client.manager import start_new_kernel

from course import runtime


@pytest.mark.parametrize(
    "env, quick",
    [
        ({}, False),
        ({"COURSE_QUICK": "1"}, True),
        ({"COURSE_QUICK": "0"}, False),
        ({"NBGRADER_EXECUTION": "autograde"}, True),
        ({"NBGRADER_EXECUTION": "validate"}, True),
    ],
)
def test_quick_mode_switch(monkeypatch, env, quick):
    """Does COURSE_QUICK, or autograding, select the quick values?"""
    for name in ("COURSE_QUICK", "NBGRADER_EXECUTION", "CI"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert runtime.is_quick() is quick
    assert runtime.pick(full=10_000, quick=30) == (30 if quick else 10_000)


def _run_in_kernel(env: dict, cells: list[str]) -> list[dict]:
    """Execute cells in a fresh kernel; count iopub messages per cell; collect stderr and errors."""
    saved = dict(os.environ)
    for name in ("COURSE_QUICK", "CI", "NBGRADER_EXECUTION"):
        os.environ.pop(name, None)
    os.environ.update(env)
    try:
        km, kc = start_new_kernel(kernel_name="python3")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    results = []
    try:
        for code in cells:
            msg_id = kc.execute(code)
            seen = {"counts": {}, "stderr": "", "errors": [], "displays": []}
            while True:
                msg = kc.get_iopub_msg(timeout=60)
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                kind = msg["msg_type"]
                seen["counts"][kind] = seen["counts"].get(kind, 0) + 1
                if kind == "stream" and msg["content"]["name"] == "stderr":
                    seen["stderr"] += msg["content"]["text"]
                elif kind == "error":
                    seen["errors"].append(msg["content"]["ename"])
                elif kind == "display_data":
                    seen["displays"].append(sorted(msg["content"]["data"]))
                elif kind == "status" and msg["content"]["execution_state"] == "idle":
                    break
            results.append(seen)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return results


SETUP = "from course.plotting import setup_backend, create_plot\nsetup_backend()"
TRAIN = """
import time
plotter, fig, ax = create_plot(["loss", "accuracy"], max_fraction_spent_plotting=0.5)
for i in range(40):
    plotter.set_train_batch({"loss": 1.0 / (i + 1), "accuracy": i / 40}, batch_size=1)
    time.sleep(0.02)
plotter.plot()
"""


def test_training_plot_is_live_under_ipympl():
    """Does the plot stream updates while the cell runs (ipympl widget backend), quietly?"""
    setup, train = _run_in_kernel({}, [SETUP, TRAIN])
    assert not setup["errors"] and not train["errors"]
    assert setup["counts"].get("execute_result", 0) == 0  # the setup cell shows nothing
    assert train["counts"].get("comm_msg", 0) >= 5  # redraws sent during the cell
    assert not train["stderr"]


@pytest.mark.parametrize("env", [{"COURSE_QUICK": "1"}, {"NBGRADER_EXECUTION": "autograde"}, {"CI": "true"}])
def test_training_plot_is_one_static_figure_headless(env):
    """Headless (quick mode, grading, CI): one static PNG, nothing on stderr?"""
    _, train = _run_in_kernel(env, [SETUP, TRAIN])
    assert not train["errors"]
    assert not train["stderr"]
    assert [d for d in train["displays"] if "image/png" in d] == [["image/png", "text/plain"]]
    assert train["counts"].get("comm_msg", 0) == 0
