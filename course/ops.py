"""Fused MyGrad operations: one forward and one hand-written backward each.

A MyGrad expression such as ``mg.nnet.softmax(mg.where(mask, s, -1e9))`` or a
layer norm written with ``mean``, ``var``, ``sqrt``, ``-``, ``/``, ``*`` and
``+`` is a chain of operations, each of which reads and writes whole arrays
in NumPy and keeps its own intermediate results for the backward pass. The
operations here do the same work in fewer NumPy passes:

* :func:`softmax` (optionally masked), used by the reference code of the
  attention models where the softmax is given, not the students' task;
* :func:`softmax_crossentropy`, the loss over the real (unmasked) positions;
* :func:`layer_norm`, written for 04 to *show* the speed of a fused layer
  norm next to the one students write from MyGrad operations;
* :func:`affine`, ``x @ weight + bias`` as one operation: the forward pass of
  the dense layer the notebooks import (:class:`course.layers.dense`, MyNN's
  ``dense`` with this forward pass), one matrix product over all leading axes
  at once and the bias added in place;
* :func:`tanh_recurrence`, every state of notebook 01's simple cell
  ``h_t = tanh(x_t W_xh + b + h_{t-1} W_hh)`` as one operation whose backward
  pass (backpropagation through time) is written by hand: the recurrence of
  :class:`course.recurrent.RNN`, which notebooks 02 and 03 use for the RNN
  students wrote in 01;
* :func:`tanh_rnn`, the same with the input layer's ``x_t W_xh + b`` taken
  inside (one operation where ``affine`` then ``tanh_recurrence`` are two):
  what :class:`course.recurrent.RNN` calls;
* :func:`attend`, one decoder step of notebook 03's attention (scores, softmax
  over the encoder steps, context) as one operation where the students'
  einsum, softmax and einsum are three, for its full-mode training
  (:mod:`course.fused`).

Two NumPy facts make most of the difference (NumPy 2.x, float32):

* a reduction over a short last axis (``x.max(axis=-1)`` over rows of
  13-49 numbers) costs far more per element than the whole-array ``x.max()``
  or a row sum written as ``np.einsum("...j->...", x)``;
* every extra pass over an array of a few hundred kB costs about as much as
  the arithmetic it does.

Each function returns float32 for float32 input, works under
``mg.no_autodiff`` and ``mg.mem_guard_off``, and agrees with the MyGrad
composition it replaces to float32 rounding (the course's tests check values and gradients).
"""

from __future__ import annotations

import math

import mygrad as mg
import mygrad._utils.graph_tracking as _tracking
import numpy as np
from mygrad.operation_base import Operation

__all__ = [
    "BLOCKED",
    "affine",
    "attend",
    "layer_norm",
    "softmax",
    "softmax_crossentropy",
    "tanh_recurrence",
    "tanh_rnn",
]

#: The score a masked pair gets before the softmax: its weight is then exactly 0.
#: A row with no allowed entry gets equal weights, as ``softmax(where(mask, s, BLOCKED))`` gives.
BLOCKED = -1e9

#: Rows whose sum of ``exp(x - global max)`` falls below this are redone with their own maximum.
#: Above it, every weight larger than about 1e-22 of the row's largest is a normal float, so the
#: cheap shift by the global maximum loses nothing float32 can show.
_TINY_SUM = float(np.exp(-30.0))


def _float(x: np.ndarray) -> np.ndarray:
    return x if np.issubdtype(x.dtype, np.floating) else x.astype(np.float64)


#: Rows up to this long are summed with einsum (fast on short rows); longer ones with NumPy's
#: pairwise sum, whose rounding error does not grow with the length.
_SHORT_ROW = 256


def _row_sum(a: np.ndarray) -> np.ndarray:
    """Sum over the last axis, kept as a length-1 axis (much faster than ``a.sum(-1)`` on short rows)."""
    if a.shape[-1] > _SHORT_ROW:
        return a.sum(axis=-1, keepdims=True)
    return np.einsum("...j->...", a)[..., None]


