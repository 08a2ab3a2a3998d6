"""PyTorch twin of 04's encoder-decoder Transformer (one-hot tokens, d = 29).

The same layers as the notebook's library cells: multi-head attention with
per-head projections Wq, Wk, Wv of shape (h, d, d // h) (d = 29 is not a
multiple of h = 4, so ``torch.nn.MultiheadAttention`` cannot stand in) and an
output projection without bias; residual connection and layer norm
(eps 1e-5, population variance); a ReLU feed-forward network; sinusoidal
positions whose fastest pair has period 4; masked scores set to -1e9.
Shapes are time first: source (T, N, d), decoder input (t, N, d).
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

BLOCKED = -1e9  # the score of a masked pair, as in the notebook


def _linear(n_in: int, n_out: int, bias: bool = True):
    """A dense layer; the pair list says how its weight is stored in the project."""
    layer = nn.Linear(n_in, n_out, bias=bias)
    return layer, [(layer.weight, True)] + ([(layer.bias, False)] if bias else [])


def padding_mask(lengths: torch.Tensor, t: int, T: int) -> torch.Tensor:
    """(t, N, T) bool: key j of sequence n is real (j < lengths[n]), for every one of the t queries."""
    real = torch.arange(T)[None, :] < lengths[:, None]  # (N, T)
    return real.expand(t, *real.shape)


def causal_mask(lengths: torch.Tensor, t: int) -> torch.Tensor:
    """(t, N, t) bool: key j is at or before query i and real."""
    earlier = torch.ones(t, t, dtype=torch.bool).tril()
    return earlier[:, None, :] & padding_mask(lengths, t, t)


class MultiheadAttention(nn.Module):
    """h heads of scaled dot-product attention, each in d_k = d // h dimensions, joined by Wo (h d_k -> d)."""

    def __init__(self, dim: int, n_head: int):
        super().__init__()
        d_k = dim // n_head
        self.Wq = nn.Parameter(torch.empty(n_head, dim, d_k))
        self.Wk = nn.Parameter(torch.empty(n_head, dim, d_k))
        self.Wv = nn.Parameter(torch.empty(n_head, dim, d_k))
        self.Wo, wo = _linear(n_head * d_k, dim, bias=False)
        self._order = [(self.Wq, False), (self.Wk, False), (self.Wv, False)] + wo

    def forward(self, Q, K, V, mask=None):
        """Q (t, N, d), K and V (T, N, d), mask (t, N, T) bool or None -> (t, N, d)."""
        d_k = self.Wq.shape[-1]
        q = torch.einsum("tNd,hdk->tNhk", Q, self.Wq)
        k = torch.einsum("TNd,hdk->TNhk", K, self.Wk)
        v = torch.einsum("TNd,hdk->TNhk", V, self.Wv)
        scores = torch.einsum("tNhk,TNhk->tNhT", q, k) / math.sqrt(d_k)
        if mask is not None:
            scores = scores.masked_fill(~mask[:, :, None, :], BLOCKED)
        weights = torch.softmax(scores, dim=-1)
        mixed = torch.einsum("tNhT,TNhk->tNhk", weights, v)
        return self.Wo(mixed.reshape(mixed.shape[0], mixed.shape[1], -1))

    def in_project_order(self):
        return list(self._order)


class AddNorm(nn.Module):
    """x_old + x_new, normalised over the last axis (gain starts at 1, bias at 0)."""

    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim, eps=1e-5)

    def forward(self, x_old, x_new):
        return self.norm(x_old + x_new)

    def in_project_order(self):
        return [(self.norm.weight, False), (self.norm.bias, False)]


class FeedForward(nn.Module):
    """dense (d -> h_dim), ReLU, dense (h_dim -> d), at every position."""

    def __init__(self, dim: int, h_dim: int):
        super().__init__()
        self.dense1, one = _linear(dim, h_dim)
        self.dense2, two = _linear(h_dim, dim)
        self._order = one + two

    def forward(self, x):
        return self.dense2(F.relu(self.dense1(x)))

    def in_project_order(self):
        return list(self._order)


