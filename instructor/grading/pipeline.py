"""One submission through stages 2-4 (prepare, execute, score): the task a worker runs.

It writes nothing shared (it reads the student version and the gradebook), so it can
run anywhere that sees the course directory; the coordinator records what it
returns (:mod:`instructor.grading.record`). A submission that cannot be
graded ends ``not graded`` with one sentence; a failure of the autograder itself
ends ``grader failed`` (a rerun tries it again); neither stops a batch.
"""

from __future__ import annotations

import time
import traceback

from instructor.coursedir.course_dir import CourseDir
from instructor.coursedir.hidden_seed import key_file, read_key, seed_submission
from instructor.errors import first_line
from instructor.grading.config import grading_config
from instructor.grading.execute import execute
from instructor.grading.machine_busy import MachineBusy
from instructor.grading.prepare import prepare, resources_for
from instructor.grading.score import score
from instructor.grading.submission import NotGraded, Status, Submission
from instructor.sandbox import Isolation, Limits


def grade(
    course_dir: CourseDir, sub: Submission, limits: Limits, isolation: Isolation, unsafe: bool = False
) -> Submission:
    """Grade ``sub`` in ``course_dir``; returns a graded copy, ended in its status.

    ``sub`` itself (as intake found it) is left as it is, so it can be graded again.
    """
    start = time.monotonic()
    sub = sub.as_found()
    sub.isolation = isolation
    sub.log += [f"{sub.student}/{sub.assignment} from {sub.folder}", f"isolation: {isolation.detail}"]
    try:
        if sub.status is not Status.QUEUED:
            raise NotGraded(sub.reason)
        config = grading_config(course_dir, limits, unsafe)
        if sub.hidden_seed is None:  # the coordinator draws it (hidden_inputs); a direct call reads the key here
            seed_submission(read_key(key_file(course_dir)), sub)
        resources = resources_for(course_dir, sub)
        nb = prepare(sub, resources, config)
        nb = execute(sub, nb, resources, config)
        score(sub, nb, resources, config, limits.cell_timeout)
    except NotGraded as err:
        sub.end(Status.NOT_GRADED, str(err))
    except MachineBusy as err:  # its sentence says so: graded again on the next run
        sub.end(Status.GRADER_FAILED, str(err))
    except Exception as err:  # the batch goes on; the log keeps the traceback
        sub.log.append(traceback.format_exc())
        sub.end(Status.GRADER_FAILED, f"the grader failed on this submission ({first_line(err)})")
    sub.seconds = round(time.monotonic() - start, 2)
    sub.log.append(f"outcome: {sub.status.shown}{': ' + sub.reason if sub.reason else ''}")
    return sub
