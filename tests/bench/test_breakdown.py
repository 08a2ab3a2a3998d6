"""Where a step's time goes (instructor/bench/breakdown.py): each kind of work lands in its own category."""

from __future__ import annotations

import time

import mygrad as mg
import numpy as np
import pytest

from benchmarks import breakdown
from course import ops


@pytest.mark.parametrize(
    ("op", "category"),
    [
        ("MatMul", "matmul"),
        ("EinSum", "matmul"),
        ("Affine", "matmul"),
        ("Multiply", "elementwise"),
        ("Sum", "elementwise"),
        ("Tanh", "elementwise"),
        ("Softmax", "softmax"),
        ("LayerNorm", "softmax"),
        ("SoftmaxCrossEntropy", "softmax"),
        ("GetItem", "shape"),
        ("Concatenate", "shape"),
        ("Reshape", "shape"),
    ],
)
def test_mygrad_operations_by_kind(op, category):
    assert breakdown.mygrad_category(op) == category


@pytest.mark.parametrize(
    ("name", "category"),
    [
        ("aten::bmm", "matmul"),
        ("aten::addmm", "matmul"),
        ("aten::mul", "elementwise"),
        ("aten::tanh", "elementwise"),
        ("aten::_softmax", "softmax"),
        ("aten::masked_fill_", "softmax"),
        ("aten::native_layer_norm", "softmax"),
        ("aten::cat", "shape"),
        ("aten::copy_", "shape"),
        ("BmmBackward0", None),
        ("Optimizer.step#Adam.step", None),
    ],
)
def test_torch_operations_by_kind(name, category):
    assert breakdown.torch_category(name) == category


class _Clock:
    """A clock that moves only when work says so: the seconds each kind of work takes are the test's own."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now

    def spend(self, seconds: float) -> None:
        self.now += seconds


class _SlowOptimizer:
    def __init__(self, clock: _Clock):
        self.clock = clock

    def step(self):
        self.clock.spend(1 / 32)


#: what one forward call of each operation costs on the test's clock (sums of powers of two add up exactly)
_COSTS = {"MatMul": 1 / 2, "Softmax": 1 / 8}


def test_mygrad_split_puts_each_kind_of_work_in_its_category(monkeypatch):
    """A big matmul, a pause in the model's Python and a slow optimiser: each where it belongs, summing to the total?

    On a clock of the test's own (each operation's forward costs what :data:`_COSTS` says, the rest nothing):
    the split is exact, and no machine's load moves it."""
    clock = _Clock()
    monkeypatch.setattr(breakdown, "time", clock)
    for cls in breakdown._operation_classes():
        if cls.__name__ in _COSTS:

            def costly(op, *args, _cost=_COSTS[cls.__name__], _call=cls.__call__, **kwargs):
                clock.spend(_cost)
                return _call(op, *args, **kwargs)

            monkeypatch.setattr(cls, "__call__", costly)
    rng = np.random.default_rng(0)
    w = mg.tensor(rng.normal(size=(40, 40)).astype(np.float32))
    x = rng.normal(size=(40, 40)).astype(np.float32)
    optimizer = _SlowOptimizer(clock)

    def step(i):
        y = mg.matmul(mg.matmul(x, w), w)  # two matmuls, forward and backward
        clock.spend(1 / 64)  # the model's own Python: bookkeeping
        ops.softmax(y[:2] * 1, axis=-1).sum().backward()
        optimizer.step()

    with mg.mem_guard_off:
        split = breakdown.mygrad_breakdown(step, range(3), optimizer)
    s = split["seconds"]
    assert set(s) == set(breakdown.CATEGORIES)
    assert sum(s.values()) == pytest.approx(split["total"], rel=1e-6)
    assert s["matmul"] > s["elementwise"] + s["softmax"] + s["shape"], s
    # at least its own pauses; none of the step's other work, or the categories would add up past the total
    # and leave bookkeeping nothing
    assert s["optimizer"] >= 3 * 0.02, s
    assert s["bookkeeping"] >= 3 * 0.01, s
    assert split["operations"]["MatMul"] > 0 and split["operations"]["Softmax"] > 0
    # exactly: 3 steps of 2 matmuls and 1 softmax, 1 optimiser step and 1 pause each
    expected = {
        "matmul": 6 / 2,
        "elementwise": 0,
        "softmax": 3 / 8,
        "shape": 0,
        "optimizer": 3 / 32,
        "bookkeeping": 3 / 64,
    }
    assert s == expected, s
    assert step.__name__ == "step" and "step" not in vars(optimizer)  # the optimiser's own method is back


