"""The figure of notebook 01: a simple-cell RNN unrolled over time.

One column per step: the input x_t comes in from below, the cell mixes it with
the previous state, h_t goes on to the right (to the next step) and up (to the
scores y_t). The same three weights serve every column.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from instructor.authoring.figures import shapes

INPUT = "#dbe9f6"
STATE = "#fde2c4"
OUTPUT = "#d9f0d3"


def _box(ax, x, y, w, h, text, colour, size=11):
    shapes.box(ax, x, y, text, w, h, colour, size=size, rounding=0.08)


def _arrow(ax, start, end, label=None, offset=(0.0, 0.0), dashed=False):
    """An arrow with its weight's name beside its middle."""
    shapes.arrow(ax, start, end, dashed=dashed)
    if label:
        mid = ((start[0] + end[0]) / 2 + offset[0], (start[1] + end[1]) / 2 + offset[1])
        ax.text(*mid, label, ha="center", va="center", fontsize=10, color="#444444")


def draw_rnn_unrolled() -> Figure:
    """The RNN of Part B over T steps: inputs below, states in the middle, scores above."""
    fig = Figure(figsize=(9.0, 3.9))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-0.3, 10.9)
    ax.set_ylim(-0.45, 4.6)
    ax.axis("off")

    columns = [(2.6, "1"), (5.0, "2"), (8.6, "T")]
    y_in, y_cell, y_out = 0.35, 2.0, 3.65
    box_w, box_h = 1.35, 0.62

    # the initial state
    _box(ax, 0.55, y_cell, 0.9, box_h, "$h_0$", STATE)
    ax.text(0.55, y_cell - 0.55, "zeros, or given", ha="center", va="center", fontsize=8.5, color="#444444")
    previous = 0.55 + 0.45

    for i, (x, t) in enumerate(columns):
        _box(ax, x, y_in, box_w, box_h, f"$x_{{{t}}}$", INPUT)
        _box(ax, x, y_cell, box_w, box_h + 0.1, "tanh", STATE)
        _box(ax, x, y_out, box_w, box_h, f"$y_{{{t}}}$", OUTPUT)
        _arrow(ax, (x, y_in + box_h / 2), (x, y_cell - (box_h + 0.1) / 2), "$W_{xh}$, $b$", offset=(0.55, 0))
        _arrow(ax, (x, y_cell + (box_h + 0.1) / 2), (x, y_out - box_h / 2), "$W_{hy}$, $b_y$", offset=(0.6, 0))
        if i == 2:  # the steps in between are not drawn
            ax.text(6.8, y_cell, "⋯", ha="center", va="center", fontsize=20)
            _arrow(ax, (5.0 + box_w / 2, y_cell), (6.45, y_cell), "$W_{hh}$", offset=(0, 0.22))
            ax.text((5.0 + box_w / 2 + 6.45) / 2, y_cell - 0.22, "$h_2$", ha="center", va="center", fontsize=9)
            _arrow(ax, (7.15, y_cell), (x - box_w / 2, y_cell), "$W_{hh}$", offset=(0, 0.22))
            ax.text((7.15 + x - box_w / 2) / 2, y_cell - 0.22, "$h_{T-1}$", ha="center", va="center", fontsize=9)
        else:
            _arrow(ax, (previous, y_cell), (x - box_w / 2, y_cell), "$W_{hh}$", offset=(0, 0.22))
            state = "$h_0$" if i == 0 else f"$h_{{{columns[i - 1][1]}}}$"
            ax.text((previous + x - box_w / 2) / 2, y_cell - 0.22, state, ha="center", va="center", fontsize=9)
        previous = x + box_w / 2

    # shapes, once, at the right edge
    for y, name, shape in ((y_in, "$x_t$", "(N, C)"), (y_cell, "$h_t$", "(N, D)"), (y_out, "$y_t$", "(N, K)")):
        ax.text(9.5, y, name, ha="left", va="center", fontsize=10)
        ax.text(9.85, y, shape, ha="left", va="center", fontsize=10, family="monospace")

    ax.text(
        5.0,
        4.42,
        r"$h_t = \tanh(x_t W_{xh} + h_{t-1} W_{hh} + b)$,   $y_t = h_t W_{hy} + b_y$",
        ha="center",
        va="center",
        fontsize=11,
    )
    ax.text(
        5.0,
        -0.3,
        "the same weights at every step; all T steps: x (T, N, C), h (T, N, D), y (T, N, K)",
        ha="center",
        va="center",
        fontsize=9,
        color="#444444",
    )
    return fig


FIGURES = {"01_rnn/rnn_unrolled.svg": draw_rnn_unrolled}
