"""04's own-message cell names the characters outside the alphabet, as its text promises."""

from __future__ import annotations

import pytest

from instructor.cells import grade_id, read
from instructor.paths import SOLUTIONS, notebook_path

MESSAGE = 'message = "meet me by the old mill at nine"'


def _cells():
    """The sources of 04's alphabet cell, its reference cipher and the own-message cell (the code after its text)."""
    cells = read(notebook_path("04_transformer", SOLUTIONS)).cells
    by_id = {grade_id(c): c.source for c in cells if grade_id(c)}
    [after] = [i for i, c in enumerate(cells) if grade_id(c) == "own_message_text"]
    own = cells[after + 1]
    assert own.cell_type == "code" and own.source.startswith(MESSAGE), own.source
    return by_id["alphabet"], by_id["cipher"], own.source


@pytest.mark.parametrize(
    "message, named",
    [("Hello World", "'H', 'W'"), ("café", "'é'"), ("a\tb", "'\\t'"), ("a\nb", "'\\n'")],
)
def test_the_own_message_cell_names_the_culprits(message, named):
    """Does a message with capitals, an accent, a tab or a newline raise a ValueError that names those
    characters (the text promises it), not the reference cipher's 'substring not found'?"""
    alphabet, cipher, own = _cells()
    space: dict = {"decrypt_with_model": lambda secret, model: secret, "model": None}
    exec(alphabet, space)
    exec(cipher, space)
    with pytest.raises(ValueError, match="only the letters a-z and the space") as raised:
        exec(own.replace(MESSAGE, f"message = {message!r}", 1), space)
    assert named in str(raised.value), raised.value
