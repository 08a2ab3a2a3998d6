"""Figures: what the notebooks draw from their own arrays, while they run.

A notebook imports them all from here::

    from course.figures import setup_backend, create_plot, show_attention

- :mod:`course.figures.training`: the training plot that redraws while a cell
  trains (:func:`create_plot`), and the notebook's backend (:func:`setup_backend`); the plot
  itself is :mod:`course.figures.live_plot`'s, imported with noggin when a plot is made; what they
  share of the notebook's display (the shell, a figure as PNG) is :mod:`course.figures.display`'s;
- :mod:`course.figures.attention`: the course's one attention heat map,
  weights of shape (T_out, T_in) or (heads, T_out, T_in) with a label per
  query and per key (:func:`show_attention`, :func:`draw_attention`);
- :mod:`course.figures.sequences`: what a digit-reversal model wrote
  (:func:`show_reversal`), and the labels of its attention map
  (:func:`reversal_labels`), for 02 and 03;
- :mod:`course.figures.transformer`: the masks, positional encodings and
  attention maps of 04;
- :mod:`course.figures.explorers`: the ipywidgets explorers of 03 and 04.

The architecture diagrams in the notebooks' prose are figures too, but fixed
ones: the course's authors draw them when an assignment is released, and
they come with it as SVG files beside the notebook.
"""

from course.figures.attention import draw_attention, show_attention
from course.figures.explorers import cipher_explorer, sequence_explorer
from course.figures.sequences import reversal_labels, show_reversal
from course.figures.training import create_plot, setup_backend
from course.figures.transformer import show_attention_maps, show_encodings, show_masks

__all__ = [
    "cipher_explorer",
    "create_plot",
    "draw_attention",
    "reversal_labels",
    "sequence_explorer",
    "setup_backend",
    "show_attention",
    "show_attention_maps",
    "show_encodings",
    "show_masks",
    "show_reversal",
]
