"""Notebook 01's RNN, its loop over time one operation: the ``RNN`` of notebooks 02 and 03.

The class is the reference answer of 01 (the same constructor, layers,
initial weights, call and ``parameters``), except for the loop over the T
steps: ``course.ops.tanh_recurrence`` computes every state in one MyGrad
operation whose backward pass (backpropagation through time) is written by
hand, where the loop makes four operations a step. The encoder of 02 and 03
runs T steps at once and their decoders one step per call, so both gain; the
course's tests check that this class and 01's reference give the same scores,
states and gradients for the same weights.
"""

from __future__ import annotations

import numpy as np
from mygrad.nnet.initializers import glorot_normal

from course.layers import dense
from course.ops import tanh_recurrence

__all__ = ["RNN"]


class RNN:
    """A simple-cell recurrent network that returns its scores and its states (notebook 01's, fused)."""

    def __init__(self, dim_input, dim_recurrent, dim_output):
        """Create the input, recurrent and output layers, as notebook 01 does.

        Parameters
        ----------
        dim_input : int
            C, the size of an input vector.
        dim_recurrent : int
            D, the size of the hidden state.
        dim_output : int
            K, the number of output classes.
        """
        self.dim_recurrent = dim_recurrent
        self.input_layer = dense(dim_input, dim_recurrent, weight_initializer=glorot_normal)
        self.recurrent_layer = dense(dim_recurrent, dim_recurrent, weight_initializer=glorot_normal, bias=False)
        self.output_layer = dense(dim_recurrent, dim_output, weight_initializer=glorot_normal)

    def __call__(self, x, h=None):
        """Run the cell over every step of a batch of sequences.

        Parameters
        ----------
        x : Union[numpy.ndarray, mygrad.Tensor], shape=(T, N, C)
            The input vectors, time first.
        h : Optional[Union[numpy.ndarray, mygrad.Tensor]], shape=(1, N, D)
            The initial state h_0. None means zeros.

        Returns
        -------
        y : mygrad.Tensor, shape=(T, N, K)
            The scores y_1, ..., y_T.
        h : mygrad.Tensor, shape=(T, N, D)
            The states h_1, ..., h_T (without h_0).
        """
        if h is None:
            h = np.zeros((1, x.shape[1], self.dim_recurrent), dtype=np.float32)
        x_part = self.input_layer(x)  # x_t W_xh + b for all t at once: (T, N, D)
        h_all = tanh_recurrence(x_part, h, self.recurrent_layer.weight)  # (T, N, D)
        return self.output_layer(h_all), h_all

    @property
    def parameters(self):
        """All learnable tensors of the model, as a tuple (for the optimizer).

        Returns
        -------
        Tuple[mygrad.Tensor, ...]
        """
        return self.input_layer.parameters + self.recurrent_layer.parameters + self.output_layer.parameters
