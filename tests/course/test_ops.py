"""The fused operations of course.ops against the MyGrad compositions they replace."""

from __future__ import annotations

import mygrad as mg
import numpy as np
import pytest

from course import ops

BLOCKED = np.float32(ops.BLOCKED)


def _close(actual, expected, scale=1.0):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=2e-5, atol=2e-6 * scale)


def _grads(build, inputs, upstream):
    """Output and gradients of ``build(*tensors)`` weighted by ``upstream``."""
    tensors = [mg.Tensor(x) for x in inputs]
    out = build(*tensors)
    (out * upstream).sum().backward() if out.ndim else out.backward()
    return out, [t.grad for t in tensors]


SHAPES_AXES = [
    ((7,), -1),
    ((3, 3000), -1),
    ((5, 9), -1),
    ((5, 9), 0),
    ((13, 4, 3, 13), -1),
    ((6, 2, 4, 25), -1),
    ((21, 100), 0),
    ((3, 4, 5), 1),
]


@pytest.mark.parametrize("shape, axis", SHAPES_AXES)
@pytest.mark.parametrize("spread", [1.0, 30.0, 1e4])
def test_softmax_equals_mygrad(shape, axis, spread):
    """Values and gradient as mg.nnet.softmax, float32, also for large and widely spread logits."""
    rng = np.random.default_rng(len(shape) + int(spread))
    x = (rng.normal(size=shape) * spread).astype(np.float32)
    g = rng.normal(size=shape).astype(np.float32)
    ref, ref_grad = _grads(lambda t: mg.nnet.softmax(t, axis=axis), [x], g)
    out, grad = _grads(lambda t: ops.softmax(t, axis=axis), [x], g)
    assert out.dtype == np.float32 and grad[0].dtype == np.float32
    _close(out, ref)
    _close(grad[0], ref_grad[0])
    np.testing.assert_allclose(out.data.sum(axis=axis), 1, rtol=1e-5)


def test_softmax_rows_far_apart():
    """A row 200 below another keeps full precision (the exact per-row form takes over)."""
    x = np.array([[0.0, 1.0, 2.0], [-200.0, -201.0, -230.0], [500.0, 0.0, -500.0]], dtype=np.float32)
    g = np.arange(9, dtype=np.float32).reshape(3, 3)
    ref, ref_grad = _grads(lambda t: mg.nnet.softmax(t), [x], g)
    out, grad = _grads(ops.softmax, [x], g)
    _close(out, ref)
    _close(grad[0], ref_grad[0])
    assert out.data[1, 2] > 0  # exp(-29) of the row's weight survives


@pytest.mark.parametrize("shape", [(5, 9), (13, 3, 4, 13), (25, 2, 4, 25)])
def test_masked_softmax_equals_where(shape):
    """softmax(x, mask=m) is softmax(where(m, x, BLOCKED)), all-masked rows and their gradient included."""
    rng = np.random.default_rng(shape[0])
    x = (rng.normal(size=shape) * 4).astype(np.float32)
    g = rng.normal(size=shape).astype(np.float32)
    mask = rng.random(shape) > 0.5
    mask.reshape(-1, shape[-1])[::7] = False  # some rows with no allowed entry
    mask.reshape(-1, shape[-1])[1::7] = True
    ref, ref_grad = _grads(lambda t: mg.nnet.softmax(mg.where(mask, t, BLOCKED)), [x], g)
    out, grad = _grads(lambda t: ops.softmax(t, mask=mask), [x], g)
    assert out.dtype == np.float32
    _close(out, ref)
    _close(grad[0], ref_grad[0])
    assert np.all(out.data[~mask.any(-1)] == np.float32(1 / shape[-1]))
    assert np.all(grad[0][~mask] == 0)


def test_masked_softmax_broadcast_mask_like_attention():
    """A (t, N, 1, T) causal mask broadcast over the heads, as 04's attention passes it."""
    rng = np.random.default_rng(3)
    t, n, h = 9, 3, 4
    x = (rng.normal(size=(t, n, h, t)) * 3).astype(np.float32)
    x[:, :, :, -1] = 1e3  # masked keys with huge scores must not swamp the allowed ones
    g = rng.normal(size=x.shape).astype(np.float32)
    mask = np.tril(np.ones((t, t), dtype=bool))[:, None, None, :] & np.ones((1, n, 1, 1), dtype=bool)
    mask[-1] = np.tril(np.ones((t, t), dtype=bool))[-2][None, None, :]  # the last query may not see the last key
    ref, ref_grad = _grads(lambda s: mg.nnet.softmax(mg.where(mask, s, BLOCKED)), [x], g)
    out, grad = _grads(lambda s: ops.softmax(s, mask=mask), [x], g)
    _close(out, ref)
    _close(grad[0], ref_grad[0])


