"""PyTorch twins of the recurrent models of 01-03: RNN, Seq2Seq, AttentionSeq2Seq.

Written the way notebook 01's reference is: the input layer applied to all
time steps at once, one ``tanh`` cell per step, the states stacked once;
greedy decoding on one-hot vectors of the decoder's own guesses. Shapes are
time first: x (T, N, C), states (T, N, D), scores (T, N, K).

Notebooks 02 and 03 run that loop as one operation
(``course.recurrent.RNN``, ``course.ops.tanh_recurrence``); the twins keep
torch's loop, because torch's own fused cell, ``torch.nn.RNN``, takes as long
on these sizes (one thread, T = 11, N = 100, D = 25, forward and backward:
666 us against 658 us for the loop, 2026-11-26).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

START_TOKEN = 10  # <S>, as in the notebooks' library cells


def _one_hot_guess(y_t: torch.Tensor) -> torch.Tensor:
    """One-hot (1, N, K) float32 vectors of the best classes of scores ``y_t`` (1, N, K); no graph."""
    return F.one_hot(y_t.detach().argmax(dim=-1), y_t.shape[-1]).to(torch.float32)


def _start(N: int, K: int) -> torch.Tensor:
    """The decoder's first input: one-hot <S>, shape (1, N, K)."""
    s = torch.zeros(1, N, K)
    s[:, :, START_TOKEN] = 1
    return s


class TwinRNN(nn.Module):
    """Simple-cell RNN: h_t = tanh(x_t W_xh + b + h_{t-1} W_hh); y_t = h_t W_hy + b_y."""

    def __init__(self, dim_input: int, dim_recurrent: int, dim_output: int):
        super().__init__()
        self.dim_recurrent = dim_recurrent
        self.input_layer = nn.Linear(dim_input, dim_recurrent)
        self.recurrent_layer = nn.Linear(dim_recurrent, dim_recurrent, bias=False)
        self.output_layer = nn.Linear(dim_recurrent, dim_output)

    def forward(self, x: torch.Tensor, h: torch.Tensor | None = None):
        """x (T, N, C), h (1, N, D) or None -> scores (T, N, K), states (T, N, D)."""
        N = x.shape[1]
        h_t = x.new_zeros(N, self.dim_recurrent) if h is None else h[0]
        x_part = self.input_layer(x)  # (T, N, D)
        states = []
        for x_t in x_part.unbind(0):  # unbind, not x_part[t]: one backward for all steps, not T full-size zeros
            h_t = torch.tanh(x_t + self.recurrent_layer(h_t))
            states.append(h_t)
        h_all = torch.stack(states)
        return self.output_layer(h_all), h_all

    def in_project_order(self):
        """(parameter, stored transposed?) in the order of the notebook's ``RNN.parameters``."""
        return [
            (self.input_layer.weight, True),
            (self.input_layer.bias, False),
            (self.recurrent_layer.weight, True),
            (self.output_layer.weight, True),
            (self.output_layer.bias, False),
        ]


class TwinSeq2Seq(nn.Module):
    """Encoder RNN, then a decoder RNN run T steps greedily from <S>, starting from the last encoder state."""

    def __init__(self, dim_input: int, dim_recurrent: int, dim_output: int):
        super().__init__()
        self.dim_output = dim_output
        self.encoder = TwinRNN(dim_input, dim_recurrent, dim_output)
        self.decoder = TwinRNN(dim_output, dim_recurrent, dim_output)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (T, N, C) -> the decoder's scores (T, N, K)."""
        T, N = x.shape[:2]
        _, enc_h = self.encoder(x)
        h = enc_h[-1:]  # (1, N, D)
        s = _start(N, self.dim_output)
        scores = []
        for _ in range(T):
            y_t, h = self.decoder(s, h)  # (1, N, K), (1, N, D)
            scores.append(y_t)
            s = _one_hot_guess(y_t)
        return torch.cat(scores, dim=0)

    def in_project_order(self):
        """As the notebook's ``Seq2Seq.parameters``: the encoder's, then the decoder's."""
        return self.encoder.in_project_order() + self.decoder.in_project_order()


class TwinAttentionSeq2Seq(nn.Module):
    """Seq2Seq whose decoder attends (dot product through W_alpha) to all encoder states at every step."""

    def __init__(self, dim_input: int, dim_recurrent: int, dim_output: int):
        super().__init__()
        self.dim_output = dim_output
        self.encoder = TwinRNN(dim_input, dim_recurrent, dim_output)
        self.decoder = TwinRNN(dim_output, dim_recurrent, dim_output)
        self.W_alpha = nn.Linear(dim_recurrent, dim_recurrent, bias=False)
        self.output_layer = nn.Linear(dim_output + dim_recurrent, dim_output)

    def forward(self, x: torch.Tensor):
        """x (T, N, C) -> scores (T, N, K) and attention weights (T, T, N), decoder step first."""
        T, N = x.shape[:2]
        _, enc_h = self.encoder(x)  # (T, N, D)
        enc_proj = self.W_alpha(enc_h)  # (T, N, D), once for all decoder steps
        h = enc_h[-1:]
        s = _start(N, self.dim_output)
        scores, weights = [], []
        for _ in range(T):
            y_t, h = self.decoder(s, h)
            e_t = (enc_proj * h).sum(dim=-1)  # (T, N)
            a_t = torch.softmax(e_t, dim=0)
            c_t = (a_t[:, :, None] * enc_h).sum(dim=0, keepdim=True)  # (1, N, D)
            y_hat = self.output_layer(torch.cat([y_t, c_t], dim=-1))  # (1, N, K)
            scores.append(y_hat)
            weights.append(a_t.detach())
            s = _one_hot_guess(y_hat)
        return torch.cat(scores, dim=0), torch.stack(weights)

    def in_project_order(self):
        """As the notebook's ``AttentionSeq2Seq.parameters``: encoder, decoder, W_alpha, output layer."""
        return (
            self.encoder.in_project_order()
            + self.decoder.in_project_order()
            + [(self.W_alpha.weight, True), (self.output_layer.weight, True), (self.output_layer.bias, False)]
        )
