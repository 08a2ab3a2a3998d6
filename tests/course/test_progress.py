"""The progress line of long training cells: whole text lines at intervals, on stdout, in any runner."""

from __future__ import annotations

import nbformat
from nbclient import NotebookClient

from course.progress import duration, progress


class Clock:
    """A clock that advances ``tick`` seconds each time it is read."""

    def __init__(self, tick: float):
        self.now, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


def test_lines_come_at_intervals_and_the_last_says_the_whole_time():
    """Does a loop of 100 steps at 1 s a step print a line every 30 s (step, time so far, per step, time
    left) and one last line with the whole time, and yield the same steps as range?"""
    lines: list[str] = []
    seen = list(progress(100, every=30, clock=Clock(1.0), write=lines.append))
    assert seen == list(range(100))
    assert lines[0] == "step 30 of 100: 30 s so far, 1000.0 ms a step, about 70 s to go", lines
    assert len(lines) == 4 and lines[2].startswith("step 90 of 100")
    assert lines[-1] == "100 steps in 101.0 s, 1010.0 ms a step"


def test_a_short_loop_prints_only_its_last_line():
    """Does quick mode's handful of steps print one line, not a progress line per step?"""
    lines: list[str] = []
    for _ in progress(2, clock=Clock(0.01), write=lines.append):
        pass
    assert len(lines) == 1 and lines[0].startswith("2 steps in ")


def test_duration_reads_at_a_glance():
    assert [duration(s) for s in (4.2, 99, 185, 744)] == ["4 s", "99 s", "3 min 05 s", "12 min 24 s"]


def test_lines_reach_an_executed_notebook_as_stdout_text():
    """Under nbclient (what nbconvert --execute and Validate run), are the lines plain stdout stream text,
    each whole (no carriage return), and nothing on stderr?"""
    code = (
        "import time\nfrom course.progress import progress\n"
        "for step in progress(6, every=0.05):\n    time.sleep(0.02)\n"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    assert {o.output_type for o in outputs} == {"stream"} and {o.name for o in outputs} == {"stdout"}
    text = "".join(o.text for o in outputs)
    assert "\r" not in text
    lines = text.splitlines()
    assert len(lines) >= 2 and lines[0].startswith("step ") and lines[-1].startswith("6 steps in "), lines
