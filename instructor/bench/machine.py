"""The machine a bench run measured on: cores, load, BLAS threads, library versions."""

from __future__ import annotations

import os
import platform

import matplotlib
import mygrad
import mynn
import nbgrader
import numpy as np
from threadpoolctl import threadpool_info


def load_average() -> list[float] | None:
    """The 1-, 5- and 15-minute load averages (``/proc/loadavg``), or None where the system has none."""
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None


def machine_info() -> dict:
    """Cores, BLAS threads and library versions of this run."""
    blas = [
        {"library": i.get("internal_api"), "threads": i.get("num_threads"), "version": i.get("version")}
        for i in threadpool_info()
    ]
    return {
        "cores": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "load_average": load_average(),
        "blas": blas,
        "bench_blas_threads": 1,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "numpy": np.__version__,
        "mygrad": mygrad.__version__,
        "mynn": getattr(mynn, "__version__", "?"),
        "nbgrader": nbgrader.__version__,
        "matplotlib": matplotlib.__version__,
    }
