"""The training plot itself: noggin's ``LivePlot``, drawn off screen and swapped in one display slot.

:func:`course.figures.training.create_plot` makes one; see that module for why it redraws this way.
"""

from __future__ import annotations

import time
import warnings
from collections import deque

from matplotlib.backends.backend_agg import FigureCanvasAgg
from noggin.plotter import LivePlot

from course.figures.display import figure_png, has_frontend, ipython_shell
from course.runtime import is_headless

__all__ = ["TrainingPlot"]

# Redraw at most this often, even when drawing is cheap: a browser that gets a
# new picture every few hundred milliseconds looks live, and stays responsive.
MIN_SECONDS_BETWEEN_DRAWS = 0.5


def _fit(fig) -> None:
    """Make room for titles and labels (once: then every redraw can skip the cropping pass)."""
    with warnings.catch_warnings():  # a layout it cannot fit is no reason to write to stderr
        warnings.simplefilter("ignore")
        fig.tight_layout()


class TrainingPlot(LivePlot):
    """A noggin ``LivePlot`` that redraws in place while someone watches.

    It takes the same arguments and offers the same methods as
    ``noggin.LivePlot`` (``set_train_batch``, ``set_train_epoch``, ...).
    Call :meth:`plot` once training ends: it draws everything logged, and in
    headless runs that is when the single static figure is shown.

    Parameters
    ----------
    metrics : Union[str, Sequence[str], Dict[str, Any]]
        The metrics to plot, as for ``noggin.LivePlot``.
    max_fraction_spent_plotting : float, default=0.1
        The most of the training time spent redrawing (0 to 1). The cost of
        the latest redraws is measured, and the next one waits long enough to
        stay within this fraction (and at least 0.5 s).
    **kwargs
        ``nrows``, ``ncols``, ``figsize``, ``last_n_batches`` as for noggin.
    """

    def __init__(self, metrics, max_fraction_spent_plotting: float = 0.1, **kwargs):
        # noggin warns (stderr!) for any backend but nbAgg when its plotting
        # budget is > 0, and would call pyplot.ion(): give it 0, keep our own.
        super().__init__(metrics, max_fraction_spent_plotting=0.0, **kwargs)
        self._liveplot = False  # noggin's live mode (nbAgg only) stays off
        self.live = not is_headless() and has_frontend()
        self.budget = float(max_fraction_spent_plotting)
        self._handle = None  # the display slot, once shown
        self._last_draw: float | None = None  # time.perf_counter() at the end of the last draw
        self._draw_seconds: deque[float] = deque(maxlen=4)  # how long the latest draws took
        self.draws = 0  # pictures sent so far (live mode)

    def _init_plot_window(self):
        if self._fig is not None:
            return
        super()._init_plot_window()
        # Off screen: pyplot must not show this figure at the end of the cell
        # (the inline backend would add a second copy), and Agg renders it.
        self._pyplot.close(self._fig)
        FigureCanvasAgg(self._fig)

    def _do_liveplot(self):
        """Redraw if enough time has passed (called by noggin after each batch and epoch)."""
        if not self.live:
            return
        now = time.perf_counter()
        if self._last_draw is not None:
            # wait long enough that drawing stays within the budget
            cost = sum(self._draw_seconds) / len(self._draw_seconds)
            wait = cost * (1 - self.budget) / max(self.budget, 1e-6)
            if now - self._last_draw < max(MIN_SECONDS_BETWEEN_DRAWS, wait):
                return
        self._show(plot_batches=self._plot_batch)
        self._last_draw = time.perf_counter()
        self._draw_seconds.append(self._last_draw - now)

    def _show(self, plot_batches: bool = True, fit: bool = False) -> None:
        """Draw the logged data and put the picture in the display slot."""
        from IPython.display import Image, display

        super().plot(plot_batches=plot_batches)
        if fit or self._handle is None:
            _fit(self._fig)
        image = Image(data=figure_png(self._fig, tight=False), format="png")
        if self._handle is None:
            self._handle = display(image, display_id=True)
        else:
            self._handle.update(image)
        self.draws += 1

    def plot(self, plot_batches: bool = True):
        """Draw all logged metrics: update the live picture, or show the figure once."""
        if self.live:
            self._show(plot_batches=plot_batches, fit=True)
            self._last_draw = time.perf_counter()
            return
        super().plot(plot_batches=plot_batches)
        if ipython_shell() is not None and self._fig is not None:
            from IPython.display import Image, display

            display(Image(data=figure_png(self._fig), format="png"))
