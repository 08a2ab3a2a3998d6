"""python -m benchmarks.ops: each fused operation timed against the MyGrad composition it replaces."""

from __future__ import annotations

import json

import mygrad as mg
import numpy as np
import pytest

from benchmarks import ops as ops_bench
from course import ops

CASES = ops_bench.cases()


def test_every_fused_operation_has_a_case():
    """A new fused operation in course.ops is timed too: each public one is in some case's fused call."""
    names = set()
    for case in CASES:
        names.update(case.fused.__code__.co_names)
    wanted = {name for name in ops.__all__ if name != "BLOCKED"}
    assert wanted <= names, wanted - names


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fused_and_unfused_compute_the_same(case):
    """The two sides of a case are the same function of the same inputs: values and the inputs' gradients."""
    with mg.mem_guard_off:
        grads = []
        for make in (case.fused, case.unfused):
            out = make()
            (out if out.ndim == 0 else out.sum()).backward()
            tensors = [v for v in _inputs(make) if isinstance(v, mg.Tensor)]
            grads.append((out.data.copy(), [None if t.grad is None else t.grad.copy() for t in tensors]))
            for t in tensors:
                t.null_grad()
    (fused_out, fused_grads), (unfused_out, unfused_grads) = grads
    assert fused_out.dtype == np.float32 and fused_out.shape == unfused_out.shape
    np.testing.assert_allclose(fused_out, unfused_out, rtol=1e-4, atol=1e-5)
    assert len(fused_grads) == len(unfused_grads) > 0
    for f, u in zip(fused_grads, unfused_grads, strict=True):
        np.testing.assert_allclose(f, u, rtol=1e-3, atol=1e-5)


def _inputs(make):
    """The tensors a case's lambda reads (its closure), in the order of their names."""
    cells = dict(zip(make.__code__.co_freevars, make.__closure__ or (), strict=True))
    return [cells[name].cell_contents for name in sorted(cells)]


def test_a_short_run_writes_a_row_per_case(tmp_path, capsys):
    out_file = tmp_path / "ops.json"
    assert ops_bench.main(["--repeats", "3", "--json", str(out_file)]) == 0
    figures = json.loads(out_file.read_text())
    assert list(figures["ops"]) == [c.name for c in CASES]
    for f in figures["ops"].values():
        assert f["fused_us"] > 0 and f["unfused_us"] > 0 and f["unfused_over_fused"] > 0
    assert figures["machine"]["cpu"]
    printed = capsys.readouterr().out
    assert all(c.name in printed for c in CASES) and "BLAS:" in printed
