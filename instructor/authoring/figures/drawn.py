"""The course's figures: architecture diagrams for the notebooks' prose, drawn by code.

Each module of this package draws the figures of one or two notebooks and lists them in a
``FIGURES`` dict: ``{"<assignment>/<file>.svg": draw}``, where ``draw()`` takes
no argument and returns a matplotlib ``Figure``. The files are written beside
the solution notebook (``solutions/<assignment>/figures/<file>.svg``) by
``course generate`` and compared by ``course verify``; a markdown cell shows one
with ``![what it shows](figures/<file>.svg)`` and a one-line caption that ties
it to the formula beside it. The student gets the SVG files with the
assignment, so the pictures need no kernel and no network. (What a notebook
draws from its own arrays while it runs, training plots and attention maps,
is the student package's: ``course.figures``.)
"""

from __future__ import annotations

import importlib
import io
from collections.abc import Callable

# the modules that draw figures; each has FIGURES (see above)
MODULES = ("rnn", "seq2seq", "transformer")


def all_figures() -> dict[str, Callable]:
    """Every figure of the course: ``{"<assignment>/<file>.svg": draw}``."""
    found: dict[str, Callable] = {}
    for name in MODULES:
        try:
            module = importlib.import_module(f"{__package__}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{__package__}.{name}":
                raise
            continue
        found.update(module.FIGURES)
    return found


def svg_bytes(fig) -> bytes:
    """The figure as SVG, the same bytes on every run: fixed ids, no date, text kept as text."""
    import matplotlib
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "course", "svg.fonttype": "none"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()
