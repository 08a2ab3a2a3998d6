"""Run every notebook of the test suite in quick mode.

This file sits at the repository root so that it also applies when pytest
collects only ``solutions/`` (nbval); kernels inherit the environment.
"""

import os

os.environ["COURSE_QUICK"] = "1"
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
