"""The training plot (course/figures/training.py): redrawn in place while watched, one static figure headless.

Run in a real kernel where it matters: what a frontend sees is the kernel's display messages.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from jupyter_client.manager import start_new_kernel


def _run_in_kernel(env: dict, cells: list[str]) -> list[dict]:
    """Execute cells in a fresh kernel; count iopub messages per cell; collect stderr, errors and displays."""
    saved = dict(os.environ)
    for name in ("COURSE_QUICK", "CI", "NBGRADER_EXECUTION", "JPY_SESSION_NAME"):
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
            seen = {"counts": {}, "stderr": "", "stdout": "", "errors": [], "displays": [], "updates": [], "ids": set()}
            while True:
                msg = kc.get_iopub_msg(timeout=60)
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                kind, content = msg["msg_type"], msg["content"]
                seen["counts"][kind] = seen["counts"].get(kind, 0) + 1
                if kind == "stream":
                    seen[content["name"]] += content["text"]
                elif kind == "error":
                    seen["errors"].append(f"{content['ename']}: {content['evalue']}")
                elif kind in ("display_data", "update_display_data"):
                    seen["displays" if kind == "display_data" else "updates"].append(sorted(content["data"]))
                    seen["ids"].add(content.get("transient", {}).get("display_id"))
                elif kind == "status" and content["execution_state"] == "idle":
                    break
            results.append(seen)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return results


SETUP = "from course.figures import setup_backend, create_plot\nsetup_backend()"
# 4 s of "training" with half the time for drawing: a redraw every 0.5-1.5 s (under load)
TRAIN = """
import time
plotter, fig, ax = create_plot(["loss", "accuracy"], max_fraction_spent_plotting=0.5)
for i in range(80):
    plotter.set_train_batch({"loss": 1.0 / (i + 1), "accuracy": i / 80}, batch_size=1)
    if (i + 1) % 10 == 0:
        plotter.set_train_epoch()
    time.sleep(0.05)
plotter.plot()
print("draws", plotter.draws)
"""
PNG = ["image/png", "text/plain"]


@pytest.mark.parametrize("env", [{}, {"COURSE_QUICK": "1", "JPY_SESSION_NAME": "01_rnn/01_rnn.ipynb"}])
def test_training_plot_redraws_in_place_while_the_cell_runs(env):
    """Watched (a JupyterLab session, quick or not): one picture, replaced several times during the cell, quietly?"""
    setup, train = _run_in_kernel(env, [SETUP, TRAIN])
    assert not setup["errors"] and not train["errors"], train["errors"]
    assert setup["counts"].get("execute_result", 0) == 0  # the setup cell shows nothing
    assert train["displays"] == [PNG]  # one display slot ...
    assert len(train["updates"]) >= 2 and all(u == PNG for u in train["updates"])  # ... redrawn in place
    assert len(train["ids"]) == 1 and None not in train["ids"]
    assert train["counts"].get("comm_msg", 0) == 0  # no widget: nothing waits for the idle kernel
    assert not train["stderr"]


@pytest.mark.parametrize("env", [{"COURSE_QUICK": "1"}, {"NBGRADER_EXECUTION": "autograde"}, {"CI": "true"}])
def test_training_plot_is_one_static_figure_headless(env):
    """Headless (quick mode, grading, CI): one static PNG, no redraws, nothing on stderr?"""
    _, train = _run_in_kernel(env, [SETUP, TRAIN])
    assert not train["errors"]
    assert not train["stderr"]
    assert train["displays"] == [PNG]
    assert not train["updates"]
    assert train["counts"].get("comm_msg", 0) == 0


def test_training_plot_keeps_noggins_curves():
    """Does the figure hold noggin's per-batch curve and its per-epoch means, for every metric?"""
    from course.figures import create_plot

    plotter, fig, ax = create_plot(["loss", "accuracy"])
    for i in range(30):
        plotter.set_train_batch({"loss": 1.0 / (i + 1), "accuracy": i / 30}, batch_size=4)
        if (i + 1) % 10 == 0:
            plotter.set_train_epoch()
    plotter.plot()
    assert len(ax) == 2
    for axis in ax:
        batch, epoch = axis.get_lines()[:2]
        assert len(batch.get_xdata()) == 30
        assert len(epoch.get_xdata()) == 3
    assert fig.canvas.__class__.__name__ == "FigureCanvasAgg"


def test_training_plot_redraws_within_its_time_budget(monkeypatch):
    """With draws of 0.2 s and a budget of 10 %, are redraws at least 1.8 s apart, and the last batch drawn at the
    end?"""
    from course.figures import create_plot, live_plot

    clock = {"now": 0.0}
    monkeypatch.setattr(live_plot.time, "perf_counter", lambda: clock["now"])
    plotter, _, _ = create_plot(["loss"], max_fraction_spent_plotting=0.1)
    plotter.live = True
    drawn_at = []

    def fake_show(plot_batches=True, fit=False):
        drawn_at.append(clock["now"])
        clock["now"] += 0.2  # the cost of one draw

    monkeypatch.setattr(plotter, "_show", fake_show)
    for _ in range(200):  # 0.1 s per batch: 20 s of training
        plotter.set_train_batch({"loss": 1.0}, batch_size=1)
        clock["now"] += 0.1
    gaps = np.diff(drawn_at)
    assert drawn_at[0] == 0.0  # the first batch shows the plot at once
    assert gaps.min() >= 1.8 - 1e-9
    assert 5 <= len(drawn_at) <= 11  # about one draw per 2 s
    plotter.plot()
    assert drawn_at[-1] == clock["now"] - 0.2  # plot() draws the end, whatever the budget


def test_the_setup_cell_imports_no_noggin_until_a_plot_is_made():
    """Does the setup cell's import leave noggin (xarray, pandas: 0.4 s) for the training cell that plots?"""
    code = (
        "import sys\n"
        "from course.figures import setup_backend, create_plot\n"
        "before = sorted(m for m in ('noggin', 'xarray', 'pandas') if m in sys.modules)\n"
        "plotter, fig, ax = create_plot(['loss'])\n"
        "print(before, type(plotter).__mro__[1].__module__)"
    )
    env = {**os.environ, "MPLBACKEND": "Agg"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["[]", "noggin.plotter"], out
