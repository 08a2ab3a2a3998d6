"""Notebook 01's RNN, its loop over time one operation: the ``RNN`` of notebooks 02 and 03.

The class is the reference answer of 01 (the same constructor, layers,
initial weights, call and ``parameters``), except for the loop over the T
steps: ``course.ops.tanh_rnn`` computes the input layer's ``x_t W_xh + b``
and every state in one MyGrad operation whose backward pass
(backpropagation through time) is written by hand, where the input layer
and the loop make 1 + 4 T operations. The encoder of 02 and 03
runs T steps at once and their decoders one step per call, so both gain; the
course's tests check that this class and 01's reference give the same scores,
states and gradients for the same weights.
"""

from __future__ import annotations

import numpy as np
from mygrad import nnet

from course.layers import dense
from course.ops import tanh_recurrence, tanh_rnn

__all__ = ["RNN", "run_rnn"]


class RNN:
    """A simple-cell recurrent network that returns its scores and its states (notebook 01's, fused)."""

    def __init__(self, dim_input, dim_recurrent, dim_output):
        """Three dense layers, Glorot-normal weights, drawn in 01's order (same seed, same weights).

        ``input_layer``: C -> D with a bias; ``recurrent_layer``: D -> D without
        one (its weight is W_hh); ``output_layer``: D -> K with a bias.
        """
        self.dim_recurrent = dim_recurrent
        self.input_layer = dense(dim_input, dim_recurrent, weight_initializer=nnet.glorot_normal)
        self.recurrent_layer = dense(dim_recurrent, dim_recurrent, weight_initializer=nnet.glorot_normal, bias=False)
        self.output_layer = dense(dim_recurrent, dim_output, weight_initializer=nnet.glorot_normal)

    def __call__(self, x, h=None):
        """Scores and states for inputs x of shape (T, N, C), from the state h of shape (1, N, D) (None: zeros).

        Returns the scores y_1..y_T, shape (T, N, K), and the states h_1..h_T,
        shape (T, N, D), both mygrad.Tensor; with T = 1 the states are one
        step's, ready to be passed back as the next call's ``h``.
        """
        return run_rnn(self, x, h)

    @property
    def parameters(self):
        """The five learnable tensors, in 01's order: input weight and bias, W_hh, output weight and bias."""
        return self.input_layer.parameters + self.recurrent_layer.parameters + self.output_layer.parameters


def run_rnn(model, x, h=None):
    """Scores (T, N, K) and states (T, N, D) of any RNN with notebook 01's layers, its loop one operation.

    ``model`` has 01's ``input_layer`` (x_t -> D), ``recurrent_layer`` (D -> D,
    its weight W_hh, with or without a bias) and ``output_layer``; ``x`` has
    shape (T, N, C) and ``h`` (1, N, D) (None: zeros). A dense input layer goes
    into ``course.ops.tanh_rnn`` with the loop; any other is called first, then
    ``course.ops.tanh_recurrence``. This is ``RNN.__call__``, and what
    :mod:`course.fused` trains a student's own 01 ``RNN`` with.
    """
    recurrent, layer = model.recurrent_layer, model.input_layer
    w_hh = recurrent.weight
    if h is None:
        h = np.zeros((1, x.shape[1], w_hh.shape[0]), dtype=np.float32)
    extra = getattr(recurrent, "bias", None)  # a bias of the recurrent layer adds to the input layer's
    if isinstance(layer, dense) and layer.bias is not None and getattr(x, "ndim", None) == 3:
        # the input layer and every h_t in one operation: (T, N, D)
        bias = layer.bias if extra is None else layer.bias + extra
        h_all = tanh_rnn(x, layer.weight, bias, h, w_hh)
    else:  # an input layer of another kind: call it, then the loop
        x_part = layer(x) if extra is None else layer(x) + extra
        h_all = tanh_recurrence(x_part, h, w_hh)
    return model.output_layer(h_all), h_all