def test_softmax_under_no_autodiff_and_mem_guard_off():
    x = np.random.default_rng(0).normal(size=(4, 6)).astype(np.float32)
    with mg.no_autodiff:
        out = ops.softmax(x, mask=x > 0)
    assert isinstance(out, mg.Tensor) and out.dtype == np.float32
    _close(out, mg.nnet.softmax(mg.where(x > 0, x, BLOCKED)))
    with mg.mem_guard_off:
        _, grad = _grads(ops.softmax, [x], np.ones_like(x))
    _close(grad[0], np.zeros_like(x))  # the weights sum to 1 whatever x is


def test_softmax_keeps_its_input_and_dtype():
    x = np.random.default_rng(1).normal(size=(3, 5)).astype(np.float32)
    copy = x.copy()
    ops.softmax(x)
    ops.softmax(x, mask=x > 0)
    np.testing.assert_array_equal(x, copy)
    assert ops.softmax(x.astype(np.float64)).dtype == np.float64
    scalar = mg.Tensor(np.float32(2.0))
    out = ops.softmax(scalar)
    out.backward()
    assert out.item() == 1.0 and scalar.grad == 0


@pytest.mark.parametrize("shape", [(40, 12), (7, 5, 29), (25, 32, 29)])
@pytest.mark.parametrize("spread", [1.0, 50.0, 1e4])
def test_crossentropy_equals_mygrad(shape, spread):
    """softmax_crossentropy(s, y, mask=m) is MyGrad's softmax_crossentropy(s[m], y[m]), gradient included."""
    rng = np.random.default_rng(shape[0] + int(spread))
    scores = (rng.normal(size=shape) * spread).astype(np.float32)
    target = rng.integers(0, shape[-1], size=shape[:-1])
    mask = rng.random(shape[:-1]) > 0.3
    flat_scores, flat_target = scores.reshape(-1, shape[-1]), target.reshape(-1)
    for m in (None, mask):
        chosen = slice(None) if m is None else m.reshape(-1)
        ref, ref_grad = _grads(
            lambda s, c=chosen: mg.nnet.softmax_crossentropy(s[c], flat_target[c]), [flat_scores], None
        )
        out, grad = _grads(lambda s, m=m: ops.softmax_crossentropy(s, target, mask=m), [scores], None)
        assert out.dtype == np.float32 and out.shape == ()
        np.testing.assert_allclose(out.item(), ref.item(), rtol=2e-5)
        _close(grad[0], ref_grad[0].reshape(shape))
        with mg.no_autodiff:
            np.testing.assert_allclose(ops.softmax_crossentropy(scores, target, mask=m).item(), ref.item(), rtol=2e-5)


def test_crossentropy_refuses_bad_targets():
    scores = np.zeros((4, 3), dtype=np.float32)
    with pytest.raises(ValueError):
        ops.softmax_crossentropy(scores, np.array([0, 1, 3, 0]))
    with pytest.raises(ValueError):
        ops.softmax_crossentropy(scores, np.array([0, 1, 2]))
    with pytest.raises(ValueError):
        ops.softmax_crossentropy(scores, np.array([0, 1, 2, 0]), mask=np.zeros(4, dtype=bool))


EPS = np.float32(1e-5)


def _layer_norm_by_hand(x, gain, bias, eps=EPS):
    centred = x - x.mean(axis=-1, keepdims=True)
    return gain * centred / mg.sqrt(x.var(axis=-1, keepdims=True) + eps) + bias


@pytest.mark.parametrize("shape", [(29,), (6, 29), (13, 4, 29), (49, 32, 29)])
def test_layer_norm_equals_nine_operations(shape):
    """layer_norm and its gradients (x, gain, bias) equal the students' nine-operation form."""
    rng = np.random.default_rng(shape[0])
    x = (rng.normal(size=shape) * 3 + 1).astype(np.float32)
    gain = rng.normal(size=shape[-1]).astype(np.float32)
    bias = rng.normal(size=shape[-1]).astype(np.float32)
    g = rng.normal(size=shape).astype(np.float32)
    ref, ref_grads = _grads(_layer_norm_by_hand, [x, gain, bias], g)
    out, grads = _grads(lambda *t: ops.layer_norm(*t, eps=EPS), [x, gain, bias], g)
    assert out.dtype == np.float32 and all(gr.dtype == np.float32 for gr in grads)
    _close(out, ref)
    for got, want in zip(grads, ref_grads, strict=True):
        _close(got, want, scale=np.abs(want).max())
    with mg.no_autodiff, mg.mem_guard_off:
        _close(ops.layer_norm(x, gain, bias), ref)


