"""Quick mode and the training plot helper, in a real kernel where it matters."""

from __future__ import annotations

import gc
import os
import platform
import subprocess
import sys

import numpy as np
import pytest
from jupyter_client.manager import start_new_kernel

from course import runtime


@pytest.mark.parametrize(
    "env, headless",
    [
        ({}, False),
        ({"COURSE_QUICK": "1"}, True),
        ({"COURSE_QUICK": "1", "JPY_SESSION_NAME": "01_rnn/01_rnn.ipynb"}, False),
        ({"JPY_SESSION_NAME": "01_rnn/01_rnn.ipynb", "CI": "true"}, True),
        ({"JPY_SESSION_NAME": "01_rnn/01_rnn.ipynb", "NBGRADER_EXECUTION": "validate"}, True),
        ({"NBGRADER_EXECUTION": "autograde"}, True),
        ({"CI": "true"}, True),
    ],
)
def test_headless_switch(monkeypatch, env, headless):
    """Is a run headless when graded, in CI, or quick outside a JupyterLab session?"""
    for name in ("COURSE_QUICK", "NBGRADER_EXECUTION", "CI", "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert runtime.is_headless() is headless


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


SETUP = "from course.plotting import setup_backend, create_plot\nsetup_backend()"
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
    from course.plotting import create_plot

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
    """With draws of 0.2 s and a budget of 10 %, are redraws at least 1.8 s apart, and the last batch drawn at the end?"""
    from course import plotting

    clock = {"now": 0.0}
    monkeypatch.setattr(plotting.time, "perf_counter", lambda: clock["now"])
    plotter, _, _ = plotting.create_plot(["loss"], max_fraction_spent_plotting=0.1)
    plotter.live = True
    drawn_at = []

    def fake_show(plot_batches=True, fit=False):
        drawn_at.append(clock["now"])
        clock["now"] += 0.2  # the cost of one draw

    monkeypatch.setattr(plotter, "_show", fake_show)
    for i in range(200):  # 0.1 s per batch: 20 s of training
        plotter.set_train_batch({"loss": 1.0}, batch_size=1)
        clock["now"] += 0.1
    gaps = np.diff(drawn_at)
    assert drawn_at[0] == 0.0  # the first batch shows the plot at once
    assert gaps.min() >= 1.8 - 1e-9
    assert 5 <= len(drawn_at) <= 11  # about one draw per 2 s
    plotter.plot()
    assert drawn_at[-1] == clock["now"] - 0.2  # plot() draws the end, whatever the budget


# --- process settings for MyGrad training: glibc's allocator and Python's garbage collector ---



@pytest.fixture
def fresh_allocator_flag(monkeypatch):
    monkeypatch.setattr(runtime, "_allocator_tuned", None)  # forget the call made at import
    monkeypatch.delenv(runtime.NO_MALLOC_TUNING, raising=False)


def test_allocator_tuning_is_glibc_only_and_never_fails(fresh_allocator_flag, monkeypatch):
    """mallopt on glibc; elsewhere (or switched off) a quiet False."""
    expected = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert runtime.tune_allocator() is expected
    assert runtime.tune_allocator() is expected  # once: the answer is remembered
    monkeypatch.setattr(runtime, "_allocator_tuned", None)
    monkeypatch.setattr(runtime.platform, "libc_ver", lambda *a, **k: ("musl", "1.2"))
    assert runtime.tune_allocator() is False


def test_allocator_tuning_can_be_switched_off(fresh_allocator_flag, monkeypatch):
    monkeypatch.setenv(runtime.NO_MALLOC_TUNING, "1")
    assert runtime.tune_allocator() is False


def test_allocator_tuning_survives_a_missing_libc(fresh_allocator_flag, monkeypatch):
    def no_library(*args, **kwargs):
        raise OSError("no libc.so.6 here")

    monkeypatch.setattr(runtime.platform, "system", lambda: "Linux")
    monkeypatch.setattr(runtime.platform, "libc_ver", lambda *a, **k: ("glibc", "2.36"))
    monkeypatch.setattr(runtime.ctypes, "CDLL", no_library)
    assert runtime.tune_allocator() is False


@pytest.fixture
def saved_gc(monkeypatch):
    threshold = gc.get_threshold()
    monkeypatch.setattr(runtime, "_gc_tuned", False)  # forget the call made at import
    yield
    gc.set_threshold(*threshold)


def test_gc_tuning_freezes_and_raises_the_young_threshold(saved_gc, monkeypatch):
    monkeypatch.delenv(runtime.NO_GC_TUNING, raising=False)
    gc.set_threshold(700, 10, 10)
    assert runtime.tune_gc() is True
    assert gc.get_threshold() == (runtime.GC_YOUNG_THRESHOLD, 10, 10)
    frozen = gc.get_freeze_count()
    assert frozen > 0
    built_later = [[i] for i in range(1000)]  # what a notebook builds after the import
    assert runtime.tune_gc() is True and gc.get_freeze_count() == frozen, "a second call must not freeze again"
    del built_later
    monkeypatch.setattr(runtime, "_gc_tuned", False)
    gc.set_threshold(0, 10, 10)  # a disabled collector stays disabled
    runtime.tune_gc()
    assert gc.get_threshold()[0] == 0


def test_gc_tuning_can_be_switched_off(saved_gc, monkeypatch):
    monkeypatch.setenv(runtime.NO_GC_TUNING, "1")
    gc.set_threshold(700, 10, 10)
    assert runtime.tune_gc() is False
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.parametrize("switched_off", [False, True])
def test_importing_course_tunes_the_process(switched_off):
    """``import course`` applies both settings once; the two variables keep Python's and glibc's defaults."""
    env = {k: v for k, v in os.environ.items() if k not in (runtime.NO_GC_TUNING, runtime.NO_MALLOC_TUNING)}
    if switched_off:
        env.update({runtime.NO_GC_TUNING: "1", runtime.NO_MALLOC_TUNING: "1"})
    probe = "import gc, course, course.runtime as r; print(gc.get_threshold()[0], r.tune_allocator())"
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    young, tuned = out.stdout.split()
    glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert int(young) == (700 if switched_off else runtime.GC_YOUNG_THRESHOLD)
    assert tuned == str(glibc and not switched_off)
    assert out.stderr == ""
