"""Stage 3, execute: the prepared notebook runs in the sandbox; the executed copy comes back as data.

The only stage that runs student code (:data:`~instructor.grading.chains.EXECUTE`,
that is :class:`~instructor.grading.preprocessors.sandboxed_execute.SandboxedExecute`);
what the sandbox reported goes into the submission's log either way.
"""

from __future__ import annotations

from instructor.grading.chains import EXECUTE, run_chain
from instructor.grading.submission import Submission


def execute(sub: Submission, nb, resources: dict, config):
    """The executed notebook; raises NotGraded when the run did not finish (budget, memory, a dead kernel)."""
    try:
        nb, _ = run_chain(EXECUTE, nb, resources, config)
    finally:
        run = sub.execution
        if run is not None:
            sub.log.append(
                f"sandbox: {run.status} in {run.seconds:.1f} s; timed out: {run.timed_out}; "
                f"output cut: {run.output_cut}; processes killed after: {run.processes_killed}"
            )
            sub.log.append(run.log)
    return nb