def test_layer_norm_constant_gain():
    """Constant gain and bias (plain arrays) get no gradient; x still does."""
    x = mg.Tensor(np.random.default_rng(2).normal(size=(3, 8)).astype(np.float32))
    out = ops.layer_norm(x, np.ones(8, dtype=np.float32), np.zeros(8, dtype=np.float32))
    out.sum().backward()
    _close(x.grad, np.zeros((3, 8), dtype=np.float32))  # the normalised rows always sum to 0


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # the NaN row itself
def test_crossentropy_ignores_whatever_stands_at_padding():
    """A NaN or inf score at a masked position changes neither the loss nor any gradient, as ``s[m]`` would."""
    scores = np.random.default_rng(3).normal(size=(3, 5)).astype(np.float32)
    scores[1] = np.nan
    scores[2, 0] = np.inf
    mask = np.array([True, False, False])
    x = mg.tensor(scores)
    loss = ops.softmax_crossentropy(x, np.array([1, 2, 3]), mask=mask)
    loss.backward()
    assert np.isfinite(loss.item())
    assert np.all(np.isfinite(x.grad)) and np.all(x.grad[1:] == 0)


AFFINE_SHAPES = [
    ((6, 12), 25),
    ((1, 100, 12), 25),
    ((21, 100, 25), 12),
    ((49, 32, 29), 64),
    ((3, 2, 4, 7), 5),
    ((0, 4, 3), 2),
]


@pytest.mark.parametrize("shape, k", AFFINE_SHAPES)
@pytest.mark.parametrize("with_bias", [True, False])
def test_affine_equals_matmul_plus_bias(shape, k, with_bias):
    """affine(x, W, b) and its gradients (x, W, b) equal MyGrad's matmul(x, W) + b, float32 in and out."""
    rng = np.random.default_rng(shape[-1] + k)
    x = rng.normal(size=shape).astype(np.float32)
    w = rng.normal(size=(shape[-1], k)).astype(np.float32)
    b = rng.normal(size=(1, k)).astype(np.float32)
    g = rng.normal(size=(*shape[:-1], k)).astype(np.float32)
    inputs = [x, w, b] if with_bias else [x, w]
    ref, ref_grads = _grads(lambda *t: mg.matmul(t[0], t[1]) + t[2] if with_bias else mg.matmul(*t), inputs, g)
    out, grads = _grads(lambda *t: ops.affine(*t), inputs, g)
    assert out.dtype == np.float32 and all(gr.dtype == np.float32 for gr in grads)
    _close(out, ref, scale=np.abs(ref.data).max(initial=1))
    for got, want in zip(grads, ref_grads, strict=True):
        assert got.shape == want.shape
        _close(got, want, scale=np.abs(want).max(initial=1))
    with mg.no_autodiff, mg.mem_guard_off:
        _close(ops.affine(*inputs), ref, scale=np.abs(ref.data).max(initial=1))


