"""Training plots that a student sees update while the cell trains.

A busy kernel cannot keep an interactive figure alive in JupyterLab 4: ipympl
shows a figure made during a cell only once the cell ends, and noggin's own
live mode needs the ``nbAgg`` backend, which JupyterLab 4 no longer runs
(noggin issue #50). What a browser does redraw during a busy cell is a
display that the kernel replaces. So :class:`TrainingPlot` keeps noggin's
bookkeeping (per-batch curves, per-epoch means), draws the figure off screen
with Agg, and swaps a PNG in one display slot (``display(..., display_id=True)``
then ``handle.update(...)``), at most a few times a second and within a
budget of the training time.

Headless runs (quick mode outside JupyterLab, nbval, autograding, CI) get one
static figure when :meth:`TrainingPlot.plot` is called, and nothing on stderr:
nbgrader scores a test cell 0 on any stderr output.

In a notebook::

    from course.figures import setup_backend, create_plot
    setup_backend()                      # once, in the first cell

    plotter, fig, ax = create_plot(["loss", "accuracy"])   # in the training cell
    for step in range(n_steps):
        ...
        plotter.set_train_batch({"loss": loss.item(), "accuracy": acc}, batch_size=N)
        if (step + 1) % 100 == 0:
            plotter.set_train_epoch()    # the mean of the last 100 batches
    plotter.plot()                       # final draw; the static figure in headless runs
"""

from __future__ import annotations

import io
import time
import warnings
from collections import deque

from matplotlib.backends.backend_agg import FigureCanvasAgg
from noggin.plotter import LivePlot

from course.runtime import is_headless
from course.tracebacks import wrap_error_messages

__all__ = ["setup_backend", "create_plot", "TrainingPlot", "figure_png"]

# Redraw at most this often, even when drawing is cheap: a browser that gets a
# new picture every few hundred milliseconds looks live, and stays responsive.
MIN_SECONDS_BETWEEN_DRAWS = 0.5


def _ipython():
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: nothing to set up
        return None
    return get_ipython()


def _has_frontend() -> bool:
    """True inside a Jupyter kernel (a frontend can show displays), False in plain Python or a terminal."""
    shell = _ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def setup_backend() -> None:
    """Show the notebook's figures as static images (matplotlib's ``inline`` backend), and error messages wrapped.

    The training plot does not need an interactive backend (it replaces its
    own picture), and inline figures stay in the saved notebook. An error's
    message is wrapped at 80 columns (:mod:`course.tracebacks`), so Validate
    shows it whole. Outside IPython nothing changes. Returns None, so the
    cell shows nothing.
    """
    shell = _ipython()
    if shell is None:
        return
    shell.run_line_magic("matplotlib", "inline")
    wrap_error_messages(shell)


def figure_png(fig, dpi: int = 80, tight: bool = True) -> bytes:
    """Render a matplotlib figure to PNG bytes with Agg, whatever the backend.

    ``tight`` crops the picture to what is drawn, at the cost of drawing twice.
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight" if tight else None)
    return buffer.getvalue()


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
        self.live = not is_headless() and _has_frontend()
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
        if _ipython() is not None and self._fig is not None:
            from IPython.display import Image, display

            display(Image(data=figure_png(self._fig), format="png"))


def create_plot(metrics, max_fraction_spent_plotting: float = 0.1, **kwargs):
    """Create a :class:`TrainingPlot` and its figure, like ``noggin.create_plot``.

    Returns
    -------
    Tuple[TrainingPlot, matplotlib.figure.Figure, numpy.ndarray]
        The plotter, its figure, and its array of axes.
    """
    plotter = TrainingPlot(metrics, max_fraction_spent_plotting, **kwargs)
    fig, ax = plotter.plot_objects
    return plotter, fig, ax
