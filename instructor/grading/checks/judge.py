"""Judge a test cell's checks in the autograder's own process, on the values its kernel sent.

The autograder runs the cell's given and judged statements itself
(:mod:`instructor.grading.checks.split`): the givens build the same inputs
and expected values the cell builds, from its own seeded generators; each
judged statement runs with the kernel values it reads taken from what the
kernel sent (:mod:`course.values`), decoded as plain data. The verdict,
and the message it shows, are the autograder's: the kernel only supplied values.
A cell that fails without a check saying so fails with a :class:`Fault`.
"""

from __future__ import annotations

import ast
import builtins
import enum
import functools
import threading
from dataclasses import dataclass

import numpy as np

from course.values import decode
from instructor.grading.checks.private import TRUSTED_MODULES
from instructor.grading.checks.split import GIVEN, JUDGED, Plan
from instructor.grading.syntax import parse

#: a kernel whose values for a check are missing: what stopped before it is in the cell's own output
MISSING = "the values this check needs did not come back from the kernel"
#: numpy's global random state is one per process: judging cells one at a time keeps a seed's draws its own
_RANDOM_STATE = threading.Lock()


class Fault(enum.StrEnum):
    """Why the autograder failed a cell when no check of it said no: the ``exception`` of its :class:`Verdict`
    (a check that fails names its own exception, ``AssertionError`` ...)."""

    MISSING = "MissingValues"  # a check's values never came: the kernel stopped before it
    MALFORMED = "MalformedValues"  # they came, and do not decode
    FORGED = "ForgedValues"  # one check's values sent twice, or two values of one result
    STRAY = "StrayValues"  # values no check of the cell asked for, or the executor dropped some
    CUT = "CutValues"  # the executor cut some on their way, over the byte limit
    LOST = "LostValues"  # the cell ran to its end without an error, and some are not there
    JUDGE_STOPPED = "JudgeStopped"  # the judge ran out of time or memory, or could not read the request


#: faults that say the value channel was tampered with: the submission is flagged (a Fault hashes and
#: compares as its string, so a verdict that came back from the judge's process as a string is found here too)
CHANNEL_FAULTS = frozenset({Fault.FORGED, Fault.STRAY, Fault.CUT, Fault.LOST})


@dataclass(frozen=True)
class Verdict:
    """How the autograder judged one test cell: passed, or where it failed and why."""

    passed: bool
    line: int = 0  # the cell's line of the failing check (1-based), 0 if it passed
    exception: str = ""  # the failing check's exception's name, or a Fault
    message: str = ""
    missing: bool = False  # the check's values never came (the kernel stopped, or they were sent twice)
    broken: bool = False  # the autograder could not run a statement the cell gives itself: the student version's fault


def trusted_imports(sources: list[str]) -> dict:
    """The namespace the notebook's imports of trusted modules give (``import numpy as np`` ...).

    ``sources`` are the student version's set-up cells; anything but an import of one
    of :data:`~instructor.grading.checks.private.TRUSTED_MODULES` is left out.
    The namespace is shared (one per release and process): :func:`judge` works on a copy.
    """
    return _imports(tuple(sources))


@functools.lru_cache(maxsize=64)
def _imports(sources: tuple[str, ...]) -> dict:
    namespace: dict = {"__builtins__": builtins}
    for source in sources:
        try:
            tree = parse(source)
        except SyntaxError:  # a magic or a shell line: not an import the autograder needs
            continue
        for node in tree.body:
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            if all(n.split(".")[0] in TRUSTED_MODULES for n in names):
                exec(compile(ast.Module([node], []), "<imports>", "exec"), namespace)
    return namespace


def imported_names(namespace: dict) -> set[str]:
    return set(namespace) - {"__builtins__"}


def _compiled(source: str, line: int):
    tree = parse(source)
    ast.increment_lineno(tree, line - 1)
    return compile(tree, "<test cell>", "exec")


def _failing_line(err: BaseException, default: int) -> int:
    """The cell's line where ``err`` came out of the statement (the innermost frame in the cell's code)."""
    line, tb = default, err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<test cell>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def judge(plan: Plan, imports: dict, sent: dict[int, dict]) -> Verdict:
    """The autograder's verdict on the cell of ``plan``, given the values its kernel sent (check index -> values)."""
    with _RANDOM_STATE:
        state = np.random.get_state()
        try:
            return _judge(plan, dict(imports), sent)
        finally:
            np.random.set_state(state)


def _judge(plan: Plan, namespace: dict, sent_by_check: dict[int, dict]) -> Verdict:
    since_probe: dict[str, object] = {}  # what the kernel sent of each value since its code last ran
    for index, st in enumerate(plan.statements):
        if st.kind not in (GIVEN, JUDGED):
            since_probe.clear()
            continue
        if st.kind == JUDGED:
            sent = sent_by_check.get(index)
            if sent is None:
                return Verdict(False, st.line, Fault.MISSING, MISSING, missing=True)
            # between two runs of the student's code nothing changes a kernel value: one value per name,
            # so checks on one result cannot be answered each with a value made up for it alone
            changed = [n for n in st.kernel_values if n in sent and since_probe.setdefault(n, sent[n]) != sent[n]]
            if changed:
                return Verdict(
                    False,
                    st.line,
                    Fault.FORGED,
                    f"the kernel sent two different values of {changed[0]} for checks of one result",
                )
            try:
                namespace.update({name: decode(sent[name]) for name in st.kernel_values})
            except MemoryError:
                raise
            except Exception as err:  # whatever the kernel sent, a value that does not decode fails
                why = f"the values this check needs came back malformed ({err})"
                return Verdict(False, st.line, Fault.MALFORMED, why)
        try:
            exec(_compiled(st.source, st.line), namespace)
        except Exception as err:  # the check said no, or the values made it fail: either way the cell fails
            if st.kind == GIVEN:
                why = f"the grader could not run this line itself: {err}"[:500]
                return Verdict(False, st.line, type(err).__name__, why, broken=True)
            message = str(err) if isinstance(err, AssertionError) else f"{type(err).__name__}: {err}"
            return Verdict(False, _failing_line(err, st.line), type(err).__name__, message[:2000])
    return Verdict(True)