def test_affine_of_a_constant_input_and_a_1d_bias():
    """A plain array x gets no gradient; a (K,) bias gets a (K,) gradient; x and W are left as they were."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4, 3, 6)).astype(np.float32)
    copy = x.copy()
    w, b = mg.tensor(rng.normal(size=(6, 2)).astype(np.float32)), mg.tensor(np.zeros(2, dtype=np.float32))
    ops.affine(x, w, b).sum().backward()
    np.testing.assert_array_equal(x, copy)
    assert b.grad.shape == (2,) and np.allclose(b.grad, 12)  # 4 * 3 rows, each adding 1
    _close(w.grad, np.broadcast_to(x.sum(axis=(0, 1))[:, None], (6, 2)), scale=10)
    with pytest.raises(ValueError, match="2 or more axes"):
        ops.affine(np.ones(6, dtype=np.float32), w, b)


def test_course_dense_is_mynns_dense_with_a_fused_forward():
    """course.layers.dense: MyNN's class (a subclass), the same weights from the same seed, the same outputs."""
    from mygrad.nnet import glorot_normal
    from mynn.layers.dense import dense as mynn_dense

    from course.layers import dense

    for bias in (True, False):
        np.random.seed(0)
        ours = dense(12, 25, weight_initializer=glorot_normal, bias=bias)
        np.random.seed(0)
        theirs = mynn_dense(12, 25, weight_initializer=glorot_normal, bias=bias)
        assert isinstance(ours, mynn_dense) and len(ours.parameters) == len(theirs.parameters) == 1 + bias
        for p, q in zip(ours.parameters, theirs.parameters, strict=True):
            np.testing.assert_array_equal(p.data, q.data)
        x = np.random.default_rng(0).normal(size=(7, 10, 12)).astype(np.float32)
        _close(ours(x), theirs(x), scale=10)
        assert type(ours(x).creator).__name__ == "Affine"
        one = x[0, 0]  # one 1-d input: MyNN's own forward (its (1, K) bias broadcasts it to (1, 25))
        assert ours(one).shape == theirs(one).shape


def _tanh_loop(x_part, h0, weight):
    """Notebook 01's loop, step by step in MyGrad: the composition tanh_recurrence replaces."""
    h, states = h0.reshape(x_part.shape[1:]), []
    for t in range(x_part.shape[0]):
        h = mg.tanh(x_part[t] + mg.matmul(h, weight))
        states.append(h)
    return mg.stack(states)


RECURRENCE_SHAPES = [(1, 3, 4), (5, 7, 6), (21, 100, 25)]  # (T, N, D): one decoder step, small, 03's largest batch


def _agrees_with_mygrad(op, composition, inputs, upstream):
    """``op`` gives ``composition``'s values and the gradient of every input, float32, also under no_autodiff."""
    ref, ref_grads = _grads(composition, inputs, upstream)
    out, grads = _grads(op, inputs, upstream)
    assert out.dtype == np.float32 and all(g.dtype == np.float32 for g in grads)
    _close(out, ref)
    for got, want in zip(grads, ref_grads, strict=True):
        assert got.shape == want.shape
        _close(got, want, scale=np.abs(want).max(initial=1))
    with mg.no_autodiff, mg.mem_guard_off:
        _close(op(*inputs), ref)


@pytest.mark.parametrize("shape", RECURRENCE_SHAPES)
@pytest.mark.parametrize("start_shape", ["(1, N, D)", "(N, D)"])
def test_tanh_recurrence_equals_the_loop(shape, start_shape):
    """The states and the gradients of x_part, h0 and the weight equal the loop's, float32 in and out."""
    T, N, D = shape
    rng = np.random.default_rng(T + N)
    x_part = rng.normal(size=shape).astype(np.float32)
    h0 = rng.normal(size=(1, N, D) if start_shape == "(1, N, D)" else (N, D)).astype(np.float32)
    weight = (rng.normal(size=(D, D)) / np.sqrt(D)).astype(np.float32)
    upstream = rng.normal(size=shape).astype(np.float32)
    _agrees_with_mygrad(ops.tanh_recurrence, _tanh_loop, [x_part, h0, weight], upstream)


def test_tanh_recurrence_a_constant_start_and_bad_shapes():
    """A NumPy h0 gets no gradient and is left as it was; shapes that do not fit are refused by name."""
    rng = np.random.default_rng(3)
    x_part, weight = mg.tensor(rng.normal(size=(4, 2, 3)).astype(np.float32)), mg.tensor(np.eye(3, dtype=np.float32))
    h0 = np.zeros((1, 2, 3), dtype=np.float32)
    ops.tanh_recurrence(x_part, h0, weight).sum().backward()
    assert np.all(h0 == 0) and x_part.grad.shape == (4, 2, 3) and weight.grad.shape == (3, 3)
    with pytest.raises(ValueError, match="h0 has shape"):
        ops.tanh_recurrence(x_part, np.zeros((2, 2, 3), np.float32), weight)
    with pytest.raises(ValueError, match=r"\(T, N, D\) and a \(D, D\) weight"):
        ops.tanh_recurrence(x_part, h0, np.eye(2, dtype=np.float32))


