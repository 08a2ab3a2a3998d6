"""Figures of notebooks 02 (Seq2Seq, beam search) and 03 (attention).

Each ``draw_*`` function returns a matplotlib Figure; ``FIGURES`` maps the
file each one is written to (see ``instructor/authoring/figures/drawn.py``).
"""

from __future__ import annotations

from matplotlib.patches import FancyBboxPatch

from instructor.authoring.figures import shapes

ENCODER = "#dbe8f6"  # light blue: encoder RNN cells
DECODER = "#fbe3cf"  # light orange: decoder RNN cells
ATTEND = "#e3f1dd"  # light green: attention
PLAIN = "#f2f2f2"  # grey: inputs, outputs, small operations
EDGE = shapes.EDGE
MUTED = "#8a8a8a"


def _canvas(width, height):
    """A blank figure of ``width`` x ``height`` data units, 1 unit = 0.5 inch."""
    return shapes.canvas(width, height, 0.5)


def _box(ax, x, y, text, w=1.6, h=0.8, color=PLAIN, size=10, edge=EDGE):
    shapes.box(ax, x, y, text, w, h, color, size=size, edge=edge, pad=0.05)


def _arrow(ax, start, end, color=EDGE, lw=1.2, rad=0.0, dashed=False):
    shapes.arrow(ax, start, end, color=color, lw=lw, rad=rad, dashed=dashed)


def _note(ax, x, y, text, size=9, color=EDGE, ha="center", **kwargs):
    shapes.note(ax, x, y, text, size=size, color=color, ha=ha, **kwargs)


def draw_encoder_decoder():
    """Encoder RNN over x_1..x_T; its last state starts the decoder, which feeds back its own guesses."""
    fig, ax = _canvas(23, 9.4)
    enc_x = [1.5, 4.0, 7.5]
    dec_x = [11.5, 14.5, 19.5]
    y_cell, y_in, y_out = 4.4, 1.6, 7.2

    # encoder
    ax.add_patch(
        FancyBboxPatch((0.4, 3.45), 8.3, 1.9, boxstyle="round,pad=0.1", facecolor="none", edgecolor=MUTED, ls=":")
    )
    _note(ax, 4.55, 5.75, "encoder RNN: reads all of $x$ first", size=9.5, color="#1f4e79")
    for i, (x, label) in enumerate(zip(enc_x, ["$x_1$", "$x_2$", r"$x_T = \langle E\rangle$"], strict=True)):
        _box(ax, x, y_cell, f"$h^e_{{{['1', '2', 'T'][i]}}}$", color=ENCODER)
        _box(ax, x, y_in, label, w=1.9 if i == 2 else 1.3, h=0.7)
        _arrow(ax, (x, y_in + 0.35), (x, y_cell - 0.4))
    _arrow(ax, (enc_x[0] + 0.8, y_cell), (enc_x[1] - 0.8, y_cell))
    _arrow(ax, (enc_x[1] + 0.8, y_cell), (enc_x[1] + 1.55, y_cell))
    _note(ax, 5.7, y_cell, r"$\cdots$", size=12)
    _arrow(ax, (6.0, y_cell), (enc_x[2] - 0.8, y_cell))
    _note(ax, 4.55, 0.45, "source $x$: one-hot, shape $(T, N, C)$", size=9)

    # hand-over
    _arrow(ax, (enc_x[2] + 0.8, y_cell), (dec_x[0] - 0.8, y_cell), lw=2.2, color="#1f4e79")
    _note(ax, 9.5, y_cell + 0.45, r"$h^d_0 = h^e_T$", size=10, color="#1f4e79")
    _note(ax, 9.5, y_cell - 0.45, "$(1, N, D)$", size=9, color="#1f4e79")

    # decoder
    ax.add_patch(
        FancyBboxPatch((10.4, 3.45), 10.2, 1.9, boxstyle="round,pad=0.1", facecolor="none", edgecolor=MUTED, ls=":")
    )
    _note(ax, 17.0, 5.75, "decoder RNN", size=9.5, color="#9c4a12")
    inputs = [r"$\langle S\rangle$", "$s_2$", "$s_T$"]
    outputs = ["$y_1$", "$y_2$", "$y_T$"]
    for i, x in enumerate(dec_x):
        _box(ax, x, y_cell, f"$h^d_{{{['1', '2', 'T'][i]}}}$", color=DECODER)
        _box(ax, x, y_in, inputs[i], w=1.3, h=0.7)
        _box(ax, x, y_out + 0.6, outputs[i], w=1.3, h=0.7)
        _arrow(ax, (x, y_in + 0.35), (x, y_cell - 0.4))
        _arrow(ax, (x, y_cell + 0.4), (x, y_out + 0.25))
    _arrow(ax, (dec_x[0] + 0.8, y_cell), (dec_x[1] - 0.8, y_cell))
    _arrow(ax, (dec_x[1] + 0.8, y_cell), (dec_x[1] + 1.7, y_cell))
    _note(ax, 17.0, y_cell, r"$\cdots$", size=12)
    _arrow(ax, (17.6, y_cell), (dec_x[2] - 0.8, y_cell))

    # feedback of the greedy guess: y_1 -> one-hot(arg max) -> s_2, drawn between the two columns
    xa, xb = dec_x[0], dec_x[1]
    xm = (xa + xb) / 2
    ax.plot([xa + 0.65, xm], [y_out + 0.6, y_out + 0.6], color="#9c4a12", lw=1.3)
    ax.plot([xm, xm], [y_out + 0.6, 2.55], color="#9c4a12", lw=1.3)
    _box(ax, xm, 6.05, "one-hot\n(arg max)", w=1.7, h=0.95, size=8, color="#fff6ee", edge="#9c4a12")
    _arrow(ax, (xm, 2.55), (xb - 0.66, y_in + 0.2), color="#9c4a12", lw=1.3)
    _note(ax, 21.9, y_out + 0.6, "scores\n$(T, N, K)$", size=9)
    _note(ax, 21.9, y_in, "inputs\n$(1, N, K)$", size=9)
    _note(ax, 15.5, 0.45, r"$s_{t+1} = \mathrm{one\text{-}hot}(\arg\max_k\, y_{t,k})$: greedy decoding", size=9)
    return fig


