"""Run student notebooks in a sandbox: is one available here, and what came back from a run.

- :mod:`~instructor.sandbox.probe`: what isolation this machine offers (:func:`detect`, :class:`Isolation`);
- :mod:`~instructor.sandbox.command`: bubblewrap's arguments, the binds and the two users (executor, kernel);
- :mod:`~instructor.sandbox.run`: run one notebook and read the result (:func:`run_notebook`, :class:`Execution`);
- :mod:`~instructor.sandbox.scratch`: the host folders a run writes, removed after it;
- :mod:`~instructor.sandbox.limits`: what one sandbox may use;
- :mod:`~instructor.sandbox.cgroup`: cgroup v2 or v1 (the layout found here), for the sandbox and ``course hub``;
- ``executor.py``: the script that runs inside (it imports nothing of the grader).
"""

from __future__ import annotations

from instructor.sandbox.command import KERNEL_UID, NOBODY
from instructor.sandbox.limits import Limits
from instructor.sandbox.probe import Isolation, detect, refuse_without_limits, unsafe
from instructor.sandbox.run import Execution, run_notebook

__all__ = [
    "Isolation",
    "Execution",
    "Limits",
    "detect",
    "unsafe",
    "refuse_without_limits",
    "run_notebook",
    "KERNEL_UID",
    "NOBODY",
]
