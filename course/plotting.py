"""Training plots that update live in JupyterLab 4 and stay quiet elsewhere.

noggin draws live only under matplotlib's ``nbAgg`` backend, which JupyterLab 4
no longer runs (noggin issue #50). The notebooks use ipympl's ``widget``
backend instead, and :class:`TrainingPlot` switches noggin's live drawing on
for it. Headless runs (quick mode, nbval, autograding, CI) get the ``inline``
backend and one static figure when the plot is finished, with nothing written
to stderr: nbgrader scores a test cell 0 on any stderr output.

In a notebook::

    from course.plotting import setup_backend, create_plot
    setup_backend()                      # once, in the first cell

    plotter, fig, ax = create_plot(["loss", "accuracy"])   # in the training cell
    for step in range(n_steps):
        ...
        plotter.set_train_batch({"loss": loss.item(), "accuracy": acc}, batch_size=N)
    plotter.plot()                       # final draw; the static figure in headless runs
"""

from __future__ import annotations

import importlib.util

import matplotlib
from noggin.plotter import LivePlot

from course.runtime import is_headless

__all__ = ["setup_backend", "create_plot", "TrainingPlot", "is_live_backend"]


def _ipython():
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: nothing to set up
        return None
    return get_ipython()


def setup_backend() -> None:
    """Pick the matplotlib backend for this notebook session.

    ``widget`` (ipympl, live plots) when someone is watching, ``inline``
    (static figures) in headless runs or where ipympl is missing. Outside
    IPython nothing changes. Returns None, so the cell shows nothing.
    """
    shell = _ipython()
    if shell is None:
        return
    live = not is_headless() and importlib.util.find_spec("ipympl") is not None
    shell.run_line_magic("matplotlib", "widget" if live else "inline")


def is_live_backend(backend: str | None = None) -> bool:
    """True for the backends that can redraw a figure while a cell runs."""
    name = (backend or matplotlib.get_backend()).lower()
    return "nbagg" in name or "ipympl" in name or name == "widget"


class TrainingPlot(LivePlot):
    """A noggin ``LivePlot`` that is live under ipympl and static elsewhere.

    It takes the same arguments and offers the same methods as
    ``noggin.LivePlot`` (``set_train_batch``, ``set_train_epoch``, ...).
    Call :meth:`plot` once training ends: in headless runs that is when the
    single static figure is shown.
    """

    def __init__(self, metrics, max_fraction_spent_plotting: float = 0.05, **kwargs):
        # noggin warns (stderr!) for any backend but nbAgg when plotting time > 0,
        # so build it with 0 and restore the budget once liveness is decided.
        super().__init__(metrics, max_fraction_spent_plotting=0.0, **kwargs)
        self._liveplot = is_live_backend(self._backend)
        if self._liveplot:
            self.max_fraction_spent_plotting = max_fraction_spent_plotting

    def plot(self, plot_batches: bool = True):
        """Draw all logged metrics; outside live mode, show the figure once."""
        super().plot(plot_batches=plot_batches)
        if not self._liveplot and self._fig is not None:
            shell = _ipython()
            if shell is not None:
                from IPython.display import display

                display(self._fig)
                # closing stops the inline backend from showing it a second time
                self._pyplot.close(self._fig)


def create_plot(metrics, max_fraction_spent_plotting: float = 0.05, **kwargs):
    """Create a :class:`TrainingPlot` and its figure, like ``noggin.create_plot``.

    Returns
    -------
    Tuple[TrainingPlot, matplotlib.figure.Figure, numpy.ndarray]
        The plotter, its figure, and its array of axes.
    """
    plotter = TrainingPlot(metrics, max_fraction_spent_plotting, **kwargs)
    fig, ax = plotter.plot_objects
    return plotter, fig, ax
