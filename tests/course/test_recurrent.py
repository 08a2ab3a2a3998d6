"""course.recurrent.RNN, the RNN of notebooks 02 and 03, against notebook 01's reference RNN."""

from __future__ import annotations

import mygrad as mg
import numpy as np
import pytest

from course.recurrent import RNN
from instructor.authoring.library import load_library


@pytest.fixture(scope="module")
def reference():
    """Notebook 01's reference RNN class, from its solution's library cells."""
    return load_library("01_rnn").RNN


def _run(model, x, h, upstream):
    """Scores, states and the gradients of every parameter and of h, under the weights ``upstream``."""
    h = None if h is None else mg.tensor(h)
    y, states = model(x, h)
    ((y * upstream[0]).sum() + (states * upstream[1]).sum()).backward()
    return y, states, [p.grad for p in model.parameters] + ([] if h is None else [h.grad])


@pytest.mark.parametrize("T, with_start", [(1, True), (9, True), (9, False)])
def test_the_fused_rnn_is_notebook_01s_rnn(reference, T, with_start):
    """The same weights from the same seed, the same scores, states and gradients (h given or None)."""
    N, C, D, K = 6, 12, 10, 12
    np.random.seed(7)
    ours = RNN(C, D, K)
    np.random.seed(7)
    theirs = reference(C, D, K)
    assert len(ours.parameters) == len(theirs.parameters) == 5
    for p, q in zip(ours.parameters, theirs.parameters, strict=True):
        np.testing.assert_array_equal(p.data, q.data)
    rng = np.random.default_rng(T)
    x = np.eye(C, dtype=np.float32)[rng.integers(0, C, size=(T, N))]
    h = rng.normal(size=(1, N, D)).astype(np.float32) if with_start else None
    upstream = (rng.normal(size=(T, N, K)).astype(np.float32), rng.normal(size=(T, N, D)).astype(np.float32))
    y, states, grads = _run(ours, x, h, upstream)
    y_ref, states_ref, grads_ref = _run(theirs, x, h, upstream)
    assert y.shape == (T, N, K) and states.shape == (T, N, D) and y.dtype == states.dtype == np.float32
    np.testing.assert_allclose(y.data, y_ref.data, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(states.data, states_ref.data, rtol=1e-5, atol=1e-6)
    assert len(grads) == len(grads_ref)
    for got, want in zip(grads, grads_ref, strict=True):
        assert got is not None and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_one_step_at_a_time_equals_the_whole_sequence():
    """A decoder's use: T calls of one step, each from the last state, give the states of one call over T steps."""
    np.random.seed(1)
    model = RNN(12, 8, 12)
    x = np.random.default_rng(2).normal(size=(5, 3, 12)).astype(np.float32)
    _, whole = model(x)
    h, stepwise = None, []
    for t in range(5):
        _, h = model(x[t : t + 1], h)
        stepwise.append(h.data[0])
    np.testing.assert_allclose(np.stack(stepwise), whole.data, rtol=1e-5, atol=1e-6)


def test_one_operation_per_call_and_a_replaced_input_layer_still_counts():
    """The states come from one TanhRNN; an input layer swapped for MyNN's own dense is still called, same states."""
    from mynn.layers.dense import dense as mynn_dense

    np.random.seed(3)
    model = RNN(12, 8, 12)
    x = np.random.default_rng(4).normal(size=(4, 3, 12)).astype(np.float32)
    _, fused = model(x)
    assert type(fused.creator).__name__ == "TanhRNN"
    plain = mynn_dense(12, 8)
    plain.weight, plain.bias = model.input_layer.weight, model.input_layer.bias
    model.input_layer = plain
    _, unfused = model(x)
    assert type(unfused.creator).__name__ == "TanhRecurrence"
    np.testing.assert_allclose(unfused.data, fused.data, rtol=1e-5, atol=1e-6)
