"""`course bench --against torch`: twins of the same size, equal first losses, a table of four ratios.

PyTorch is an optional extra of the bench; the test extra installs it, so
under ``CI=true`` a missing torch fails these tests instead of skipping them.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import sys
import tomllib

import pytest

from benchmarks import against_torch
from benchmarks.breakdown import CATEGORIES
from benchmarks.models import MODELS
from instructor.errors import CourseError
from instructor.paths import REPO_ROOT


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no", "off"}


@pytest.fixture
def torch():
    """torch, or fail under CI (the test extra installs it), or skip saying how to install it."""
    try:
        import torch
    except ImportError:
        if _in_ci():
            pytest.fail(f'CI must have {against_torch.TORCH_PIN} (pip install -e ".[test]")')
        pytest.skip('torch is not installed (pip install -e ".[torch]")')
    return torch


def test_one_pin_of_torch():
    """Do the torch extra, the test extra and the bench's install hint name the same torch?"""
    extras = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    in_test = [r for r in extras["test"] if re.match(r"torch\b", r)]
    assert extras["torch"] == [against_torch.TORCH_PIN] == in_test


def test_without_torch_one_sentence_says_how_to_install(run_course, monkeypatch):
    """Without torch: one sentence naming the extra's install command, and a nonzero exit status?"""
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError
    _, err = run_course(["bench", "--against", "torch"], retcode=1)
    assert 'pip install -e ".[torch]"' in err
    assert err.strip().count("\n") == 0, err


def test_a_twin_of_another_size_is_refused(torch):
    """A twin with other sizes than the project's model: refused, saying the counts?"""
    from benchmarks.twins import TwinRNN, copy_weights

    lib = MODELS[0].library
    project = lib.RNN(12, 8, 12)
    with pytest.raises(CourseError, match="not the same architecture"):
        copy_weights(project.parameters, TwinRNN(12, 7, 12), "RNN")


def test_losses_that_differ_stop_the_bench(torch):
    """Losses that differ beyond the tolerance: a clear error before anything is timed?"""
    from benchmarks.pairs import Pair

    pair = Pair("rnn", "RNN", lambda i: 2.5, lambda i: 2.5 + 1e-3, 3, 1, 1, 1, 1)
    with pytest.raises(CourseError, match="not the same model"):
        against_torch.check_losses(pair, 3)


def test_tiny_comparison_of_the_four_models(run_course, tmp_path, torch):
    """Four twins with the project's parameter counts and first losses, a table of four ratios, each step split?"""
    figures_file = tmp_path / "torch.json"
    out, _ = run_course(["bench", "--against", "torch", "--rounds", "2", "--steps", "3", "--json", figures_file])
    figures = json.loads(figures_file.read_text())
    models = figures["against_torch"]["models"]
    assert list(models) == [p.key for p in MODELS]
    for key, m in models.items():
        assert (m["parameters"], m["tensors"]) == (m["twin_parameters"], m["twin_tensors"]), key
        first_project, first_twin = m["project_losses"][0], m["twin_losses"][0]
        assert abs(first_project - first_twin) <= against_torch.LOSS_TOLERANCE * max(1, abs(first_project)), key
        assert len(m["rounds"]) == 2 and all(r["ratio"] > 0 for r in m["rounds"]), key
        assert m["median_ratio"] > 0
        # where each side's median step goes: every category, adding up to that median
        split = m["breakdown"]
        for side in ("project_ms", "torch_ms"):
            assert list(split[side]) == list(CATEGORIES), key
            median = statistics.median(r[side] for r in m["rounds"])
            assert sum(split[side].values()) == pytest.approx(median, abs=0.01), (key, side)
            assert split[side]["matmul"] > 0 and split[side]["bookkeeping"] >= 0, (key, side)
        project_median = statistics.median(r["project_ms"] for r in m["rounds"])
        assert 0 < sum(split["project_operations_ms"].values()) < project_median, key  # bookkeeping apart
        assert list(split["project_operations_ms"].values()) == sorted(
            split["project_operations_ms"].values(), reverse=True
        ), key
        # how many operations a step makes, by class: every class that took time was made, and they add up
        counts = split["project_operations_per_step"]
        assert set(counts) == set(split["project_operations_ms"]) and min(counts.values()) > 0, key
        assert split["project_operations_per_step_total"] == pytest.approx(sum(counts.values()), abs=0.5), key
    assert models["transformer"]["tensors"] == 62  # the Transformer of 04: 2 encoder and 2 decoder layers
    rows = [line for line in out.splitlines() if re.search(r"=\s+\d+\.\d\dx.*\d+\.\d\dx\s*$", line)]
    assert [row.split(",")[0] for row in rows] == ["RNN", "Seq2Seq", "Attention", "Transformer"], out
    assert "load" in out and "1 thread" in out
    split_rows = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    assert split_rows == ["project", "twin", "project", "MyGrad"] * 4, out
    # the machine: the CPU and the BLAS each side ran with, in the JSON and the printed table
    machine = figures["machine"]
    assert machine["cpu"] and machine["cpu"] in out, out
    assert "BLAS: numpy built with" in out and machine["numpy_blas"]["name"] in out, out
    assert figures["against_torch"]["torch_build"]["blas"] in out, out
    assert all(c in out for c in CATEGORIES)
