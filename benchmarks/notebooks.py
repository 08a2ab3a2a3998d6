"""Wall time of each solution notebook, run as a trial in quick mode (and in full mode with ``--full``)."""

from __future__ import annotations

import os

from tqdm import tqdm

from instructor.authoring.trial import QUICK_ENV, run_trial
from instructor.cells import read
from instructor.paths import SOLUTIONS, existing_assignments, notebook_path


def bench_notebooks(full: bool, quiet: bool = False) -> dict:
    """Wall time of each solution notebook, quick mode (and full mode)."""
    modes = [("quick", {**os.environ, **QUICK_ENV})]
    if full:
        env = {k: v for k, v in os.environ.items() if k != "COURSE_QUICK"}
        modes.append(("full", {**env, "OPENBLAS_NUM_THREADS": "1"}))
    per_notebook: dict[str, dict] = {}
    names = existing_assignments(SOLUTIONS)
    for mode, env in modes:
        for name in tqdm(names, desc=f"notebooks {mode}", leave=False, disable=quiet):
            path = notebook_path(name, SOLUTIONS)
            run = run_trial(read(path), cwd=path.parent, env=env, timeout=3600)
            per_notebook.setdefault(name, {})[f"{mode}_seconds"] = round(run.seconds, 1)
            per_notebook[name][f"{mode}_errors"] = len(run.errors())
    total = round(sum(r["quick_seconds"] for r in per_notebook.values()), 1)
    return {"per_notebook": per_notebook, "total_quick_seconds": total}
