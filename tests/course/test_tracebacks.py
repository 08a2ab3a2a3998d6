"""Error messages the kernel writes wrapped, so that Validate (command and button) shows them whole."""

from __future__ import annotations

import re

import nbformat
from nbclient import NotebookClient

from course.tracebacks import WIDTH, wrapped

MESSAGE = (
    "Wq got no gradient from out.sum().backward(): compute the output from Wq with MyGrad operations "
    "(no .data, np.asarray or astype on the way)"
)


def test_long_lines_are_wrapped_with_words_whole_and_short_ones_kept():
    entry = f"\x1b[0;31mAssertionError\x1b[0m: {MESSAGE}\nsecond line"
    lines = wrapped(entry).split("\n")
    assert all(len(line) <= WIDTH for line in lines) and lines[-1] == "second line"
    assert " ".join(" ".join(lines[:-1]).split()) == f"AssertionError: {MESSAGE}"
    assert wrapped("\x1b[0;31mValueError\x1b[0m: short") == "\x1b[0;31mValueError\x1b[0m: short"


def test_a_kernel_set_up_by_the_notebook_writes_the_message_wrapped():
    """After setup_backend() (every notebook's first cell), is an error's last traceback entry wrapped, its
    ename, evalue and frames as IPython makes them, and the cell still an error (nbclient stops there)?"""
    setup = nbformat.v4.new_code_cell("from course.figures import setup_backend\nsetup_backend()")
    check = nbformat.v4.new_code_cell(f"assert False, {MESSAGE!r}")
    nb = nbformat.v4.new_notebook(cells=[setup, check])
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    (error,) = [o for o in nb.cells[1].outputs if o.output_type == "error"]
    assert error.ename == "AssertionError" and error.evalue == MESSAGE
    assert any("In[2], line 1" in re.sub(r"\x1b\[[0-9;]*m", "", entry) for entry in error.traceback)
    last = error.traceback[-1].split("\n")
    assert len(last) > 1 and all(len(line) <= WIDTH for line in last[1:])
