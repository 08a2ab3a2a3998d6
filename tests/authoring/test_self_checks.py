"""The "Try it" cells of 04 warn about the slips students make (issue 45, part 5).

A student runs a part's "Try it" cell before its checks. Layer norm's used
to try one vector, positional encoding's an even width and the masks' an
array of lengths, so a layer norm without ``keepdims=True``, an encoding that
breaks for an odd width and masks that need an array all passed it, and
surfaced later as a raw NumPy error in another part. Each cell now tries the
case that breaks and prints a warning that names the fix; the reference
prints none.
"""

from __future__ import annotations

import copy

import pytest

from instructor.authoring.mistakes import apply_mistake
from instructor.cells import grade_id
from tests.nbexec import MistakeRunner, load_mistakes

ASSIGNMENT = "04_transformer"

#: mistake of tests/mistakes/04_transformer.py -> (a line of the "Try it" cell that should warn, the warning's words)
WARNED = {
    "mean_without_keepdims": (
        "norm = ResidualConnectionAndLayerNorm(4)",
        "warning: your layer norm fails on a (2, 4) batch",
    ),
    "odd_width_breaks": ("odd = PositionalEncoder(5)(3)", "warning: your encoding fails for an odd width"),
    "lengths_must_be_an_array": ("lengths = [6, 3]", "warning: your masks fail on lengths given as a list"),
}


@pytest.fixture(scope="module")
def runner():
    """One kernel for the runs below, the hidden tests left out (as the student has them)."""
    started = MistakeRunner(ASSIGNMENT, visible_only=True)
    yield started
    started.close()


def _printed(nb, line: str) -> str:
    """What the ungraded code cell holding ``line`` printed."""
    cells = [c for c in nb.cells if c.cell_type == "code" and grade_id(c) is None and line in c.source]
    assert len(cells) == 1, f"{len(cells)} scratch cells hold {line!r}"
    return "".join(o.get("text", "") for o in cells[0].get("outputs", []) if o.get("output_type") == "stream")


@pytest.mark.notebook
@pytest.mark.parametrize("name", sorted(WARNED))
def test_try_it_cell_warns_about_the_slip(runner, name):
    line, words = WARNED[name]
    mistake = next(m for m in load_mistakes(ASSIGNMENT) if m.name == name)
    nb = apply_mistake(runner.source, mistake)
    runner.run_notebook(nb)
    assert words in _printed(nb, line), f"{name}: the cell with {line!r} printed {_printed(nb, line)!r}"


@pytest.mark.notebook
def test_try_it_cells_stay_quiet_on_the_reference(runner):
    nb = copy.deepcopy(runner.source)
    runner.run_notebook(nb)
    for line, _ in WARNED.values():
        assert "warning" not in _printed(nb, line), _printed(nb, line)