#: The beam of :func:`draw_beam_search`, step by step: (token, height, log p of the token, running sum, kept,
#: index of the parent in the step before; None at step 1, whose parent is the start). Each node's children are
#: some of the tokens that can follow it, so their probabilities add up to at most 1; at each step the two best
#: running sums are kept (tests/authoring/test_figures.py checks both).
BEAM: tuple[tuple[tuple[str, float, float, float, bool, int | None], ...], ...] = (
    (("A", 8.0, -0.7, -0.7, True, None), ("B", 5.0, -0.9, -0.9, True, None), ("C", 2.0, -2.5, -2.5, False, None)),
    (
        ("A", 8.8, -1.4, -2.1, False, 0),
        ("B", 7.2, -1.5, -2.2, False, 0),
        ("C", 5.6, -0.5, -1.4, True, 1),
        ("A", 4.0, -1.0, -1.9, True, 1),
    ),
    (
        ("<E>", 6.6, -0.1, -1.5, True, 2),
        ("A", 5.4, -2.4, -3.8, False, 2),
        ("<E>", 4.2, -0.3, -2.2, True, 3),
        ("C", 3.0, -1.9, -3.8, False, 3),
    ),
)


def draw_beam_search():
    """A beam of width 2 over three steps: kept and pruned partial outputs with their summed log-probabilities."""
    fig, ax = _canvas(22, 11.2)
    kept, pruned = "#2e7d32", "#b0b0b0"

    def node(x, y, token, total, keep):
        color = "#e8f5e9" if keep else "#f5f5f5"
        edge = kept if keep else pruned
        _box(ax, x, y, token, w=1.0, h=0.75, color=color, edge=edge, size=11)
        ax.text(x + 0.65, y, f"{total:.1f}", ha="left", va="center", fontsize=8.5, color=edge)

    def link(a, b, logp, keep):
        color = kept if keep else pruned
        _arrow(ax, (a[0] + 1.45, a[1]), (b[0] - 0.55, b[1]), color=color, lw=1.6 if keep else 1.0, dashed=not keep)
        mx, my = (a[0] + 1.45 + b[0] - 0.55) / 2, (a[1] + b[1]) / 2
        ax.text(mx, my + 0.28, f"{logp:.1f}", ha="center", va="bottom", fontsize=7.5, color=color)

    start = (1.2, 5.0)
    _box(ax, *start, r"$\langle S\rangle$", w=1.2, h=0.75, size=10)
    ax.text(start[0] + 0.75, start[1], "0", ha="left", va="center", fontsize=8.5)
    heights: list[float] = [start[1]]  # the step before's nodes (at step 1: the start)
    for step, x in enumerate((6.0, 11.0, 16.0)):
        before = start[0] - 0.35 if step == 0 else x - 5.0
        for token, y, logp, total, keep, parent in BEAM[step]:
            link((before, heights[parent or 0]), (x, y), logp if step else total, keep)
            node(x, y, token.replace("<E>", r"$\langle E\rangle$"), total, keep)
        heights = [y for _, y, *_ in BEAM[step]]
    _box(
        ax, 19.9, 6.6, f"best:  B C <E>\nlog p = {BEAM[2][0][3]:.1f}", w=2.9, h=1.2, color="#e8f5e9", edge=kept, size=9
    )
    _arrow(ax, (17.45, 6.6), (18.4, 6.6), color=kept)
    for x, step in [(6.0, 1), (11.0, 2), (16.0, 3)]:
        _note(ax, x, 0.6, f"step {step}: keep the 2 best", size=9)
    _note(ax, 1.2, 0.6, "width 2", size=9, weight="bold")
    _note(ax, 11.0, 10.8, "green: kept, grey: pruned; numbers: log p of the token, and the running sum", size=9)
    _note(ax, 11.0, 10.1, "greedy takes A (-0.7) and is already at -2.1 after two steps", size=9, color="#9c4a12")
    return fig