class EncoderLayer(nn.Module):
    """Self-attention, add & norm, feed-forward, add & norm: (T, N, d) -> (T, N, d)."""

    def __init__(self, dim: int, h_dim: int, n_head: int):
        super().__init__()
        self.self_attn, self.add_norm1 = MultiheadAttention(dim, n_head), AddNorm(dim)
        self.ff, self.add_norm2 = FeedForward(dim, h_dim), AddNorm(dim)

    def forward(self, src, mask):
        x1 = self.add_norm1(src, self.self_attn(src, src, src, mask))
        return self.add_norm2(x1, self.ff(x1))

    def in_project_order(self):
        return [
            p for part in (self.self_attn, self.add_norm1, self.ff, self.add_norm2) for p in part.in_project_order()
        ]


class DecoderLayer(nn.Module):
    """Masked self-attention, encoder-decoder attention, feed-forward, each with add & norm: (t, N, d) -> (t, N, d)."""

    def __init__(self, dim: int, h_dim: int, n_head: int):
        super().__init__()
        self.self_attn, self.add_norm1 = MultiheadAttention(dim, n_head), AddNorm(dim)
        self.enc_dec_attn, self.add_norm2 = MultiheadAttention(dim, n_head), AddNorm(dim)
        self.ff, self.add_norm3 = FeedForward(dim, h_dim), AddNorm(dim)

    def forward(self, enc_out, tgt, self_mask, cross_mask):
        x1 = self.add_norm1(tgt, self.self_attn(tgt, tgt, tgt, self_mask))
        x2 = self.add_norm2(x1, self.enc_dec_attn(x1, enc_out, enc_out, cross_mask))
        return self.add_norm3(x2, self.ff(x2))

    def in_project_order(self):
        parts = (self.self_attn, self.add_norm1, self.enc_dec_attn, self.add_norm2, self.ff, self.add_norm3)
        return [p for part in parts for p in part.in_project_order()]


def positional_encoding(seq_len: int, dim: int) -> torch.Tensor:
    """(T, 1, d) float32: sines on even dimensions, cosines on odd ones, fastest period 4 positions."""
    position = torch.arange(seq_len, dtype=torch.float32)[:, None]
    even = torch.arange(0, dim, 2, dtype=torch.float32)
    rate = (math.pi / 2) * torch.tensor(10000.0) ** (-even / dim)
    angle = position * rate  # (T, ceil(d / 2))
    encoding = torch.empty(seq_len, dim)
    encoding[:, 0::2] = torch.sin(angle)
    encoding[:, 1::2] = torch.cos(angle[:, : dim // 2])
    return encoding[:, None, :]


class TwinTransformer(nn.Module):
    """n_enc encoder and n_dec decoder layers, then a dense layer d -> d giving one score per token."""

    def __init__(self, dim: int, h_dim: int, n_enc: int, n_dec: int, n_head: int):
        super().__init__()
        self.dim = dim
        self.enc_layers = nn.ModuleList(EncoderLayer(dim, h_dim, n_head) for _ in range(n_enc))
        self.dec_layers = nn.ModuleList(DecoderLayer(dim, h_dim, n_head) for _ in range(n_dec))
        self.out_dense, self._out = _linear(dim, dim)

    def forward(self, src, tgt, src_lengths, tgt_lengths):
        """src (T, N, d), tgt (t, N, d), lengths (N,) int64 -> scores (t, N, d)."""
        T, t = src.shape[0], tgt.shape[0]
        mask = padding_mask(src_lengths, T, T)
        x = src + positional_encoding(T, self.dim)
        for layer in self.enc_layers:
            x = layer(x, mask)
        self_mask, cross_mask = causal_mask(tgt_lengths, t), padding_mask(src_lengths, t, T)
        y = tgt + positional_encoding(t, self.dim)
        for layer in self.dec_layers:
            y = layer(x, y, self_mask, cross_mask)
        return self.out_dense(y)

    def in_project_order(self):
        """As the notebook's ``Transformer.parameters``: encoder layers, decoder layers, output layer."""
        layers = [*self.enc_layers, *self.dec_layers]
        return [p for layer in layers for p in layer.in_project_order()] + list(self._out)


def masked_loss(scores, target, lengths):
    """Mean cross-entropy over the real positions: scores (t, N, K), target (t, N), lengths (N,)."""
    real = torch.arange(target.shape[0])[:, None] < lengths[None, :]  # (t, N)
    return F.cross_entropy(scores[real], target[real])