def _row_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(a * b).sum(-1, keepdims=True)``; for short rows in one pass, without the product array."""
    if a.shape[-1] > _SHORT_ROW:
        return (a * b).sum(axis=-1, keepdims=True)
    return np.einsum("...j,...j->...", a, b)[..., None]


def _sum_over(a: np.ndarray, axis: int) -> np.ndarray:
    return _row_sum(a) if axis == a.ndim - 1 else a.sum(axis=axis, keepdims=True)


def _dot_over(a: np.ndarray, b: np.ndarray, axis: int) -> np.ndarray:
    return _row_dot(a, b) if axis == a.ndim - 1 else (a * b).sum(axis=axis, keepdims=True)


def _softmax_array(x: np.ndarray, axis: int, mask: np.ndarray | None = None):
    """Softmax of a float array along ``axis``; where ``mask`` is False, weight 0.

    Returns the softmax, the shift subtracted from ``x`` (a scalar or one per
    row) and the row sums of ``exp(x - shift)`` (so that the log-softmax is
    ``x - shift - log(total)``).
    """
    if x.size == 0:
        return np.empty_like(x), x.dtype.type(0), np.ones_like(x.sum(axis=axis, keepdims=True))
    top = x.max()
    if np.isfinite(top):
        # One shift for all rows: exact for softmax (it is shift-invariant) and safe from
        # overflow; a row far below the global maximum would underflow, so that is checked.
        e = x - top
        np.exp(e, out=e)
        if mask is not None:
            e *= mask  # masked entries: weight exactly 0 (cheaper than where(mask, x, BLOCKED))
        total = _sum_over(e, axis)
        if total.min() >= _TINY_SUM:
            e /= total
            return e, top, total
    # The exact form, as MyGrad computes softmax(where(mask, x, BLOCKED)): every row shifted
    # by its own maximum. Needed only for rows far below the others, or with no allowed entry.
    if mask is not None:
        x = np.where(mask, x, x.dtype.type(BLOCKED))
    shift = x.max(axis=axis, keepdims=True)
    e = x - shift
    np.exp(e, out=e)
    total = _sum_over(e, axis)
    e /= total
    return e, shift, total


class Softmax(Operation):
    """Softmax along one axis, optionally with a mask; gradient by hand."""

    def __call__(self, a, axis=-1, mask=None):
        self.variables = (a,)
        x = _float(a.data)
        self.axis = axis % x.ndim if x.ndim else 0
        self.mask = None
        if x.ndim == 0:
            self._out = np.ones_like(x)
            return self._out
        if mask is not None:
            mask = np.asarray(mask, dtype=bool)
        out, shift, _ = _softmax_array(x, self.axis, mask)
        if mask is not None and np.ndim(shift):
            # The exact form ran (rare): a row with no allowed entry has equal weights, and
            # where(mask, ...) passes no gradient to masked entries; the backward pass applies the mask.
            self.mask = mask
        self._out = out
        return out

    def backward_var(self, grad, index, **kwargs):
        soft = self._out
        if soft.ndim == 0:  # the softmax of one number is 1, whatever the number
            return np.zeros_like(soft)
        # d softmax: s * (g - sum(s * g)) along the axis
        gx = grad - _dot_over(soft, grad, self.axis)
        gx *= soft
        if self.mask is not None:
            gx *= self.mask
        return gx


def softmax(x, axis=-1, *, mask=None, constant=None):
    """The softmax of ``x`` along ``axis``, as ``mg.nnet.softmax``, in fewer NumPy passes.

    Parameters
    ----------
    x : array_like
        The scores.
    axis : int
        The axis whose entries sum to one.
    mask : Optional[array_like of bool]
        Broadcastable to ``x``: where False, the entry gets weight 0 and no
        gradient, exactly as ``mg.nnet.softmax(mg.where(mask, x, BLOCKED), axis)``.
        A row with no True entry gets equal weights (as that expression gives).
    constant : Optional[bool]
        If True, the result is a constant (no gradient flows back).

    Returns
    -------
    mygrad.Tensor, the shape and (floating) dtype of ``x``
    """
    return mg.execute_op(Softmax, x, op_kwargs={"axis": axis, "mask": mask}, constant=constant)


class SoftmaxCrossEntropy(Operation):
    """Mean softmax cross-entropy over the rows where ``mask`` is True (all rows without a mask)."""

    def __call__(self, a, target, mask=None):
        self.variables = (a,)
        scores = _float(a.data)
        k = scores.shape[-1]
        target = np.asarray(getattr(target, "data", target))
        if target.shape != scores.shape[:-1]:
            raise ValueError(f"target has shape {target.shape}; the scores need {scores.shape[:-1]}")
        if mask is None:
            mask = np.ones(target.shape, dtype=bool)
        mask = np.broadcast_to(np.asarray(mask, dtype=bool), target.shape)
        rows = scores.reshape(-1, k)
        picked = np.flatnonzero(mask)
        labels = target.reshape(-1)[picked]
        if picked.size == 0:
            raise ValueError("the mask leaves no position to average the loss over")
        if labels.min() < 0 or labels.max() >= k:
            raise ValueError(f"target classes must lie in [0, {k})")
        prob, shift, total = _softmax_array(rows, 1)  # (M, K): every row, masked ones too
        # log-softmax of the right class: x - shift - log(total), exact even where prob underflows
        shift = shift[picked, 0] if np.ndim(shift) else shift
        log_p = rows[picked, labels] - shift - np.log(total[picked, 0])
        n = scores.dtype.type(picked.size)
        loss = -log_p.sum(dtype=scores.dtype) / n
        if _graph_tracked():
            # d loss / d scores = (softmax - one_hot) / n on the chosen rows, 0 elsewhere
            prob[picked, labels] -= 1
            if picked.size != mask.size:
                prob[~mask.reshape(-1)] = 0  # not `*= mask`: a NaN or inf at padding would stay NaN
            prob /= n
            self._back = prob.reshape(scores.shape)
        return np.asarray(loss, dtype=scores.dtype)

    def backward_var(self, grad, index, **kwargs):
        return grad * self._back


def _graph_tracked() -> bool:
    return bool(_tracking.TRACK_GRAPH)  # False under mg.no_autodiff: keep nothing for a backward pass


def softmax_crossentropy(scores, target, *, mask=None, constant=None):
    """The mean softmax cross-entropy of ``scores`` over the positions where ``mask`` is True.

    ``softmax_crossentropy(s, y, mask=m)`` equals MyGrad's
    ``mg.nnet.softmax_crossentropy(s[m], y[m])`` without copying the chosen rows
    out and back.

    Parameters
    ----------
    scores : array_like, shape=(..., K)
        One score per class at every position.
    target : array_like of int, shape=(...)
        The right class at every position, in [0, K) where ``mask`` is True.
    mask : Optional[array_like of bool], broadcastable to ``target``'s shape
        The positions to average over; None means all of them.
    constant : Optional[bool]
        If True, the result is a constant.

    Returns
    -------
    mygrad.Tensor, shape=()
    """
    return mg.execute_op(SoftmaxCrossEntropy, scores, op_args=(target, mask), constant=constant)


class LayerNorm(Operation):
    """``gain * (x - mean) / sqrt(var + eps) + bias`` over the last axis, with its gradient by hand."""

    def __call__(self, x, gain, bias, eps=1e-5):
        self.variables = (x, gain, bias)
        data = _float(x.data)
        d = data.shape[-1]
        inv_d = data.dtype.type(1.0 / d)
        # centred on the row's first value, then on the mean of what is left: the same x - mean(x), but a row of
        # equal values is exactly 0 (its mean, rounded, is not always the value) and a row far from 0 loses less
        centred = data - data[..., :1]
        centred -= _row_sum(centred) * inv_d
        var = _row_dot(centred, centred) * inv_d
        self._rstd = 1 / np.sqrt(var + data.dtype.type(eps))
        centred *= self._rstd  # now x-hat: mean 0, variance 1 along the last axis
        self._xhat = centred
        out = centred * gain.data
        out += bias.data
        return out

    def backward_var(self, grad, index, **kwargs):
        xhat = self._xhat
        if index == 0:
            g = grad * self.variables[1].data  # d loss / d x-hat
            inv_d = xhat.dtype.type(1.0 / xhat.shape[-1])
            # (g - mean(g) - xhat * mean(g * xhat)) / std, every mean along the last axis
            dx = g - _row_sum(g) * inv_d
            dx -= xhat * (_row_dot(g, xhat) * inv_d)
            dx *= self._rstd
            return dx
        lead = grad.reshape(-1, grad.shape[-1]) if grad.ndim else grad
        if index == 1:
            return np.einsum("ij,ij->j", lead, xhat.reshape(-1, xhat.shape[-1]))
        return lead.sum(axis=0)


def layer_norm(x, gain, bias, eps=1e-5, *, constant=None):
    """Layer normalisation over the last axis, one operation instead of nine.

    Equals ``gain * (x - x.mean(-1, keepdims=True)) / mg.sqrt(x.var(-1, keepdims=True) + eps) + bias``.

    Parameters
    ----------
    x : array_like, shape=(..., d)
    gain, bias : array_like, shape=(d,)
    eps : float
        Added to the variance.
    constant : Optional[bool]
        If True, the result is a constant.

    Returns
    -------
    mygrad.Tensor, shape=(..., d)
    """
    return mg.execute_op(LayerNorm, x, gain, bias, op_kwargs={"eps": eps}, constant=constant)


class Affine(Operation):
    """``x @ weight + bias`` over the last axis of ``x`` (any leading axes), gradient by hand.

    The leading axes are folded into the rows of one (M, C) @ (C, K) product.
    The bias gradient, the column sums of the upstream gradient, is the product
    ``ones(M) @ grad``: NumPy's ``sum(axis=0)`` over many short rows of float32
    costs 10-20 times more (13 vs 1 us for 100 rows of 12, 190 vs 8 us for 2000).
    Gradients are written into fresh arrays of the variables' shapes (MyGrad
    copies a gradient that is a view).
    """

    def __call__(self, x, weight, bias=None):
        self.variables = (x, weight) if bias is None else (x, weight, bias)
        data = x.data
        self._rows = data.reshape(math.prod(data.shape[:-1]), data.shape[-1])  # (M, C): a view for contiguous x
        out = np.matmul(self._rows, weight.data)  # (M, K)
        if bias is not None:
            out += bias.data  # in place: (1, K) or (K,) broadcast over the rows
        return out.reshape(*data.shape[:-1], out.shape[-1])

    def backward_var(self, grad, index, **kwargs):
        rows = grad.reshape(self._rows.shape[0], grad.shape[-1])  # (M, K)
        if index == 1:  # d/dweight: x.T @ grad, summed over every row at once
            return np.matmul(self._rows.T, rows)
        var = self.variables[index]
        out = np.empty(var.shape, dtype=np.result_type(var.dtype, grad.dtype))
        if index == 0:  # d/dx: grad @ weight.T, in the shape of x
            np.matmul(rows, self.variables[1].data.T, out=out.reshape(self._rows.shape))
        else:  # d/dbias: the column sums
            np.matmul(np.ones(rows.shape[0], dtype=rows.dtype), rows, out=out.reshape(rows.shape[1]))
        return out


def _ndim(a) -> int:
    return a.ndim if hasattr(a, "ndim") else np.ndim(a)  # np.ndim refuses a mygrad.Tensor


def _shape(a) -> tuple:
    return a.shape if hasattr(a, "shape") else np.shape(a)


def affine(x, weight, bias=None, *, constant=None):
    """``mg.matmul(x, weight) + bias`` in one operation, for ``x`` with one or more leading axes.

    Parameters
    ----------
    x : array_like, shape=(..., C), at least 2-dimensional
    weight : array_like, shape=(C, K)
    bias : Optional[array_like], shape=(1, K) or (K,)
    constant : Optional[bool]
        If True, the result is a constant.

    Returns
    -------
    mygrad.Tensor, shape=(..., K)
    """
    if _ndim(x) < 2 or _ndim(weight) != 2 or (bias is not None and _ndim(bias) > 2):
        raise ValueError(
            f"affine takes x of 2 or more axes, a 2-d weight and a bias of at most 2 axes, "
            f"not {_shape(x)}, {_shape(weight)}, {_shape(bias)}"
        )
    args = (x, weight) if bias is None else (x, weight, bias)
    return mg.execute_op(Affine, *args, constant=constant)


class TanhRecurrence(Operation):
    """The states h_1..h_T of ``h_t = tanh(x_part[t] + h_{t-1} @ weight)``; backpropagation through time by hand.

    MyGrad written step by step makes four operations a step (an index, a
    product, a sum, a tanh) and keeps each one's arrays; here the forward pass
    writes every state into one (T, N, D) array, and the backward pass walks
    the steps back once, computing the gradients of all three inputs together
    (the weight's as one product over all T * N rows).
    """

    def __call__(self, x_part, h0, weight):
        self.variables = (x_part, h0, weight)
        xs, start, w = x_part.data, h0.data, weight.data
        if xs.ndim != 3 or w.ndim != 2 or w.shape != (xs.shape[-1], xs.shape[-1]):
            raise ValueError(
                f"tanh_recurrence takes x_part of shape (T, N, D) and a (D, D) weight, not {xs.shape} and {w.shape}"
            )
        if start.shape not in ((xs.shape[1], xs.shape[2]), (1, xs.shape[1], xs.shape[2])):
            raise ValueError(f"h0 has shape {start.shape}; x_part of shape {xs.shape} needs (N, D) or (1, N, D)")
        self._start = start.reshape(xs.shape[1:])  # (N, D)
        self._weight = w
        states = np.empty(xs.shape, dtype=np.result_type(xs, start, w))
        states[...] = xs
        return self._run(states)

    def _run(self, states: np.ndarray) -> np.ndarray:
        """Turn ``states``, holding x_part, into h_1..h_T in place, from ``self._start`` and ``self._weight``."""
        h, w = self._start, self._weight
        for t in range(states.shape[0]):
            states[t] += h @ w
            np.tanh(states[t], out=states[t])
            h = states[t]
        self._states = states
        self._grads_for = None  # the upstream gradient whose input gradients are in self._grads
        self._grads: tuple = ()
        return states

    def _backprop_through_time(self, grad: np.ndarray) -> tuple:
        """d loss / d (x_part, h0, weight) from d loss / d states, shape (T, N, D)."""
        states, w = self._states, self._weight
        dpre = np.empty_like(states)  # d loss / d (x_part[t] + h_{t-1} W): also d loss / d x_part
        carry = np.zeros_like(self._start)  # d loss / d h_t through the later steps
        for t in range(states.shape[0] - 1, -1, -1):
            g = dpre[t]
            np.add(grad[t], carry, out=g)
            g *= 1 - states[t] * states[t]  # tanh' = 1 - tanh^2
            carry = g @ w.T
        d = states.shape[-1]
        before = np.concatenate([self._start[None], states[:-1]])  # h_{t-1} for t = 1..T
        dweight = before.reshape(-1, d).T @ dpre.reshape(-1, d)
        return dpre, carry.reshape(self._start_shape), dweight

    @property
    def _start_shape(self) -> tuple:
        return self.variables[1].shape

    def backward_var(self, grad, index, **kwargs):
        if self._grads_for is not grad:  # MyGrad asks once per input, with the same gradient
            self._grads = self._backprop_through_time(grad)
            self._grads_for = grad
        return self._grads[index]


def tanh_recurrence(x_part, h0, weight, *, constant=None):
    """Every state of the simple cell ``h_t = tanh(x_part[t] + h_{t-1} @ weight)``, as one operation.

    Equals ``mg.stack(states)`` of the loop ``h = h0[0]; for t in range(T): h =
    mg.tanh(x_part[t] + mg.matmul(h, weight)); states.append(h)``, the loop of
    notebook 01's ``RNN``, with ``x_part`` its input layer's output for all
    steps at once.

    Parameters
    ----------
    x_part : array_like, shape=(T, N, D)
        x_t W_xh + b for every step t.
    h0 : array_like, shape=(1, N, D) or (N, D)
        The state before the first step.
    weight : array_like, shape=(D, D)
        W_hh.
    constant : Optional[bool]
        If True, the result is a constant.

    Returns
    -------
    mygrad.Tensor, shape=(T, N, D)
        h_1, ..., h_T.
    """
    return mg.execute_op(TanhRecurrence, x_part, h0, weight, constant=constant)


class TanhRNN(TanhRecurrence):
    """The states of ``h_t = tanh(x_t @ w_xh + b + h_{t-1} @ w_hh)`` from x: the input layer and the loop in one.

    :class:`TanhRecurrence` with the input layer's product taken inside: the
    forward pass writes ``x @ w_xh + b`` for all T steps (one product over all
    T * N rows) straight into the array of states and runs the loop there; the
    backward pass gets d loss / d (x_t W_xh + b) from backpropagation through
    time and turns it into the gradients of x, w_xh and b with one product each.
    """

    def __call__(self, x, w_xh, b, h0, w_hh):
        self.variables = (x, w_xh, b, h0, w_hh)
        xs, w_in, bias, start, w = x.data, w_xh.data, b.data, h0.data, w_hh.data
        if xs.ndim != 3 or w_in.ndim != 2 or w_in.shape[0] != xs.shape[-1] or w.shape != (w_in.shape[1],) * 2:
            raise ValueError(
                "tanh_rnn takes x of shape (T, N, C), w_xh of shape (C, D) and w_hh of shape (D, D), "
                f"not {xs.shape}, {w_in.shape} and {w.shape}"
            )
        t, n, d = xs.shape[0], xs.shape[1], w_in.shape[1]
        if bias.shape not in ((d,), (1, d)):
            raise ValueError(f"b has shape {bias.shape}; w_xh of shape {w_in.shape} needs ({d},) or (1, {d})")
        if start.shape not in ((n, d), (1, n, d)):
            raise ValueError(f"h0 has shape {start.shape}; the states of shape {(t, n, d)} need (N, D) or (1, N, D)")
        self._rows = xs.reshape(t * n, xs.shape[-1])  # (T * N, C): a view for contiguous x
        self._start = start.reshape(n, d)
        self._weight = w
        states = np.matmul(self._rows, w_in).reshape(t, n, d)  # x_t W_xh for every t, then + b in place
        states += bias.reshape(d)
        return self._run(states)

    @property
    def _start_shape(self) -> tuple:
        return self.variables[3].shape

    def backward_var(self, grad, index, **kwargs):
        if self._grads_for is not grad:  # MyGrad asks once per input, with the same gradient
            dpre, dstart, dweight = self._backprop_through_time(grad)
            self._grads = (dpre, dstart, dweight)
            self._grads_for = grad
        dpre, dstart, dweight = self._grads
        rows = dpre.reshape(self._rows.shape[0], dpre.shape[-1])  # (T * N, D): d loss / d (x_t W_xh + b)
        if index == 0:  # d/dx: one product, in the shape of x
            return (rows @ self.variables[1].data.T).reshape(self.variables[0].shape)
        if index == 1:  # d/dw_xh
            return self._rows.T @ rows
        if index == 2:  # d/db: the column sums, as a product with ones (see Affine)
            return (np.ones(rows.shape[0], dtype=rows.dtype) @ rows).reshape(self.variables[2].shape)
        return dstart if index == 3 else dweight


def tanh_rnn(x, w_xh, b, h0, w_hh, *, constant=None):
    """Every state of notebook 01's cell ``h_t = tanh(x_t W_xh + b + h_{t-1} W_hh)``, input layer included.

    Equals ``tanh_recurrence(affine(x, w_xh, b), h0, w_hh)`` as one operation
    instead of two: the states of :class:`course.recurrent.RNN`.

    Parameters
    ----------
    x : array_like, shape=(T, N, C)
        The inputs of every step.
    w_xh : array_like, shape=(C, D)
    b : array_like, shape=(1, D) or (D,)
    h0 : array_like, shape=(1, N, D) or (N, D)
        The state before the first step.
    w_hh : array_like, shape=(D, D)
    constant : Optional[bool]
        If True, the result is a constant.

    Returns
    -------
    mygrad.Tensor, shape=(T, N, D)
        h_1, ..., h_T.
    """
    return mg.execute_op(TanhRNN, x, w_xh, b, h0, w_hh, constant=constant)


class Attend(Operation):
    """The context ``c = sum_t a_t h^e_t`` of one decoder step, ``a = softmax_t(H^e W_alpha . h^d)``, gradient by hand.

    The weights ``a`` are kept on the operation (``self.weights``) for the
    caller to return as a constant: notebook 03's model only draws them.
    """

    def __call__(self, enc_proj, enc_h, h_t):
        self.variables = (enc_proj, enc_h, h_t)
        proj, states, h = enc_proj.data, enc_h.data, h_t.data
        if proj.ndim != 3 or states.shape[1:] != proj.shape[1:] or h.shape != (1,) + proj.shape[1:]:
            raise ValueError(
                f"attend takes enc_proj and enc_h of shape (T, N, D) and h_t of shape (1, N, D), "
                f"not {proj.shape}, {states.shape} and {h.shape}"
            )
        scores = np.einsum("tbd,bd->tb", proj, h[0])  # (T, N)
        scores -= scores.max(axis=0)  # each column's largest is 0: exp cannot overflow
        weights = np.exp(scores, out=scores)
        weights /= weights.sum(axis=0)
        self.weights = weights  # (T, N): each column sums to 1
        self._grads_for = None
        self._grads: tuple = ()
        return np.einsum("tb,tbd->bd", weights, states)[None]  # (1, N, D)

    def _gradients(self, grad: np.ndarray) -> tuple:
        """d loss / d (enc_proj, enc_h, h_t) from d loss / d c, shape (1, N, D)."""
        proj, states, h = (v.data for v in self.variables)
        a, g = self.weights, grad[0]  # (T, N), (N, D)
        d_a = np.einsum("bd,tbd->tb", g, states)  # d loss / d a
        d_scores = a * (d_a - np.einsum("tb,tb->b", a, d_a))  # the softmax's Jacobian, column by column
        d_proj = d_scores[:, :, None] * h  # (T, N, D)
        d_states = a[:, :, None] * g  # (T, N, D)
        d_h = np.einsum("tb,tbd->bd", d_scores, proj)[None]  # (1, N, D)
        return d_proj, d_states, d_h

    def backward_var(self, grad, index, **kwargs):
        if self._grads_for is not grad:  # MyGrad asks once per input, with the same gradient
            self._grads = self._gradients(grad)
            self._grads_for = grad
        return self._grads[index]


def attend(enc_proj, enc_h, h_t):
    """One step of dot-product attention over the encoder states, as one operation: notebook 03's ``attend``.

    Equals ``e = einsum("tnd,snd->tsn", enc_proj, h_t)``, ``a = softmax(e, axis=0)``,
    ``c = einsum("tsn,tnd->snd", a, enc_h)``, with gradients reaching all three inputs
    through ``c``.

    Parameters
    ----------
    enc_proj : array_like, shape=(T, N, D)
        The encoder states times W_alpha.
    enc_h : array_like, shape=(T, N, D)
        The encoder states.
    h_t : array_like, shape=(1, N, D)
        The decoder state of this step.

    Returns
    -------
    c_t : mygrad.Tensor, shape=(1, N, D)
        The context of each sequence.
    a_t : mygrad.Tensor, shape=(T, N)
        The weights, a constant: no gradient flows back through them.
    """
    context = mg.execute_op(Attend, enc_proj, enc_h, h_t)
    weights = context.creator.weights if context.creator is not None else None
    if weights is None:  # no graph (mg.no_autodiff): the operation was not kept, so compute the weights again
        scores = np.einsum("tbd,bd->tb", mg.asarray(enc_proj), mg.asarray(h_t)[0])
        weights = np.exp(scores - scores.max(axis=0))
        weights /= weights.sum(axis=0)
    return context, mg.tensor(weights, constant=True)
