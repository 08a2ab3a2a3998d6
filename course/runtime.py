"""Quick mode: one switch that makes every long notebook cell short.

Set ``COURSE_QUICK=1`` to run the notebooks in quick mode (CI, nbval, demos).
Autograding implies it: nbgrader sets ``NBGRADER_EXECUTION`` while it executes
a submission, so a student's notebook is never trained for minutes at grading
time. Graded tests never depend on a fully trained model.

In a notebook::

    from course.runtime import pick
    n_steps = pick(full=10_000, quick=30)
"""

from __future__ import annotations

import ctypes
import gc
import os
import platform
import sys

__all__ = ["is_grading", "is_headless", "is_quick", "is_watched", "pick", "tune_allocator", "tune_gc", "tune_process"]

_FALSE = {"", "0", "false", "no", "off"}


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in _FALSE


def is_grading() -> bool:
    """True while nbgrader executes the notebook (autograde or validate)."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def is_quick() -> bool:
    """True in quick mode: ``COURSE_QUICK`` is set, or nbgrader is executing."""
    return _flag("COURSE_QUICK") or is_grading()


def is_watched() -> bool:
    """True when the kernel belongs to a notebook open in Jupyter (JupyterLab, Notebook 7).

    jupyter_server names the notebook in ``JPY_SESSION_NAME`` for the kernels
    it starts for a session; nbval, nbclient and nbgrader start kernels
    without one.
    """
    return bool(os.environ.get("JPY_SESSION_NAME"))


def is_headless() -> bool:
    """True when nobody watches: grading, CI, or quick mode outside JupyterLab.

    Plots then come out as one static figure at the end of the cell, and the
    explorers (ipywidgets) are skipped. A student who opens JupyterLab with
    ``COURSE_QUICK=1`` still gets live plots and explorers.
    """
    return is_grading() or _flag("CI") or (is_quick() and not is_watched())


def pick(full, quick):
    """Return ``quick`` in quick mode, else ``full``.

    Parameters
    ----------
    full : Any
        The value a student gets (e.g. 10_000 training steps).
    quick : Any
        The value used by CI and autograding (e.g. 30 steps).
    """
    return quick if is_quick() else full


#: Set to 1 to keep the C library's own allocator settings (see ``tune_allocator``).
NO_MALLOC_TUNING = "COURSE_NO_MALLOC_TUNING"

# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_ALLOCATOR_BYTES = 256 * 2**20  # keep up to this much freed memory instead of returning it
# arrays up to this size come from the heap, not from fresh mmap pages; 32 MiB is the largest value
# every 64-bit glibc accepts, and far above the course's largest array (a few MB)
_MMAP_BYTES = 32 * 2**20
_allocator_tuned: bool | None = None


def tune_allocator() -> bool:
    """Let glibc keep freed memory for reuse instead of returning it to the system at once.

    A MyGrad training step allocates and frees the same arrays of a few
    hundred kB to a few MB many times. With glibc's defaults, arrays above the
    mmap threshold (128 kB at first) get fresh pages from the kernel and give
    them back when freed, and free memory above the trim threshold at the top
    of the heap is returned too; each new page then costs a page fault and is
    zeroed again. Raising both thresholds to 256 MiB keeps that memory in the
    process for reuse (the peak stays the same: 208 MiB either way over a
    Transformer run): page faults per step fell from about 8,000 to none at
    length 49, and steps took 59 -> 41 ms there (04 with course.ops.softmax), 4.4 -> 2.5 ms for 01's RNN
    and 11.2 -> 7.3 ms for 03's attention model (one thread, 2 cores).

    Applied once, when :mod:`course` is imported. Only on glibc (Linux); a
    no-op elsewhere, and never an error. ``COURSE_NO_MALLOC_TUNING=1`` keeps
    the defaults.

    Returns
    -------
    bool
        True if glibc accepted the settings (now or at an earlier call).
    """
    global _allocator_tuned
    if _allocator_tuned is not None:
        return _allocator_tuned
    _allocator_tuned = False
    if _flag(NO_MALLOC_TUNING) or platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        mallopt = libc.mallopt
        mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        mallopt.restype = ctypes.c_int
        # the mmap threshold first: setting the trim threshold pins the mmap threshold where it
        # is, so a glibc that refused the first setting would be left worse off than its defaults
        _allocator_tuned = bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_BYTES)) and bool(
            mallopt(_M_TRIM_THRESHOLD, _ALLOCATOR_BYTES)
        )
    except (OSError, AttributeError):  # no such library or symbol: leave the defaults
        pass
    return _allocator_tuned


#: Set to 1 to keep Python's own garbage-collector settings (see ``tune_gc``).
NO_GC_TUNING = "COURSE_NO_GC_TUNING"
_gc_tuned = False  # freeze once: a later call (a reload) would freeze whatever the notebook built since

#: Container allocations (net of frees) between two young-generation collections; Python's default is 700.
GC_YOUNG_THRESHOLD = 10_000


def tune_gc() -> bool:
    """Make Python's cyclic garbage collector cheap during MyGrad training.

    A training step creates and drops thousands of small objects (tensors,
    operations, tuples); MyGrad's graphs hold no reference cycles, so
    reference counting frees them and the collector finds nothing. Yet with
    Python's defaults it runs every 700 allocations, and a full collection
    walks every object of the kernel (about 250,000 once NumPy, MyGrad,
    matplotlib and IPython are loaded: ~130 ms each). Two settings:

    * ``gc.freeze()``: the objects alive now (the imported libraries) move to
      a permanent generation that collections skip; a full collection then
      costs well under a millisecond;
    * the young generation is collected after ``GC_YOUNG_THRESHOLD``
      allocations instead of 700. Cyclic garbage is still collected, a little
      later.

    Applied once, when :mod:`course` is imported; ``COURSE_NO_GC_TUNING=1``
    keeps the defaults. Returns True if the settings were applied.
    """
    global _gc_tuned
    if _gc_tuned or _flag(NO_GC_TUNING):
        return _gc_tuned
    _gc_tuned = True
    gc.freeze()
    young, middle, old = gc.get_threshold()
    if 0 < young < GC_YOUNG_THRESHOLD:  # 0: the collector is disabled; leave it so
        gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)
    return True


#: How many threads the BLAS under NumPy may use (default 1); ``0`` leaves the library's own default (a thread a
#: core). A variable the user set for the library itself (``OPENBLAS_NUM_THREADS`` and its kin) wins over both.
BLAS_THREADS = "COURSE_BLAS_THREADS"
#: the variables the BLAS libraries NumPy ships with, or is built against, read when they load
_BLAS_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


def blas_threads() -> int:
    """The BLAS thread count :func:`tune_blas` asks for: ``COURSE_BLAS_THREADS``, else 1 (0: the library's own)."""
    value = os.environ.get(BLAS_THREADS, "").strip() or "1"
    try:
        threads = int(value)
    except ValueError:
        threads = -1
    if threads < 0:
        raise ValueError(f"{BLAS_THREADS} must be a whole number of threads, 0 for the library's own, not {value!r}")
    return threads


def tune_blas() -> int | None:
    """Keep NumPy's matrix products on one thread (``COURSE_BLAS_THREADS`` threads).

    The course's matrices are small (a batch of a few hundred rows by 100 at
    most): a second BLAS thread gains little on an idle machine and loses much
    on a busy one, where the threads wait for each other's cores (a student's
    hub shares its cores with the class). Before NumPy is imported this sets
    the BLAS libraries' own variables, which they read as they load; after, it
    asks threadpoolctl to change the loaded library. Either way a variable the
    user set for the library wins. Returns the count asked for, or None where
    the library's own is kept (``0``, or the user's variable).
    """
    threads = blas_threads()
    if threads == 0 or any(name in os.environ for name in _BLAS_VARIABLES):
        return None
    if "numpy" not in sys.modules:
        for name in _BLAS_VARIABLES:
            os.environ[name] = str(threads)
        return threads
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=threads, user_api="blas")
    return threads


def tune_process() -> None:
    """The settings above; :mod:`course` calls this once, when it is imported."""
    tune_allocator()
    tune_gc()
    tune_blas()
