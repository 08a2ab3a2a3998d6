"""Figures of notebook 04: the Transformer, its layers, multi-head attention and the masks.

Every ``draw_*`` function returns a matplotlib Figure; ``FIGURES`` maps the
file each one is written to (see ``instructor/authoring/figures/drawn.py``). The letters
are the notebook's: T source positions, t decoder positions, N sequences,
d model width, h heads of d_k = d // h dimensions. Data flows upwards, from
the inputs at the bottom to the scores at the top.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, Rectangle

from instructor.authoring.figures import shapes

ENCODER = "#dbe8f6"  # light blue: the encoder stack
DECODER = "#fbe3cf"  # light orange: the decoder stack
ATTEND = "#e3f1dd"  # light green: attention
NORM = "#fff3bf"  # light yellow: add & norm
FEED = "#ece4f6"  # light violet: feed-forward
PLAIN = "#f2f2f2"  # grey: inputs, outputs, small operations
EDGE = shapes.EDGE
MUTED = "#6b6b6b"
ALLOWED = "#8fc98f"  # a query-key pair that may be read
BLOCKED = "#3a3a3a"  # a pair that gets zero weight
FONT = 0.8  # every font size is scaled by this: 1 unit = 0.4 inch


def _canvas(width, height):
    """A blank figure of ``width`` x ``height`` data units, 1 unit = 0.4 inch."""
    return shapes.canvas(width, height, 0.4)


def _box(ax, x, y, text, w=3.2, h=0.8, color=PLAIN, size=10, lw=1.2, zorder=2):
    shapes.box(ax, x, y, text, w, h, color, size=FONT * size, lw=lw, zorder=zorder)


def _frame(ax, x0, y0, x1, y1, color, label, label_side="left"):
    """The rounded frame of a stack of layers, with a label such as "× n_enc" beside it."""
    ax.add_patch(
        FancyBboxPatch(
            (x0, y0),
            x1 - x0,
            y1 - y0,
            boxstyle="round,pad=0.02,rounding_size=0.3",
            facecolor=color,
            edgecolor=EDGE,
            lw=1.0,
            alpha=0.55,
            zorder=0,
        )
    )
    if label_side == "left":
        ax.text(x0 - 0.25, (y0 + y1) / 2, label, ha="right", va="center", fontsize=FONT * 11)
    else:
        ax.text(x1 + 0.25, (y0 + y1) / 2, label, ha="left", va="center", fontsize=FONT * 11)


def _arrow(ax, start, end, color=EDGE, lw=1.2, dashed=False, zorder=1):
    shapes.arrow(ax, start, end, color=color, lw=lw, dashed=dashed, zorder=zorder)


def _path(ax, points, color=EDGE, lw=1.2, arrow=True, dashed=False):
    """A polyline through ``points``, with an arrow head at the last point."""
    xs, ys = zip(*points, strict=True)
    ax.plot(
        xs[:-1],
        ys[:-1],
        color=color,
        lw=lw,
        linestyle=shapes.DASHED if dashed else "-",
        zorder=1,
        solid_capstyle="butt",
    )
    if arrow:
        _arrow(ax, points[-2], points[-1], color=color, lw=lw, dashed=dashed)
    else:
        ax.plot(xs[-2:], ys[-2:], color=color, lw=lw, zorder=1)


def _plus(ax, x, y, r=0.28):
    """The circled plus where the positional encoding is added."""
    ax.add_patch(_circle(x, y, r))
    ax.text(x, y - 0.02, "+", ha="center", va="center", fontsize=FONT * 13, zorder=4)


def _circle(x, y, r):
    from matplotlib.patches import Circle

    return Circle((x, y), r, facecolor="white", edgecolor=EDGE, lw=1.2, zorder=3)


def _note(ax, x, y, text, size=9, color=MUTED, ha="center", **kwargs):
    shapes.note(ax, x, y, text, size=FONT * size, color=color, ha=ha, **kwargs)


# --- the whole model ------------------------------------------------------------


def draw_transformer() -> Figure:
    """The encoder-decoder Transformer of Part I, with the shapes of every arrow."""
    fig, ax = _canvas(20, 19.6)
    xe, xd = 5.6, 14.4  # centres of the encoder and decoder columns
    w = 4.4

    # inputs and positional encodings
    _box(ax, xe, 0.9, "source: one-hot cipher text + END\n(T, N, 29)", w=5.4, h=1.1, color=PLAIN)
    _box(ax, xd, 0.9, "decoder input: one-hot START\n+ plain text  (t, N, 29)", w=5.4, h=1.1, color=PLAIN)
    for x, side, shape in ((xe, -1, "PE (T, 1, d)"), (xd, 1, "PE (t, 1, d)")):
        _arrow(ax, (x, 1.45), (x, 2.42))
        _plus(ax, x, 2.7)
        _box(ax, x + side * 3.3, 2.7, f"positional\nencoding\n{shape}", w=2.6, h=1.3, color=PLAIN, size=9)
        _arrow(ax, (x + side * 2.0, 2.7), (x + side * 0.28, 2.7))
        _note(ax, x + 0.25, 3.35, "(T, N, d)" if side < 0 else "(t, N, d)", ha="left")
        _arrow(ax, (x, 2.98), (x, 4.1))

    # encoder stack
    _frame(ax, xe - w / 2 - 0.5, 4.1, xe + w / 2 + 0.5, 10.9, ENCODER, r"$\times\,n_\mathrm{enc}$")
    _note(ax, xe, 10.5, "encoder layer", size=10, color=EDGE)
    enc = [
        (5.0, "self-attention\n(padding mask)", ATTEND, 1.0),
        (6.5, "add & norm", NORM, 0.6),
        (7.9, "feed-forward", FEED, 0.8),
        (9.3, "add & norm", NORM, 0.6),
    ]
    previous = 4.1
    for y, label, colour, h in enc:
        _arrow(ax, (xe, previous), (xe, y - h / 2))
        _box(ax, xe, y, label, w=w, h=h, color=colour, size=10)
        previous = y + h / 2
    _arrow(ax, (xe, previous), (xe, 12.2))
    _box(ax, xe, 12.7, "E: the encoder's output\n(T, N, d)", w=4.4, h=1.0, color=ENCODER)

    # decoder stack
    top = 14.55
    _frame(ax, xd - w / 2 - 0.5, 4.1, xd + w / 2 + 0.5, top, DECODER, r"$n_\mathrm{dec}\,\times$", label_side="right")
    _note(ax, xd, top - 0.32, "decoder layer", size=10, color=EDGE)
    dec = [
        (5.0, "masked self-attention\n(causal mask)", ATTEND, 1.0),
        (6.5, "add & norm", NORM, 0.6),
        (8.3, "cross-attention\n(padding mask of the source)", ATTEND, 1.0),
        (9.8, "add & norm", NORM, 0.6),
        (11.9, "feed-forward", FEED, 0.8),
        (13.4, "add & norm", NORM, 0.6),
    ]
    previous = 4.1
    for y, label, colour, h in dec:
        _arrow(ax, (xd, previous), (xd, y - h / 2))
        _box(ax, xd, y, label, w=w, h=h, color=colour, size=10)
        previous = y + h / 2
    _arrow(ax, (xd, previous), (xd, 15.55))

    # E goes to the cross-attention of every decoder layer
    _path(ax, [(xe, 13.2), (xe, 13.9), (9.9, 13.9), (9.9, 8.3), (xd - w / 2, 8.3)])
    _note(ax, 9.75, 11.3, "keys and values\nof every decoder layer", ha="right")

    # output layer and scores
    _box(ax, xd, 16.0, "out_dense: d → 29", w=w, h=0.9, color=PLAIN)
    _arrow(ax, (xd, 16.45), (xd, 17.3))
    _box(ax, xd, 17.9, "scores: one per token\n(t, N, 29)", w=4.4, h=1.1, color=PLAIN)
    _note(ax, xd + 0.25, 14.95, "(t, N, d)", ha="left")
    _note(ax, xe + 0.25, 11.6, "(T, N, d)", ha="left")

    _note(
        ax, 5.6, 17.6, "one-hot tokens: the model width d = 29,\nso no embedding layer is needed", size=10, color=EDGE
    )
    return fig


# --- multi-head attention -------------------------------------------------------


def _stacked(ax, x, y, text, w, h, color, copies=3, step=0.18, size=10):
    """A box drawn with ``copies`` shadows behind it: one per head."""
    for k in range(copies - 1, 0, -1):
        ax.add_patch(
            FancyBboxPatch(
                (x - w / 2 + k * step, y - h / 2 + k * step),
                w,
                h,
                boxstyle="round,pad=0.02,rounding_size=0.12",
                facecolor=color,
                edgecolor=EDGE,
                lw=0.9,
                zorder=1,
            )
        )
    _box(ax, x, y, text, w=w, h=h, color=color, size=size)


def draw_multihead_attention() -> Figure:
    """Left: scaled dot-product attention of one head. Right: h heads side by side, joined by W_o."""
    fig, ax = _canvas(24, 15.5)

    # left panel: one head
    xl = 4.6
    _note(ax, xl, 15.0, "scaled dot-product attention (one head)", size=11, color=EDGE)
    inputs = [(2.6, "q (t, d_k)"), (4.6, "k (T, d_k)"), (6.6, "v (T, d_k)")]
    for x, label in inputs:
        _box(ax, x, 0.8, label, w=1.8, h=0.8, color=PLAIN, size=9)
    steps = [
        (2.5, r"$q\,k^\top$" + "  (t, T)"),
        (4.1, r"$\div\ \sqrt{d_k}$"),
        (5.7, "mask: blocked → −10⁹"),
        (7.3, "softmax over the keys\n" + r"$\alpha$ (t, T)"),
    ]
    xs = 3.6
    for i, (y, label) in enumerate(steps):
        _box(ax, xs, y, label, w=3.6, h=0.9 if i < 3 else 1.1, color=ATTEND if i == 3 else PLAIN, size=10)
    _path(ax, [(2.6, 1.2), (2.6, 2.05)])
    _path(ax, [(4.6, 1.2), (4.6, 2.05)])
    for (y0, _), (y1, _) in pairwise(steps):
        _arrow(ax, (xs, y0 + 0.45), (xs, y1 - (0.45 if y1 < 7 else 0.55)))
    _box(ax, 4.6, 9.3, r"$\alpha\, v$" + "  (t, d_k)", w=3.0, h=0.9, color=PLAIN)
    _arrow(ax, (xs, 7.85), (xs, 8.85))
    _path(ax, [(6.6, 1.2), (6.6, 9.3), (6.1, 9.3)])
    _arrow(ax, (4.6, 9.75), (4.6, 10.8))
    _note(ax, 4.6, 11.2, "head output (t, d_k)", color=EDGE)
    _note(
        ax,
        4.6,
        13.9,
        r"$\alpha = \mathrm{softmax}\!\left(\frac{q\,k^\top}{\sqrt{d_k}}\right)$,   "
        r"output $= \alpha\, v$",
        size=11,
        color=EDGE,
    )
    _note(ax, 4.6, 12.9, "for one sequence of the batch; its mask is a (t, T) slice", size=9)

    # right panel: h heads
    xr = 16.5
    _note(ax, xr, 15.0, "multi-head attention (h heads, here drawn as 3)", size=11, color=EDGE)
    ins = [(12.6, "Q (t, N, d)"), (16.5, "K (T, N, d)"), (20.4, "V (T, N, d)")]
    names = [r"$W_q^{(j)}$", r"$W_k^{(j)}$", r"$W_v^{(j)}$"]
    for (x, label), name in zip(ins, names, strict=True):
        _box(ax, x, 0.8, label, w=2.8, h=0.8, color=PLAIN, size=10)
        _arrow(ax, (x, 1.2), (x, 2.3))
        _stacked(ax, x, 2.8, f"{name}: d → d_k", w=3.0, h=0.9, color=PLAIN)
        _arrow(ax, (x, 3.25), (x, 4.85))
    _note(ax, 13.0, 4.05, "(t, N, h, d_k)", ha="left")
    _note(ax, 16.9, 4.05, "(T, N, h, d_k)", ha="left")
    _note(ax, 20.8, 4.05, "(T, N, h, d_k)", ha="left")
    _stacked(
        ax,
        xr,
        5.6,
        "scaled dot-product attention, every head on its own\n"
        "weights a_ij (t, N, h, T); mask (t, N, T), the same for every head",
        w=10.6,
        h=1.5,
        color=ATTEND,
    )
    _arrow(ax, (xr, 6.35), (xr, 7.8))
    _note(ax, xr + 0.3, 7.05, "(t, N, h, d_k)", ha="left")
    _box(ax, xr, 8.3, "join the heads: head 0's d_k numbers first\n(t, N, h·d_k)", w=6.4, h=1.0, color=PLAIN)
    _arrow(ax, (xr, 8.8), (xr, 9.9))
    _box(ax, xr, 10.35, r"$W_o$: h·d_k → d  (dense, no bias)", w=6.4, h=0.9, color=PLAIN)
    _arrow(ax, (xr, 10.8), (xr, 11.7))
    _note(ax, xr, 12.05, "output (t, N, d)", color=EDGE)
    _note(
        ax, xr, 12.9, r"$\mathrm{MHA}(Q, K, V) = [\mathrm{head}_1 \cdots \mathrm{head}_h]\, W_o$", size=11, color=EDGE
    )
    _note(
        ax,
        xr,
        13.9,
        r"$\mathrm{head}_j = \mathrm{Attention}(Q W_q^{(j)},\ K W_k^{(j)},\ V W_v^{(j)})$",
        size=11,
        color=EDGE,
    )
    ax.plot([10.4, 10.4], [0.3, 14.6], color="#bbbbbb", lw=1.0)
    return fig


# --- masks ----------------------------------------------------------------------


def _grid(ax, x0, y0, mask, cell=0.62, title="", key_label="key j", query_label="query i"):
    """A boolean (t, T) mask as a grid of squares, query i down the rows, key j along the columns."""
    t, T = mask.shape
    for i in range(t):
        for j in range(T):
            y = y0 + (t - 1 - i) * cell
            ax.add_patch(
                Rectangle(
                    (x0 + j * cell, y),
                    cell,
                    cell,
                    facecolor=ALLOWED if mask[i, j] else BLOCKED,
                    edgecolor="white",
                    lw=1.5,
                )
            )
    for j in range(T):
        ax.text(x0 + (j + 0.5) * cell, y0 + t * cell + 0.22, str(j), ha="center", va="center", fontsize=FONT * 8.5)
    for i in range(t):
        ax.text(x0 - 0.22, y0 + (t - 1 - i + 0.5) * cell, str(i), ha="center", va="center", fontsize=FONT * 8.5)
    ax.text(x0 + T * cell / 2, y0 + t * cell + 0.62, key_label + " →", ha="center", va="center", fontsize=FONT * 9.5)
    ax.text(
        x0 - 0.62, y0 + t * cell / 2, query_label + " →", ha="center", va="center", fontsize=FONT * 9.5, rotation=270
    )
    ax.text(x0 + T * cell / 2, y0 + t * cell + 1.35, title, ha="center", va="center", fontsize=FONT * 10)


def draw_masks() -> Figure:
    """The three masks for one sequence of 3 real positions (2 symbols and END), padded to t = T = 6."""
    length, t = 3, 6
    i, j = np.arange(t)[:, None], np.arange(t)[None, :]
    padding = np.broadcast_to(j < length, (t, t))
    earlier = j <= i
    cell = 0.62
    width = t * cell
    xs = [1.4, 8.0, 14.6]
    y0 = 1.5
    fig, ax = _canvas(19.2, 7.9)
    _grid(ax, xs[0], y0, padding, cell, "padding_mask: j < lengths[n] = 3\n(encoder, cross-attention)")
    _grid(ax, xs[1], y0, earlier, cell, "causal: j ≤ i\n(np.tril)")
    _grid(ax, xs[2], y0, earlier & padding, cell, "causal_mask: both\n(decoder self-attention)")
    for x, sign in (((xs[0] + width + xs[1]) / 2, "&"), ((xs[1] + width + xs[2]) / 2, "=")):
        ax.text(x + 0.1, y0 + width / 2, sign, ha="center", va="center", fontsize=FONT * 20)
    for k, (colour, label) in enumerate(
        ((ALLOWED, "True: query i may read key j"), (BLOCKED, "False: weight exactly 0"))
    ):
        x = 3.0 + k * 7.6
        ax.add_patch(Rectangle((x, 0.35), 0.45, 0.45, facecolor=colour, edgecolor="white"))
        ax.text(x + 0.7, 0.575, label, ha="left", va="center", fontsize=FONT * 9.5)
    return fig


# --- one encoder layer and one decoder layer --------------------------------------


def _sublayer(ax, x, y, label, colour, w, h, norm_y, norm_label="add & norm", inputs=None, mask=None):
    """A sub-layer box at (x, y) whose input also bypasses it (the residual) into the add & norm above.

    ``inputs`` is the y where the sub-layer's input line starts; the residual
    leaves that line on the right and joins the add & norm box from the right.
    """
    _box(ax, x, y, label, w=w, h=h, color=colour)
    _box(ax, x, norm_y, norm_label, w=w, h=0.7, color=NORM)
    _arrow(ax, (x, y + h / 2), (x, norm_y - 0.35))
    if inputs is not None:
        right = x + w / 2 + 0.9
        _path(ax, [(x, inputs), (right, inputs), (right, norm_y), (x + w / 2, norm_y)])
        _note(ax, right + 0.15, (inputs + norm_y) / 2, "residual", ha="left", rotation=90)
    if mask:
        _note(ax, x - w / 2 - 0.2, y, mask, ha="right", size=9)


def draw_encoder_layer() -> Figure:
    """One encoder layer: self-attention and feed-forward, each followed by add & norm (Part F)."""
    fig, ax = _canvas(15, 12.6)
    x, w = 6.6, 5.0
    _box(ax, x, 0.8, "src (T, N, d)", w=3.4, h=0.8, color=ENCODER)
    _arrow(ax, (x, 1.2), (x, 2.2))
    # three arrows Q, K, V into the attention
    for dx, name in ((-1.6, "Q"), (0.0, "K"), (1.6, "V")):
        _path(ax, [(x, 2.2), (x + dx, 2.2), (x + dx, 3.2)])
        _note(ax, x + dx + 0.3, 2.75, name, color=EDGE, size=10)
    _sublayer(ax, x, 3.8, "multi-head self-attention", ATTEND, w, 1.2, 5.6, inputs=1.7, mask="padding mask\n(T, N, T)")
    _note(ax, x + 0.25, 6.5, "X₁ (T, N, d)", ha="left", color=EDGE)
    _arrow(ax, (x, 5.95), (x, 7.4))
    _sublayer(ax, x, 8.0, "feed-forward\nReLU(x W₁ + b₁) W₂ + b₂", FEED, w, 1.2, 9.8, inputs=6.9)
    _arrow(ax, (x, 10.15), (x, 11.4))
    _box(ax, x, 11.8, "out (T, N, d)", w=3.4, h=0.8, color=ENCODER)
    return fig


def draw_decoder_layer() -> Figure:
    """One decoder layer: masked self-attention, cross-attention on E, feed-forward, each with add & norm (Part G)."""
    fig, ax = _canvas(17, 17.4)
    x, w = 8.6, 5.0
    _box(ax, x, 0.8, "tgt (t, N, d)", w=3.4, h=0.8, color=DECODER)
    _arrow(ax, (x, 1.2), (x, 2.2))
    for dx, name in ((-1.6, "Q"), (0.0, "K"), (1.6, "V")):
        _path(ax, [(x, 2.2), (x + dx, 2.2), (x + dx, 3.2)])
        _note(ax, x + dx + 0.3, 2.75, name, color=EDGE, size=10)
    _sublayer(
        ax, x, 3.8, "masked multi-head\nself-attention", ATTEND, w, 1.2, 5.6, inputs=1.7, mask="causal mask\n(t, N, t)"
    )
    _note(ax, x + 0.25, 6.4, "X₁ (t, N, d)", ha="left", color=EDGE)
    # cross-attention: K and V from E (left), Q from X1 (right): no line crosses another
    _path(ax, [(x, 5.95), (x, 7.2), (x + 1.6, 7.2), (x + 1.6, 8.4)])
    _note(ax, x + 1.9, 7.8, "Q", color=EDGE, size=10)
    _box(ax, 1.9, 7.0, "E (T, N, d)\nencoder output", w=3.0, h=1.0, color=ENCODER)
    _path(ax, [(1.9, 7.5), (1.9, 7.9), (x - 0.6, 7.9), (x - 0.6, 8.4)])
    _path(ax, [(x - 1.6, 7.9), (x - 1.6, 8.4)])
    _note(ax, x - 1.3, 8.15, "K", color=EDGE, size=10)
    _note(ax, x - 0.3, 8.15, "V", color=EDGE, size=10)
    _sublayer(
        ax,
        x,
        9.0,
        "multi-head\ncross-attention",
        ATTEND,
        w,
        1.2,
        10.8,
        inputs=6.8,
        mask="padding mask\nof the source\n(t, N, T)",
    )
    _note(ax, x + 0.25, 11.6, "X₂ (t, N, d)", ha="left", color=EDGE)
    _arrow(ax, (x, 11.15), (x, 12.6))
    _sublayer(ax, x, 13.2, "feed-forward", FEED, w, 1.0, 14.9, inputs=12.1)
    _arrow(ax, (x, 15.25), (x, 16.3))
    _box(ax, x, 16.7, "out (t, N, d)", w=3.4, h=0.8, color=DECODER)
    return fig


FIGURES = {
    "04_transformer/transformer.svg": draw_transformer,
    "04_transformer/multihead_attention.svg": draw_multihead_attention,
    "04_transformer/masks.svg": draw_masks,
    "04_transformer/encoder_layer.svg": draw_encoder_layer,
    "04_transformer/decoder_layer.svg": draw_decoder_layer,
}
