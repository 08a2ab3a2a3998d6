"""A second PyTorch twin of 04's Transformer, written apart from the first, to check the bench's yardstick.

:mod:`benchmarks.twins.transformer` follows the notebook's code (time
first, ``einsum`` with named axes, ``masked_fill``, ``nn.LayerNorm``). This
one takes another road to the same numbers, the way a PyTorch user would
write it: batch first, ``torch.matmul`` projections, the fused
``F.scaled_dot_product_attention`` with a boolean mask, ``F.layer_norm``,
and a cross-entropy that ignores padded positions. The same parameters (in the
order of the notebook's ``Transformer.parameters``), hence the same losses;
if the project's speed relative to the two twins differs by more than 10 %,
one of them is not a fair yardstick.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

IGNORED = -100  # F.cross_entropy's ignore_index: a padded target position


class Attention(nn.Module):
    """h heads of d_k = d // h; inputs and output batch first, (N, t, d)."""

    def __init__(self, dim: int, n_head: int):
        super().__init__()
        d_k = dim // n_head
        self.Wq, self.Wk, self.Wv = (nn.Parameter(torch.empty(n_head, dim, d_k)) for _ in range(3))
        self.Wo = nn.Linear(n_head * d_k, dim, bias=False)

    def forward(self, query, memory, allowed):
        """query (N, t, d), memory (N, T, d), allowed (N, 1, t, T) bool -> (N, t, d)."""
        q = torch.matmul(query[:, None], self.Wq)  # (N, h, t, d_k)
        k = torch.matmul(memory[:, None], self.Wk)
        v = torch.matmul(memory[:, None], self.Wv)
        heads = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)  # scale 1 / sqrt(d_k)
        N, h, t, d_k = heads.shape
        return self.Wo(heads.transpose(1, 2).reshape(N, t, h * d_k))

    def in_project_order(self):
        return [(self.Wq, False), (self.Wk, False), (self.Wv, False), (self.Wo.weight, True)]


class Norm(nn.Module):
    """Layer norm of a residual sum (eps 1e-5), gain and shift as plain parameters."""

    def __init__(self, dim: int):
        super().__init__()
        self.gain, self.shift = nn.Parameter(torch.ones(dim)), nn.Parameter(torch.zeros(dim))

    def forward(self, x_old, x_new):
        return F.layer_norm(x_old + x_new, self.gain.shape, self.gain, self.shift, eps=1e-5)

    def in_project_order(self):
        return [(self.gain, False), (self.shift, False)]


class Block(nn.Module):
    """An encoder layer (two sub-layers) or, with ``cross``, a decoder layer (three)."""

    def __init__(self, dim: int, h_dim: int, n_head: int, cross: bool):
        super().__init__()
        self.attend, self.norm_attend = Attention(dim, n_head), Norm(dim)
        self.has_cross = cross
        if cross:
            self.cross_attend, self.norm_cross = Attention(dim, n_head), Norm(dim)
        self.up, self.down, self.norm_ff = nn.Linear(dim, h_dim), nn.Linear(h_dim, dim), Norm(dim)

    def forward(self, x, own_mask, memory=None, cross_mask=None):
        x = self.norm_attend(x, self.attend(x, x, own_mask))
        if self.has_cross:
            x = self.norm_cross(x, self.cross_attend(x, memory, cross_mask))
        return self.norm_ff(x, self.down(torch.relu(self.up(x))))

    def in_project_order(self):
        parts = [self.attend.in_project_order(), self.norm_attend.in_project_order()]
        if self.has_cross:
            parts += [self.cross_attend.in_project_order(), self.norm_cross.in_project_order()]
        linear = [(self.up.weight, True), (self.up.bias, False), (self.down.weight, True), (self.down.bias, False)]
        parts += [linear, self.norm_ff.in_project_order()]
        return [p for part in parts for p in part]


def _positions(length: int, dim: int) -> torch.Tensor:
    """(length, d): sin on even, cos on odd dimensions; angle p * (pi / 2) * 10000^(-2i / d)."""
    rate = (math.pi / 2) * torch.pow(10000.0, -torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    angle = torch.arange(length, dtype=torch.float32)[:, None] * rate
    return torch.stack([angle.sin(), angle.cos()], dim=-1).reshape(length, -1)[:, :dim]


class SdpaTransformer(nn.Module):
    """The notebook's Transformer, batch first inside; ``forward`` takes and gives time first, as the bench does."""

    def __init__(self, dim: int, h_dim: int, n_enc: int, n_dec: int, n_head: int):
        super().__init__()
        self.encoder = nn.ModuleList(Block(dim, h_dim, n_head, cross=False) for _ in range(n_enc))
        self.decoder = nn.ModuleList(Block(dim, h_dim, n_head, cross=True) for _ in range(n_dec))
        self.out = nn.Linear(dim, dim)

    def forward(self, src, tgt, src_lengths, tgt_lengths):
        """src (T, N, d), tgt (t, N, d), lengths (N,) -> scores (t, N, d)."""
        src, tgt = src.transpose(0, 1), tgt.transpose(0, 1)  # (N, T, d), (N, t, d)
        T, t, d = src.shape[1], tgt.shape[1], src.shape[2]
        real_src = torch.arange(T) < src_lengths[:, None]  # (N, T)
        real_tgt = torch.arange(t) < tgt_lengths[:, None]
        src_keys = real_src[:, None, None, :]  # (N, 1, 1, T): every query reads the real source keys
        causal = torch.ones(t, t, dtype=torch.bool).tril() & real_tgt[:, None, None, :]  # (N, 1, t, t)
        x = src + _positions(T, d)
        for block in self.encoder:
            x = block(x, src_keys.expand(-1, -1, T, -1))
        y = tgt + _positions(t, d)
        for block in self.decoder:
            y = block(y, causal, x, src_keys.expand(-1, -1, t, -1))
        return self.out(y).transpose(0, 1)

    def in_project_order(self):
        blocks = [*self.encoder, *self.decoder]
        return [p for b in blocks for p in b.in_project_order()] + [(self.out.weight, True), (self.out.bias, False)]


def masked_loss(scores, target, lengths):
    """Mean cross-entropy over the real positions: scores (t, N, K), target (t, N), lengths (N,)."""
    padded = torch.arange(target.shape[0])[:, None] >= lengths[None, :]
    return F.cross_entropy(scores.reshape(-1, scores.shape[-1]), target.masked_fill(padded, IGNORED).reshape(-1))