def draw_attention_step():
    """One decoder step of attention: scores against every encoder state, softmax, weighted sum, concatenation."""
    fig, ax = _canvas(22, 11)
    T_x = [2.0, 4.2, 6.4, 9.2]
    labels = ["1", "2", "3", "T"]
    y_h, y_e, y_a = 1.4, 4.0, 6.3
    for x, j in zip(T_x, labels, strict=True):
        _box(ax, x, y_h, f"$h^e_{{{j}}}$", w=1.4, color=ENCODER)
        _arrow(ax, (x, y_h + 0.4), (x, y_e - 0.35))
        _box(ax, x, y_e, f"$e_{{t,{j}}}$", w=1.4, h=0.7, color=ATTEND)
        _arrow(ax, (x, y_e + 0.35), (x, y_a - 0.35))
        _box(ax, x, y_a, rf"$\alpha_{{t,{j}}}$", w=1.4, h=0.7, color=ATTEND)
    _note(ax, 7.8, y_h, r"$\cdots$", size=13)
    _note(ax, 7.8, y_e, r"$\cdots$", size=13)
    _note(ax, 7.8, y_a, r"$\cdots$", size=13)
    _note(ax, 5.6, 0.3, "encoder states $H^e$: $(T, N, D)$", size=9)

    # the decoder state, compared with every encoder state
    _box(ax, 13.6, y_h, "$h^d_t$", w=1.4, color=DECODER)
    _note(ax, 13.6, 0.3, "decoder state $(1, N, D)$", size=9)
    ax.plot([13.6, 13.6], [y_h + 0.4, 2.75], color="#9c4a12", lw=1.2)
    ax.plot([T_x[0], 13.6], [2.75, 2.75], color="#9c4a12", lw=1.2)
    for x in T_x:
        _arrow(ax, (x + 0.35, 2.75), (x + 0.35, y_e - 0.35), color="#9c4a12")
    _note(ax, 10.2, y_e, r"scores $e_{t,j} = (h^e_j W_\alpha)\cdot h^d_t$: $(T, N)$", size=9.5, ha="left")

    # softmax across the encoder steps
    ax.add_patch(
        FancyBboxPatch(
            (1.1, y_e + 0.65), 9.0, 0.9, boxstyle="round,pad=0.05", facecolor="#ffffff", edgecolor=MUTED, ls="--"
        )
    )
    _note(ax, 5.6, y_e + 1.1, "softmax over $j = 1, \\ldots, T$ (axis 0)", size=9)
    _note(ax, 10.2, y_a, r"weights $\alpha_t$: $(T, N)$, sum to 1", size=9.5, ha="left")

    # weighted sum
    _box(ax, 5.6, 8.6, r"$c_t = \sum_j \alpha_{t,j}\, h^e_j$", w=3.8, h=0.9, color=ATTEND, size=10.5)
    for x in T_x:
        _arrow(ax, (x, y_a + 0.35), (5.6 + (x - 5.6) * 0.35, 8.15))
    _note(ax, 5.6, 9.45, "context $(1, N, D)$", size=9)

    # concatenation with y_t into the output layer
    _box(ax, 17.0, 8.6, r"$[\,y_t,\ c_t\,]$", w=2.2, h=0.9, size=10.5)
    _arrow(ax, (7.5, 8.6), (15.9, 8.6))
    _box(ax, 17.0, 5.6, "$y_t$", w=1.3, color=DECODER)
    _arrow(ax, (14.3, y_h + 0.2), (16.3, 5.4), rad=0.15, color="#9c4a12")
    _arrow(ax, (17.0, 6.0), (17.0, 8.15))
    _note(ax, 17.0, 4.7, "decoder scores $(1, N, K)$", size=9)
    _box(ax, 20.6, 8.6, r"$\hat y_t$", w=1.2, color=PLAIN)
    _arrow(ax, (18.1, 8.6), (20.0, 8.6))
    _note(ax, 19.05, 9.15, "$W_o, b_o$", size=9)
    _note(ax, 20.6, 7.7, "$(1, N, K)$", size=9)
    return fig