def test_the_recurrence_test_catches_a_forgotten_carry(monkeypatch):
    """A backward pass that drops the gradient carried back from later steps (truncated at one step) fails the test."""

    def one_step_only(self, grad):
        states, w = self._states, self.variables[2].data
        dpre = grad * (1 - states * states)
        before = np.concatenate([self._start[None], states[:-1]])
        d = states.shape[-1]
        return dpre, (dpre[0] @ w.T).reshape(self.variables[1].shape), before.reshape(-1, d).T @ dpre.reshape(-1, d)

    monkeypatch.setattr(ops.TanhRecurrence, "_backprop_through_time", one_step_only)
    with pytest.raises(AssertionError):
        test_tanh_recurrence_equals_the_loop((5, 7, 6), "(1, N, D)")


def _input_layer_and_loop(x, w_xh, b, h0, w_hh):
    """MyNN's dense layer (matmul, then + b) and notebook 01's loop: the composition tanh_rnn replaces."""
    return _tanh_loop(mg.matmul(x, w_xh) + b, h0, w_hh)


@pytest.mark.parametrize("shape", [(1, 3, 4, 5), (5, 7, 6, 4), (21, 100, 12, 25)])  # (T, N, C, D)
@pytest.mark.parametrize("start_shape", ["(1, N, D)", "(N, D)"])
@pytest.mark.parametrize("bias_shape", ["(1, D)", "(D,)"])
def test_tanh_rnn_equals_the_input_layer_and_the_loop(shape, start_shape, bias_shape):
    """The states and the gradients of x, w_xh, b, h0 and w_hh equal MyGrad's, float32 in and out."""
    T, N, C, D = shape
    rng = np.random.default_rng(T + N + C)
    x = rng.normal(size=(T, N, C)).astype(np.float32)
    w_xh = (rng.normal(size=(C, D)) / np.sqrt(C)).astype(np.float32)
    b = rng.normal(size=(1, D) if bias_shape == "(1, D)" else (D,)).astype(np.float32)
    h0 = rng.normal(size=(1, N, D) if start_shape == "(1, N, D)" else (N, D)).astype(np.float32)
    w_hh = (rng.normal(size=(D, D)) / np.sqrt(D)).astype(np.float32)
    upstream = rng.normal(size=(T, N, D)).astype(np.float32)
    _agrees_with_mygrad(ops.tanh_rnn, _input_layer_and_loop, [x, w_xh, b, h0, w_hh], upstream)


def test_tanh_rnn_constant_inputs_and_bad_shapes():
    """NumPy x and h0 (02's one-hot inputs) get no gradient and are left as they were; misfits are refused by name."""
    rng = np.random.default_rng(4)
    x = np.eye(3, dtype=np.float32)[rng.integers(0, 3, size=(4, 2))]  # (T, N, C) one-hot
    h0 = np.zeros((1, 2, 5), dtype=np.float32)
    copies = x.copy(), h0.copy()
    w_xh, b, w_hh = (mg.tensor(rng.normal(size=s).astype(np.float32)) for s in [(3, 5), (1, 5), (5, 5)])
    ops.tanh_rnn(x, w_xh, b, h0, w_hh).sum().backward()
    np.testing.assert_array_equal(x, copies[0])
    np.testing.assert_array_equal(h0, copies[1])
    assert (w_xh.grad.shape, b.grad.shape, w_hh.grad.shape) == ((3, 5), (1, 5), (5, 5))
    with pytest.raises(ValueError, match="h0 has shape"):
        ops.tanh_rnn(x, w_xh, b, np.zeros((2, 2, 5), np.float32), w_hh)
    with pytest.raises(ValueError, match="b has shape"):
        ops.tanh_rnn(x, w_xh, np.zeros((2, 5), np.float32), h0, w_hh)
    with pytest.raises(ValueError, match=r"\(T, N, C\), w_xh of shape \(C, D\)"):
        ops.tanh_rnn(x, w_xh, b, h0, np.eye(3, dtype=np.float32))


def test_the_tanh_rnn_test_catches_a_forgotten_tanh_derivative(monkeypatch):
    """A backward pass that hands the input layer the states' gradient without tanh' fails the test."""
    right = ops.TanhRNN._backprop_through_time

    def without_tanh_derivative(self, grad):
        _, dstart, dweight = right(self, grad)
        return grad, dstart, dweight

    monkeypatch.setattr(ops.TanhRNN, "_backprop_through_time", without_tanh_derivative)
    with pytest.raises(AssertionError):
        test_tanh_rnn_equals_the_input_layer_and_the_loop((5, 7, 6, 4), "(1, N, D)", "(1, D)")
