"""The few shapes every diagram is drawn with: a canvas, a labelled box, an arrow, a note.

Coordinates are data units on an equal-aspect canvas; a module chooses how
many inches a unit is and how its text scales, and passes colours of its own.
"""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

EDGE = "#333333"
DASHED = (0, (4, 3))


def canvas(width: float, height: float, inches_per_unit: float):
    """(figure, axes): ``width`` x ``height`` units, no frame, no ticks (no pyplot: nothing global)."""
    fig = Figure(figsize=(width * inches_per_unit, height * inches_per_unit))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig, ax


def box(ax, x, y, text, w, h, color, *, size=10.0, edge=EDGE, lw=1.2, pad=0.02, rounding=0.12, zorder=2):
    """A rounded box of ``w`` x ``h`` units centred at (x, y), its text in the middle."""
    ax.add_patch(
        FancyBboxPatch(
            (x - w / 2, y - h / 2),
            w,
            h,
            boxstyle=f"round,pad={pad},rounding_size={rounding}",
            facecolor=color,
            edgecolor=edge,
            lw=lw,
            zorder=zorder,
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=size, zorder=zorder + 1)


def arrow(ax, start, end, *, color=EDGE, lw=1.2, dashed=False, rad=0.0, style="-|>", zorder=1):
    """An arrow from ``start`` to ``end``, straight or bent by ``rad``."""
    ax.add_patch(
        FancyArrowPatch(
            start,
            end,
            arrowstyle=style,
            mutation_scale=11,
            color=color,
            lw=lw,
            connectionstyle=f"arc3,rad={rad}",
            linestyle=DASHED if dashed else "-",
            shrinkA=0,
            shrinkB=0,
            zorder=zorder,
        )
    )


def note(ax, x, y, text, *, size=9.0, color=EDGE, ha="center", **kwargs):
    """Free text centred vertically at (x, y)."""
    ax.text(x, y, text, ha=ha, va="center", fontsize=size, color=color, **kwargs)
