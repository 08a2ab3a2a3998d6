"""`course bench --only class-tools`: the instructor's commands, run and timed on a graded class."""

from __future__ import annotations

from benchmarks.class_tools import bench_class_tools, table
from benchmarks.parts import MISTAKES
from instructor.authoring.mistakes import load
from instructor.paths import SOLUTIONS, existing_assignments


def test_every_command_runs_on_a_graded_class():
    """Does each command run, as a fresh process, on a class of two submissions per assignment (and get timed,
    and its time compared with the target)?"""
    assignments = existing_assignments(SOLUTIONS)
    r = bench_class_tools(2 * len(assignments), {a: load(MISTAKES, a) for a in assignments}, quiet=True)
    expected = {f"{verb} {a}" for a in assignments for verb in ("report", "similarity")}
    assert set(r["seconds"]) == expected | {"extend", "export --format canvas"}
    assert all(s > 0 for s in r["seconds"].values())
    # whether they were within the target is the benchmark's finding to report, not this test's to assert
    assert isinstance(r["all_within_target"], bool) and r["target_seconds"] > 0
    assert any("course report 01_rnn" in line for line in table(r))


def test_a_class_too_small_to_pair_is_refused():
    import pytest

    from instructor.errors import CourseError

    with pytest.raises(CourseError, match="at least 8"):
        bench_class_tools(4, {}, quiet=True)
