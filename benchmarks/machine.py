"""The machine a bench run measured on: CPU model, cores, load, BLAS library and threads, library versions."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import matplotlib
import mygrad
import mynn
import nbgrader
import numpy as np
from threadpoolctl import threadpool_info


def load_average() -> list[float] | None:
    """The 1-, 5- and 15-minute load averages (``/proc/loadavg``), or None where the system has none."""
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None


def cpu_model(cpuinfo: str | None = None) -> str:
    """The CPU's model name, with its vendor, family, model and stepping numbers where the system says them.

    The name alone can be vague on a virtual machine ("Intel(R) Xeon(R) Processor"): the numbers tell
    the generation. ``cpuinfo`` is the text of ``/proc/cpuinfo`` (read when None); elsewhere, the platform's word.
    """
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            cpuinfo = ""
    fields: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            if fields:  # the first processor's block is enough: a bench machine has one kind of core
                break
            continue
        fields.setdefault(key.strip(), value.strip())
    name = fields.get("model name") or platform.processor() or platform.machine() or "unknown"
    keys = (("family", "cpu family"), ("model", "model"), ("stepping", "stepping"))
    numbers = [(label, fields.get(key)) for label, key in keys]
    detail = ", ".join(f"{label} {value}" for label, value in numbers if value)
    vendor = fields.get("vendor_id")
    said = ", ".join(x for x in (vendor, detail) if x)
    return f"{name} ({said})" if said else name


def numpy_blas() -> dict:
    """The BLAS library NumPy was built against (``numpy.show_config``): name, version and its configuration line."""
    try:
        deps = np.show_config(mode="dicts").get("Build Dependencies", {})
    except (TypeError, AttributeError):  # NumPy before 1.25 prints its configuration only
        return {}
    blas = deps.get("blas", {})
    return {k: blas[k] for k in ("name", "version", "openblas configuration") if k in blas}


def blas_summary(info: dict) -> str:
    """One line: the BLAS NumPy was built with and the libraries loaded at run time (threadpoolctl)."""
    built = info.get("numpy_blas") or {}
    loaded = ", ".join(
        f"{b['library']} {b.get('version') or ''}".strip()
        + " ("
        + (f"{b['architecture']} kernels, " if b.get("architecture") else "")
        + f"{b['threads']} threads)"
        for b in info.get("blas", [])
    )
    head = f"numpy built with {built.get('name', '?')} {built.get('version', '')}".rstrip() if built else ""
    return "; ".join(x for x in (head, f"loaded: {loaded}" if loaded else "") if x) or "no BLAS info"


def machine_info() -> dict:
    """CPU model, cores, the BLAS library, its threads and the library versions of this run."""
    blas = [
        {
            "library": i.get("internal_api"),
            "threads": i.get("num_threads"),
            "version": i.get("version"),
            "architecture": i.get("architecture"),  # the kernels OpenBLAS picked for this CPU
        }
        for i in threadpool_info()
    ]
    return {
        "cpu": cpu_model(),
        "numpy_blas": numpy_blas(),
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
