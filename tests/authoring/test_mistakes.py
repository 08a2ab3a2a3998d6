"""The autograder tests reject the mistakes students really make (tests/mistakes/)."""

from __future__ import annotations

import zlib

import pytest

from instructor.authoring.mistakes import Mistake
from instructor.authoring.trial import run_trial
from instructor.cells import find_cell, is_graded_test, read, task_of
from instructor.paths import SOLUTIONS, existing_assignments, notebook_path
from instructor.reporting.failures import UNNAMED, tell_student
from tests.nbexec import load_mistakes, runner_per_assignment

ASSIGNMENTS = existing_assignments(SOLUTIONS)


def _emptied(source: str) -> str:
    """The cell with every solution block reduced to ``pass`` (markers kept)."""
    out, inside = [], False
    for line in source.splitlines():
        stripped = line.strip()
        if stripped == "### BEGIN SOLUTION":
            inside = True
            out += [line, line[: len(line) - len(line.lstrip())] + "pass"]
        elif stripped == "### END SOLUTION":
            inside = False
            out.append(line)
        elif not inside:
            out.append(line)
    return "\n".join(out) + "\n"


def _empty_answers(assignment: str) -> list[Mistake]:
    """One generated mistake per graded task: the student deletes the stub and writes nothing."""
    nb = read(notebook_path(assignment, SOLUTIONS))
    tasks = {task_of(c) for c in nb.cells if is_graded_test(c)}
    return [
        Mistake(gid, "empty_answer", "every solution block left as `pass`", cell.source, _emptied(cell.source))
        for cell in nb.cells
        if (gid := cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")) in tasks
    ]


MISTAKES = [(a, m) for a in ASSIGNMENTS for m in load_mistakes(a) + _empty_answers(a)]


def draw_of(assignment: str, mistake: Mistake) -> int:
    """The seed of the hidden inputs a mistake is graded with: one of its own, as each submission gets."""
    return zlib.crc32(f"{assignment}:{mistake.task}:{mistake.name}".encode())


@pytest.mark.notebook
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_solution_graded_cells_pass_quietly(assignment):
    """Do the solution's graded test cells pass without a word on stderr (which nbgrader scores 0)?"""
    path = notebook_path(assignment, SOLUTIONS)
    run = run_trial(read(path), cwd=path.parent, skip_tags=("slow",))
    bad = [(c.grade_id, c.error, c.stderr[:200]) for c in run.graded() if c.failed]
    assert not bad


@pytest.fixture(scope="module")
def runners():
    """One kernel per assignment, shared by its mistakes (namespace reset between them)."""
    with runner_per_assignment() as get:
        yield get


@pytest.mark.notebook
@pytest.mark.parametrize("assignment, mistake", MISTAKES, ids=[f"{a}-{m.task}-{m.name}" for a, m in MISTAKES])
def test_mistake_loses_points(runners, assignment, mistake):
    """Does this deliberate mistake fail at least one graded test of its task?"""
    # the cells after its task's tests tell nothing; the hidden checks draw inputs of the mistake's own
    run = runners(assignment).run(mistake, through=mistake.task, seed=draw_of(assignment, mistake))
    failed = run.failed_tests(mistake.task)
    assert failed, f"{mistake.name}: {mistake.why} -- no graded test of {mistake.task!r} failed"
    # the feedback page names the failed check in its author's words (tests/reporting/test_feedback.py reads one)
    runner = runners(assignment)
    told = []  # each failed cell's message as its feedback page renders it
    for c in failed:
        error = (
            [{"output_type": "error", "ename": c.error, "evalue": c.evalue, "traceback": c.traceback}]
            if c.error
            else [{"output_type": "stream", "name": "stderr", "text": c.stderr}]
        )
        said = tell_student(find_cell(runner.source, c.grade_id).source, error)
        assert said != UNNAMED, (
            f"{mistake.name}: {c.grade_id} fails without naming a check ({c.error}: {c.evalue[:80]})"
        )
        told.append(said)
    if mistake.expect:
        messages = [c.evalue for c in failed]
        assert any(mistake.expect in m for m in messages), (
            f"{mistake.name}: no failure says {mistake.expect!r}: {messages}"
        )
        # the first check that fails names the cause, on the page as the student reads it (values as it shows them)
        assert mistake.expect in told[0], f"{mistake.name}: the first failure, {failed[0].grade_id}, says {told[0]!r}"


def test_every_graded_task_has_three_mistakes():
    """Is every autograded task covered by at least three deliberate mistakes?"""
    for assignment in ASSIGNMENTS:
        nb = read(notebook_path(assignment, SOLUTIONS))
        tasks = {task_of(c) for c in nb.cells if is_graded_test(c)}
        assert None not in tasks, f"{assignment}: a graded test cell names no task"
        counts = {t: sum(m.task == t for m in load_mistakes(assignment)) for t in tasks}
        thin = {t: n for t, n in counts.items() if n < 3}
        assert not thin, f"{assignment}: tasks with fewer than 3 mistakes: {thin}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_mistake_says_what_its_feedback_names(assignment):
    """Does every deliberate mistake give ``expect``: the words its first failed check says (issue 33)?"""
    lacking = [m.name for m in load_mistakes(assignment) if not m.expect.strip()]
    assert not lacking, f"{assignment}: mistakes without expect: {lacking}"
