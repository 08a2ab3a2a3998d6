"""Part ``busy`` of the benchmarks: full runs idle and beside busy processes (no time is asserted here)."""

from __future__ import annotations

import contextlib
import json

import pytest

from benchmarks import busy, parts


def test_busy_processes_run_inside_the_block_only():
    """Do the busy processes keep running while the block runs, and are they gone after it?"""
    with busy.busy_processes(2) as procs:
        assert len(procs) == 2 and all(p.poll() is None for p in procs)
    assert all(p.poll() is not None for p in procs)


def test_bench_busy_times_each_model_idle_and_busy_for_each_thread_count(monkeypatch):
    """One idle and one busy run per model and thread count, the busy one inside the busy block; their ratio."""
    seen, state = [], {"busy": False}

    @contextlib.contextmanager
    def spy(n=busy.BUSY):
        state["busy"] = True
        try:
            yield []
        finally:
            state["busy"] = False

    def run(part, threads):
        seen.append((part.key, threads, state["busy"]))
        return 3.0 if state["busy"] else 2.0

    monkeypatch.setattr(busy, "busy_processes", spy)
    monkeypatch.setattr(busy, "full_run_seconds", run)
    figures = busy.bench_busy(quiet=True)
    assert seen == [(k, n, b) for k in busy.KEYS for n in busy.THREADS for b in (False, True)]
    assert figures["rnn"]["threads_1"] == {"idle_s": 2.0, "busy_s": 3.0, "busy_over_idle": 1.5}
    assert figures["transformer"]["steps"] > 0
    lines = busy.table(figures)
    assert len(lines) == 2 + len(busy.KEYS) * len(busy.THREADS) and "1.50" in lines[1]


def test_python_m_benchmarks_only_busy_writes_its_figures(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(busy, "bench_busy", lambda quiet: {"rnn": {"model": "RNN", "steps": 3}})
    out = tmp_path / "busy.json"
    parts.run(parts.BenchRequest(only="busy", json=out))
    figures = json.loads(out.read_text())
    assert figures["busy"] == {"rnn": {"model": "RNN", "steps": 3}} and "machine" in figures
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize("key", busy.KEYS)
def test_the_busy_part_times_the_notebooks_full_mode_steps(key):
    """Are the timed steps the notebook's own n_steps, inside its `with fused:` block?"""
    part = next(p for p in busy.MODELS if p.key == key)
    assert part.fused is not None and part.stand_ins().used