def _methods():
    return {
        (cls, name): vars(cls)[name]
        for cls in breakdown._operation_classes()
        for name in ("__call__", "backward")
        if name in vars(cls)
    }


def test_mygrad_profile_leaves_the_operations_as_they_were():
    """Inside, MyGrad's operations are timed (Multiply's forward among them); after, every method is the original?"""
    before = _methods()
    assert len(before) > 50
    with breakdown.mygrad_profile() as timer:
        assert _methods() != before
        (mg.tensor([1.0, 2.0]) * 3).backward()
    assert set(timer.seconds) >= {"Multiply"}
    assert _methods() == before


def test_torch_split_puts_each_kind_of_work_in_its_category():
    """On the PyTorch side: an mm to matmul, Adam's update to optimizer, a sleep to bookkeeping?"""
    torch = pytest.importorskip("torch")
    w = torch.nn.Parameter(torch.randn(300, 300))
    x = torch.randn(300, 300)
    optimizer = torch.optim.Adam([w], lr=1e-3)

    def step(i):
        optimizer.zero_grad()
        loss = torch.softmax(x @ w @ w, dim=-1).sum()
        time.sleep(0.01)
        loss.backward()
        optimizer.step()

    split = breakdown.torch_breakdown(torch, step, range(3))
    s = split["seconds"]
    assert sum(s.values()) == pytest.approx(split["total"], rel=1e-6)
    # each kind of work where it belongs; which one takes longest is the bench's to measure (`course bench`),
    # not a test's: the profiler's times are the machine's, loaded or not
    assert s["matmul"] > 0 and s["optimizer"] > 0 and s["softmax"] > 0, s
    assert s["bookkeeping"] >= 3 * 0.01, s


def test_scaled_split_adds_up_to_the_median_step():
    split = {
        "seconds": {
            "matmul": 0.3,
            "elementwise": 0.1,
            "softmax": 0.0,
            "shape": 0.0,
            "optimizer": 0.1,
            "bookkeeping": 0.5,
        }
    }
    ms = breakdown.scaled(split, 20.0)
    assert ms["matmul"] == 6.0 and ms["bookkeeping"] == 10.0 and sum(ms.values()) == pytest.approx(20.0)


def test_table_shows_both_sides_and_their_difference():
    cats = breakdown.CATEGORIES
    models = {
        "rnn": {
            "model": "RNN",
            "breakdown": {"project_ms": dict.fromkeys(cats, 1.0), "torch_ms": dict.fromkeys(cats, 1.5)},
        }
    }
    lines = breakdown.table(models)
    assert all(c in lines[0] for c in cats)
    assert lines[1].strip() == "RNN"
    project, twin, difference = (line.split() for line in lines[2:5])
    assert project[-6:] == ["1.00"] * 6 and twin[-6:] == ["1.50"] * 6 and difference[-6:] == ["-0.50"] * 6


def test_mygrad_split_counts_the_operations_each_step_makes():
    """Two matmuls, a softmax and a sum per step, over three steps: counted per step, by class, largest first?"""
    w = mg.tensor(np.ones((3, 3), dtype=np.float32))

    def step(i):
        ops.softmax(mg.matmul(mg.matmul(np.ones((2, 3), dtype=np.float32), w), w)).sum().backward()

    with mg.mem_guard_off:
        split = breakdown.mygrad_breakdown(step, range(3), _SlowOptimizer(_Clock()))
    assert split["operations_per_step"] == {"MatMul": 2, "Softmax": 1, "Sum": 1}
    assert list(split["operations_per_step"]) == ["MatMul", "Softmax", "Sum"]
