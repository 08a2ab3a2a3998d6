"""nbgrader's execute step, moved into the sandbox: the only stage that runs student code."""

from __future__ import annotations

import copy
from pathlib import Path

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool, Instance

from instructor import sandbox
from instructor.grading.machine_busy import MachineBusy, busy_reason
from instructor.grading.preprocessors.student_version import read_student_version
from instructor.grading.submission import NotGraded, carried


def outputs_into(sent, returned):
    """A copy of ``sent`` with the outputs of ``returned``: only outputs come back from the sandbox.

    The executor runs with the student's uid, so what it returns is not
    trusted: which cells there are, their code, and their grading metadata
    (grade ids, points) stay as the autograder sent them; a returned notebook
    whose cells differ from those sent is refused (:class:`NotGraded`).
    """
    cells = returned.get("cells", []) if isinstance(returned, dict) else []
    if len(cells) != len(sent.cells):
        raise NotGraded(f"the sandbox returned {len(cells)} cells for the {len(sent.cells)} it was given")
    made = copy.deepcopy(sent)
    for index, (mine, theirs) in enumerate(zip(made.cells, cells, strict=True)):
        if (
            theirs.get("cell_type") != mine.cell_type
            or theirs.get("source") != mine.source
            or theirs.get("metadata", {}).get("nbgrader") != mine.get("metadata", {}).get("nbgrader")
        ):
            raise NotGraded(f"the sandbox returned a notebook that is not the one it was given (cell {index})")
        if mine.cell_type == "code":
            mine.outputs = theirs.get("outputs", [])
            mine.execution_count = theirs.get("execution_count")
    return made


class SandboxNotStarted(RuntimeError):
    """The sandbox failed before the executor ran: ``grader failed``, and the next run tries again."""


class SandboxedExecute(Preprocessor):
    """Execute the notebook in a sandbox (:mod:`instructor.sandbox`) and return the executed copy.

    Files of the student version that are not notebooks are copied next to it (the
    submission's ``files``; under nbgrader's own autograde, the files it
    copied beside the notebook). Refuses to run anything when no isolation is
    available, unless ``unsafe`` is set. What happened goes to the
    submission's ``execution``; a run that did not finish raises
    :class:`NotGraded` with the reason.
    """

    enabled = Bool(True).tag(config=True)
    unsafe = Bool(False, help="run student code without isolation when no sandbox is available").tag(config=True)
    #: one value, every field of it, as `course grade` or the course's settings gave it (never rebuilt field by field)
    limits = Instance(sandbox.Limits, kw={}, help="what one submission may use (instructor.sandbox.Limits)").tag(
        config=True
    )

    def preprocess(self, nb, resources):
        sub = carried(resources)
        isolation = sub.isolation or sandbox.detect()
        if not isolation.safe and not self.unsafe:
            raise NotGraded(f"no sandbox to run student code in ({isolation.detail}); grading refused")
        refused = sandbox.refuse_without_limits(isolation, self.limits)
        if refused:
            raise NotGraded(refused)
        if sub.files is not None:
            files = [Path(p) for p in sub.files]
        else:  # nbgrader's own autograde: the files it copied next to the notebook
            folder = Path(resources.get("metadata", {}).get("path") or ".")
            files = [p for p in sorted(folder.iterdir()) if p.is_file() and not p.is_symlink() and p.suffix != ".ipynb"]
        run = sandbox.run_notebook(nb, files, self.limits, isolation, sub.variant_seed)
        sub.execution, sub.isolation = run, isolation
        sub.log.append(f"limits held: {', '.join(run.limits_held) or 'none (no cgroup)'}")
        if run.hit_process_limit:
            sub.flag(f"hit the limit of {self.limits.processes} processes")
        if run.status == "not_started":  # the autograder's side failed: nothing of the student's ran
            raise SandboxNotStarted(run.reason)
        # a limit met in given code before any student code ran is the machine's, not the student's
        busy = busy_reason(
            run.status,
            run.stopped_at,
            run.timed_out,
            nb,
            read_student_version(self.config, resources),
            self.limits.cell_timeout,
        )
        if busy:
            raise MachineBusy(busy)
        if run.status != "ok":
            raise NotGraded(run.reason)
        return outputs_into(nb, run.notebook), resources
