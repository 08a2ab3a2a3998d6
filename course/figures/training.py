"""Training plots that a student sees update while the cell trains.

A busy kernel cannot keep an interactive figure alive in JupyterLab 4: ipympl
shows a figure made during a cell only once the cell ends, and noggin's own
live mode needs the ``nbAgg`` backend, which JupyterLab 4 no longer runs
(noggin issue #50). What a browser does redraw during a busy cell is a
display that the kernel replaces. So the plot
(:class:`course.figures.live_plot.TrainingPlot`) keeps noggin's bookkeeping
(per-batch curves, per-epoch means), draws the figure off screen with Agg,
and swaps a PNG in one display slot (``display(..., display_id=True)`` then
``handle.update(...)``), at most a few times a second and within a budget of
the training time.

Headless runs (quick mode outside JupyterLab, nbval, autograding, CI) get one
static figure when its ``plot`` is called, and nothing on stderr:
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

from course.figures.display import ipython_shell
from course.tracebacks import wrap_error_messages

__all__ = ["setup_backend", "create_plot"]


def setup_backend() -> None:
    """Show the notebook's figures as static images (matplotlib's ``inline`` backend), and error messages wrapped.

    The training plot does not need an interactive backend (it replaces its
    own picture), and inline figures stay in the saved notebook. An error's
    message is wrapped at 80 columns (:mod:`course.tracebacks`), so Validate
    shows it whole. Outside IPython nothing changes. Returns None, so the
    cell shows nothing.
    """
    shell = ipython_shell()
    if shell is None:
        return
    shell.run_line_magic("matplotlib", "inline")
    wrap_error_messages(shell)


def create_plot(metrics, max_fraction_spent_plotting: float = 0.1, **kwargs):
    """Create a :class:`~course.figures.live_plot.TrainingPlot` and its figure, like ``noggin.create_plot``.

    Returns
    -------
    Tuple[TrainingPlot, matplotlib.figure.Figure, numpy.ndarray]
        The plotter, its figure, and its array of axes.
    """
    # noggin (with xarray and pandas under it: 0.3 s) is imported when a plot is made, not with the setup
    # cell: a notebook run that stops before its training (a grader's, a test's) never needs it
    from course.figures.live_plot import TrainingPlot

    plotter = TrainingPlot(metrics, max_fraction_spent_plotting, **kwargs)
    fig, ax = plotter.plot_objects
    return plotter, fig, ax
