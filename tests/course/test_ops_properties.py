"""Properties of course.ops over shapes and values hypothesis draws: each fused operation equals the MyGrad
composition it replaces, in values and gradients, float32 in and out; masked positions get no weight.

tests/course/test_ops.py checks chosen cases (the course's own shapes, far-apart rows, NaN at padding); these
draw small shapes of every rank and values of any sign and spread (profile in tests/conftest.py).
"""

from __future__ import annotations

import math

import mygrad as mg
import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from course import ops
from tests.course.test_ops import EPS, _grads, _layer_norm_by_hand, _tanh_loop

BLOCKED = np.float32(ops.BLOCKED)
#: each property's examples: enough to meet every rank and edge (zeros, ties, one class), few enough for seconds
EXAMPLES = settings(max_examples=40)


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


@EXAMPLES
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


@EXAMPLES
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


@EXAMPLES
@given(st.data())
def test_layer_norm_is_the_nine_operations(data):
    """layer_norm(x, gain, bias) and its three gradients equal the students' composition of MyGrad operations."""
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6), label="shape")
    x = data.draw(_arrays(shape, 3.0), label="x")
    gain = data.draw(_arrays(shape[-1:], 3.0), label="gain")
    bias = data.draw(_arrays(shape[-1:], 3.0), label="bias")
    upstream = data.draw(_arrays(shape, 3.0), label="upstream")
    ref, ref_grads = _grads(_layer_norm_by_hand, [x, gain, bias], upstream)
    out, grads = _grads(lambda *t: ops.layer_norm(*t, eps=EPS), [x, gain, bias], upstream)
    # a row of nearly equal values is divided by about sqrt(eps): float32's rounding of x grows by 1/sqrt(eps)
    _close(out.data, ref.data, rtol=1e-3, atol=1e-3)
    for got, want in zip(grads, ref_grads, strict=True):
        _close(got, want, rtol=1e-3, atol=1e-3)


@EXAMPLES
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


@EXAMPLES
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


@EXAMPLES
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
