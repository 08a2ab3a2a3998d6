"""Properties of course.ops over shapes and values hypothesis draws: each fused operation equals the MyGrad
composition it replaces, in values and gradients, float32 in and out; masked positions get no weight.

tests/course/test_ops.py checks chosen cases (the course's own shapes, far-apart rows, NaN at padding); these
draw small shapes of every rank and values of any sign and spread (profile in tests/conftest.py).
"""

from __future__ import annotations

import math

import mygrad as mg
import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from course import ops
from tests.course.test_ops import EPS, _grads, _layer_norm_by_hand, _tanh_loop

BLOCKED = np.float32(ops.BLOCKED)


def _floats(bound: float) -> st.SearchStrategy:
    return st.floats(-bound, bound, width=32, allow_subnormal=False)


@st.composite
def _arrays(draw, shape, bound: float = 30.0):
    return draw(hnp.arrays(np.float32, shape, elements=_floats(bound)))


def _close(actual, expected, rtol=1e-4, atol=1e-5):
    """Equal to float32 rounding, measured against the larger of 1 and the expected values' largest magnitude."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape and actual.dtype == np.float32
    scale = max(1.0, float(np.abs(expected).max(initial=0)))
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol * scale)


_shapes = hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5)


@given(st.data())
def test_softmax_is_mygrads_masked_or_not(data):
    """softmax(x, axis, mask=m) is mg.nnet.softmax(mg.where(m, x, BLOCKED), axis), gradient included; a masked
    entry of a row with an allowed one weighs exactly 0, and no masked entry gets any gradient."""
    shape = data.draw(_shapes, label="shape")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    x = data.draw(_arrays(shape), label="x")
    upstream = data.draw(_arrays(shape, 3.0), label="upstream")
    mask = data.draw(st.none() | hnp.arrays(np.bool_, shape), label="mask")
    allowed = np.ones(shape, dtype=bool) if mask is None else mask
    ref, (ref_grad,) = _grads(lambda t: mg.nnet.softmax(mg.where(allowed, t, BLOCKED), axis=axis), [x], upstream)
    out, (grad,) = _grads(lambda t: ops.softmax(t, axis=axis, mask=mask), [x], upstream)
    _close(out.data, ref.data)
    _close(grad, ref_grad)
    np.testing.assert_allclose(out.data.sum(axis=axis), 1, rtol=1e-5)
    some = np.broadcast_to(allowed.any(axis=axis, keepdims=True), shape)
    assert np.all(out.data[~allowed & some] == 0)
    assert np.all(grad[~allowed] == 0)


@given(st.data())
def test_crossentropy_is_mygrads_over_the_chosen_positions(data):
    """softmax_crossentropy(s, y, mask=m) is MyGrad's softmax_crossentropy(s[m], y[m]), gradient included; the
    masked positions get no gradient, and what stands there does not change the loss."""
    lead = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5), label="lead")
    k = data.draw(st.integers(1, 6), label="classes")
    scores = data.draw(_arrays((*lead, k)), label="scores")
    target = data.draw(hnp.arrays(np.int64, lead, elements=st.integers(0, k - 1)), label="target")
    mask = data.draw(st.none() | hnp.arrays(np.bool_, lead), label="mask")
    assume(mask is None or mask.any())
    chosen = slice(None) if mask is None else mask.reshape(-1)
    flat_scores, flat_target = scores.reshape(-1, k), target.reshape(-1)
    by_mygrad = lambda s: mg.nnet.softmax_crossentropy(s[chosen], flat_target[chosen])  # noqa: E731
    ref, (ref_grad,) = _grads(by_mygrad, [flat_scores], None)
    out, (grad,) = _grads(lambda s: ops.softmax_crossentropy(s, target, mask=mask), [scores], None)
    assert out.shape == () and out.dtype == np.float32
    _close(out.data, np.float32(ref.item()))
    _close(grad, ref_grad.reshape(scores.shape))
    if mask is not None:
        assert np.all(grad[~mask] == 0)
        elsewhere = scores.copy()
        elsewhere[~mask] = data.draw(_arrays(elsewhere[~mask].shape), label="at the masked positions")
        _close(ops.softmax_crossentropy(elsewhere, target, mask=mask).data, out.data)


#: float32's unit roundoff, and its smallest normal number (below it, products lose their digits: underflow)
UNIT, TINY = 2.0**-24, float(np.finfo(np.float32).tiny)


@st.composite
def _hard_rows(draw, shape):
    """Rows as layer norm finds them hardest: equal values, nearly equal ones (a tiny spread far from 0), a
    huge spread, ties, or any values; each row its own kind."""
    rows = draw(_arrays(shape, 3.0)).reshape(-1, shape[-1])
    for row in rows:
        kind = draw(st.sampled_from(["equal", "tiny spread", "huge spread", "ties", "any"]), label="row kind")
        level = draw(_floats(30.0), label="level")
        if kind == "equal":
            row[:] = level
        elif kind == "tiny spread":
            row[:] = level + draw(_arrays(row.shape, 2.0**-10), label="tiny spread")
        elif kind == "huge spread":
            row[:] = draw(_arrays(row.shape, 2.0**15), label="huge spread")
        elif kind == "ties":
            row[:] = draw(st.sampled_from([-2.5, 0.0, 1.0]), label="tied value")
            row[draw(st.integers(0, row.size - 1), label="odd one")] = level
    return rows.reshape(shape)


def _layer_norm_bounds(x, gain, bias, upstream):
    """What float32 allows layer norm on ``x``: per row, how far x-hat, the output and d/dx may lie from the exact
    value (computed in float64), and for the gain's and bias's gradients, per column.

    x - mean(x) is rounded to about u * max|x| (u the unit roundoff), and x-hat divides it by sqrt(var + eps):
    the condition of a row is kappa = max|x| / sqrt(var + eps) + 1, 1e4 for a row of equal values 30 (eps 1e-5),
    about 2 for a row of spread values near 0. Every bound is 8 d u kappa (d the row's length: each mean adds up
    d rounded terms) times the size of what it multiplies, plus float32's underflow (8 d TINY) where it does.
    """
    d = x.shape[-1]
    x64 = x.astype(np.float64)
    std = np.sqrt(x64.var(axis=-1, keepdims=True) + float(EPS))
    kappa = np.abs(x64).max(axis=-1, keepdims=True) / std + 1
    xhat_err = 8 * d * UNIT * kappa  # (..., 1): the error in each x-hat of the row
    g = np.abs(upstream.astype(np.float64) * gain)
    g_max = g.max(axis=-1, keepdims=True)
    xhat_max = np.abs((x64 - x64.mean(axis=-1, keepdims=True)) / std).max(axis=-1, keepdims=True) + xhat_err
    # gain * x-hat + bias: x-hat's error scaled, and the rounding of the product and the sum
    out = np.abs(gain) * xhat_err + 8 * UNIT * (np.abs(gain) * xhat_max + np.abs(bias))
    # dx = (g - mean g - x-hat mean(g x-hat)) / std: the x-hat terms carry its error, std its relative error
    dx = 8 * d * UNIT * kappa * g_max * (1 + xhat_max) ** 2 / std
    up = np.abs(upstream.astype(np.float64)).reshape(-1, d)
    dgain = (up * (xhat_err.reshape(-1, 1) + 8 * d * UNIT * xhat_max.reshape(-1, 1))).sum(axis=0)
    dbias = 8 * up.shape[0] * UNIT * up.sum(axis=0)
    under = 8 * d * TINY
    return out + under, dx + under / std, dgain + under, dbias + under


def _within(actual, expected, bound, what):
    gap = np.abs(np.asarray(actual, dtype=np.float64) - expected)
    allowed = np.broadcast_to(bound, gap.shape)
    worst = np.unravel_index(np.argmax(gap - allowed), gap.shape)
    assert np.all(gap <= allowed), f"{what}: off by {gap[worst]:.3g} at {worst}, allowed {allowed[worst]:.3g}"


@given(st.data())
def test_layer_norm_is_the_nine_operations(data):
    """layer_norm(x, gain, bias) and its three gradients equal the students' composition of MyGrad operations
    within what float32 allows for each row (:func:`_layer_norm_bounds`), both measured against the exact values
    (the composition in float64); a row of equal values normalises to exactly 0 (the output is the bias)."""
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6), label="shape")
    x = data.draw(_hard_rows(shape), label="x")
    gain = data.draw(_arrays(shape[-1:], 3.0), label="gain")
    bias = data.draw(_arrays(shape[-1:], 3.0), label="bias")
    upstream = data.draw(_arrays(shape, 3.0), label="upstream")
    as64 = [a.astype(np.float64) for a in (x, gain, bias)]
    exact, exact_grads = _grads(lambda *t: _layer_norm_by_hand(*t, eps=float(EPS)), as64, upstream.astype(np.float64))
    ref, ref_grads = _grads(_layer_norm_by_hand, [x, gain, bias], upstream)
    out, grads = _grads(lambda *t: ops.layer_norm(*t, eps=EPS), [x, gain, bias], upstream)
    assert out.dtype == np.float32 and all(g.dtype == np.float32 for g in grads)
    bounds = _layer_norm_bounds(x, gain, bias, upstream)
    for name, fused, composed, want, bound in zip(
        ["output", "d/dx", "d/dgain", "d/dbias"],
        [out.data, *grads],
        [ref.data, *ref_grads],
        [exact.data, *exact_grads],
        bounds,
        strict=True,
    ):
        _within(fused, want, bound, f"fused {name}")
        _within(composed, want, bound, f"composed {name}")  # the bound is float32's, not the fused op's own
    equal = np.all(x == x[..., :1], axis=-1)
    assert np.all(out.data[equal] == np.broadcast_to(bias, out.shape)[equal]), "a row of equal values is not 0"


@given(st.data())
def test_affine_is_matmul_plus_bias(data):
    """affine(x, W, b) and its gradients equal mg.matmul(x, W) + b, for any leading axes and either bias shape."""
    lead = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5), label="lead")
    c, k = data.draw(st.integers(1, 6), label="C"), data.draw(st.integers(1, 6), label="K")
    x = data.draw(_arrays((*lead, c), 3.0), label="x")
    weight = data.draw(_arrays((c, k), 3.0), label="weight")
    bias_shape = data.draw(st.sampled_from([None, (k,), (1, k)]), label="bias shape")
    inputs = [x, weight] if bias_shape is None else [x, weight, data.draw(_arrays(bias_shape, 3.0), label="bias")]
    upstream = data.draw(_arrays((*lead, k), 3.0), label="upstream")

    def composed(*t):
        return mg.matmul(t[0], t[1]) if len(t) == 2 else mg.matmul(t[0], t[1]) + t[2]

    ref, ref_grads = _grads(composed, inputs, upstream)
    out, grads = _grads(ops.affine, inputs, upstream)
    _close(out.data, ref.data)
    for got, want in zip(grads, ref_grads, strict=True):
        if math.prod(lead):
            _close(got, want)
        else:  # no row: nothing flows back (MyGrad may leave no gradient at all)
            assert not np.any(got) and (want is None or not np.any(want))


@given(st.data())
def test_tanh_recurrence_is_the_loop(data):
    """tanh_recurrence's states and the gradients of x_part, h0 and the weight equal notebook 01's loop."""
    t, n, d = (data.draw(st.integers(1, 5), label=name) for name in ("T", "N", "D"))
    x_part = data.draw(_arrays((t, n, d), 2.0), label="x_part")
    h0 = data.draw(_arrays(data.draw(st.sampled_from([(1, n, d), (n, d)]), label="h0 shape"), 1.0), label="h0")
    weight = data.draw(_arrays((d, d), 1.0), label="weight") / np.float32(math.sqrt(d))
    upstream = data.draw(_arrays((t, n, d), 3.0), label="upstream")
    ref, ref_grads = _grads(_tanh_loop, [x_part, h0, weight], upstream)
    out, grads = _grads(ops.tanh_recurrence, [x_part, h0, weight], upstream)
    _close(out.data, ref.data)
    for got, want in zip(grads, ref_grads, strict=True):
        _close(got, want)


@given(st.data())
def test_tanh_rnn_is_the_input_layer_and_the_loop(data):
    """tanh_rnn's states and the gradients of x, w_xh, b, h0 and w_hh equal MyGrad's matmul + b, then 01's loop."""
    t, n, c, d = (data.draw(st.integers(1, 5), label=name) for name in ("T", "N", "C", "D"))
    x = data.draw(_arrays((t, n, c), 2.0), label="x")
    w_xh = data.draw(_arrays((c, d), 1.0), label="w_xh") / np.float32(math.sqrt(c))
    b = data.draw(_arrays(data.draw(st.sampled_from([(1, d), (d,)]), label="b shape"), 1.0), label="b")
    h0 = data.draw(_arrays(data.draw(st.sampled_from([(1, n, d), (n, d)]), label="h0 shape"), 1.0), label="h0")
    w_hh = data.draw(_arrays((d, d), 1.0), label="w_hh") / np.float32(math.sqrt(d))
    upstream = data.draw(_arrays((t, n, d), 3.0), label="upstream")
    inputs = [x, w_xh, b, h0, w_hh]
    ref, ref_grads = _grads(lambda x, w, b, h, u: _tanh_loop(mg.matmul(x, w) + b, h, u), inputs, upstream)
    out, grads = _grads(ops.tanh_rnn, inputs, upstream)
    _close(out.data, ref.data)
    for got, want in zip(grads, ref_grads, strict=True):
        _close(got, want)
