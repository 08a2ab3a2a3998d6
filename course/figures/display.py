"""What every figure module needs of the notebook's display: the IPython shell, whether a frontend shows
displays, and a figure as PNG bytes (:mod:`course.figures.training`, :mod:`course.figures.live_plot` and
:mod:`course.figures.explorers` use them)."""

from __future__ import annotations

import io

__all__ = ["ipython_shell", "has_frontend", "figure_png"]


def ipython_shell():
    """The running IPython shell, or None in plain Python."""
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: nothing to set up
        return None
    return get_ipython()


def has_frontend() -> bool:
    """True inside a Jupyter kernel (a frontend can show displays), False in plain Python or a terminal."""
    shell = ipython_shell()
    return shell is not None and getattr(shell, "kernel", None) is not None


def figure_png(fig, dpi: int = 80, tight: bool = True) -> bytes:
    """Render a matplotlib figure to PNG bytes with Agg, whatever the backend.

    ``tight`` crops the picture to what is drawn, at the cost of drawing twice.
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight" if tight else None)
    return buffer.getvalue()