def draw_attention_seq2seq():
    """The whole attention Seq2Seq: the Seq2Seq of notebook 02 plus a context at every decoder step."""
    fig, ax = _canvas(23, 10)
    enc_x = [1.5, 4.0, 7.5]
    dec_x = [12.0, 15.5, 20.5]
    y_cell, y_in = 3.2, 0.8
    y_ctx, y_out = 6.0, 8.6
    for i, x in enumerate(enc_x):
        j = ["1", "2", "T"][i]
        _box(ax, x, y_cell, f"$h^e_{{{j}}}$", color=ENCODER)
        _box(ax, x, y_in, f"$x_{{{j}}}$", w=1.2, h=0.65)
        _arrow(ax, (x, y_in + 0.33), (x, y_cell - 0.4))
    _arrow(ax, (enc_x[0] + 0.8, y_cell), (enc_x[1] - 0.8, y_cell))
    _note(ax, 5.75, y_cell, r"$\cdots$", size=12)
    _arrow(ax, (enc_x[2] + 0.8, y_cell), (dec_x[0] - 0.8, y_cell), lw=2.0, color="#1f4e79")
    _note(ax, 9.8, y_cell - 0.45, r"$h^d_0 = h^e_T$", size=9.5, color="#1f4e79")

    # the encoder states as one memory every step reads from
    ax.add_patch(
        FancyBboxPatch((0.5, 4.4), 8.0, 0.9, boxstyle="round,pad=0.05", facecolor=ENCODER, edgecolor="#1f4e79", lw=1.2)
    )
    _note(ax, 4.5, 4.85, r"memory: $H^e$ and $H^e W_\alpha$ (computed once)", size=9.5)
    for x in enc_x:
        ax.plot([x, x], [y_cell + 0.4, 4.4], color="#1f4e79", lw=1.0, ls=":")

    for i, x in enumerate(dec_x):
        t = ["1", "2", "T"][i]
        _box(ax, x, y_cell, f"$h^d_{{{t}}}$", color=DECODER)
        _box(ax, x, y_in, [r"$\langle S\rangle$", "$s_2$", "$s_T$"][i], w=1.2, h=0.65)
        _arrow(ax, (x, y_in + 0.33), (x, y_cell - 0.4))
        _box(ax, x, y_ctx, "attend", w=1.5, h=0.75, color=ATTEND, size=9.5)
        _arrow(ax, (x, y_cell + 0.4), (x, y_ctx - 0.38))
        _box(ax, x, y_out, rf"$\hat y_{{{t}}}$", w=1.2, h=0.75)
        _arrow(ax, (x, y_ctx + 0.38), (x, y_out - 0.38))
        _note(ax, x + 1.05, (y_ctx + y_out) / 2, rf"$[y_{{{t}}}, c_{{{t}}}]$", size=8.5)
    # one bus from the memory to every attend box
    ax.plot([8.5, dec_x[2] - 0.5], [4.85, 4.85], color="#1f4e79", lw=1.3)
    for x in dec_x:
        _arrow(ax, (x - 0.5, 4.85), (x - 0.5, y_ctx - 0.38), color="#1f4e79", lw=1.3)
    _arrow(ax, (dec_x[0] + 0.8, y_cell), (dec_x[1] - 0.8, y_cell))
    _note(ax, 18.0, y_cell, r"$\cdots$", size=12)
    _arrow(ax, (18.5, y_cell), (dec_x[2] - 0.8, y_cell))
    # greedy feedback of the final scores, drawn between the first two columns
    xm = (dec_x[0] + dec_x[1]) / 2 + 0.35
    ax.plot([dec_x[0] + 0.6, xm], [y_out, y_out], color="#9c4a12", lw=1.2, ls="--")
    ax.plot([xm, xm], [y_out, 1.9], color="#9c4a12", lw=1.2, ls="--")
    _arrow(ax, (xm, 1.9), (dec_x[1] - 0.6, y_in + 0.1), color="#9c4a12", dashed=True)
    _note(ax, 14.4, 9.65, r"$s_{t+1} = \mathrm{one\text{-}hot}(\arg\max_k \hat y_{t,k})$", size=9, color="#9c4a12")
    _note(ax, 4.5, 9.0, "every decoder step reads\nthe whole source through $c_t$", size=9.5, color="#1f4e79")
    return fig


FIGURES = {
    "02_seq2seq/encoder_decoder.svg": draw_encoder_decoder,
    "02_seq2seq/beam_search.svg": draw_beam_search,
    "03_attention/attention_step.svg": draw_attention_step,
    "03_attention/attention_seq2seq.svg": draw_attention_seq2seq,
}
