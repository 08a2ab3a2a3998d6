"""Students' Validate shows each failed check's message whole, as the course install and the bundle set it up.

nbgrader 0.9.6 cuts every line of its report at ``Validator.width`` (default 90) and ends it in "...";
the course sets the width (:data:`instructor.coursedir.nbgrader_settings.VALIDATE_WIDTH`) in its own settings and in
the bundle's ``helpers/`` (``etc/jupyter/nbgrader_config.json``, which ``nbgrader validate`` and the
Validate button's server extension both read from the environment's Jupyter config folder).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from traitlets.config import Config

from instructor.authoring.bundle_helpers import JUPYTER_CONFIG
from instructor.cells import is_graded_test, visible_source
from instructor.coursedir.nbgrader_settings import VALIDATE_WIDTH
from instructor.paths import SOLUTIONS, existing_assignments, notebook_path
from instructor.settings import configure
from tests import factories

#: 04's visible check of a gradient cut by ``astype`` (issue 45): nbgrader's default width cut it at "fr..."
LONG_MESSAGE = (
    "Wq got no gradient from out.sum().backward(): compute the output from the input with MyGrad "
    "operations only (no .data, np.asarray or astype on the way), so that backward reaches every weight"
)


def _notebook(path: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    source = f"# Check that the gradient reaches the weights\nassert False, {LONG_MESSAGE!r}\n"
    nb.cells = [factories.test_cell("gradient__reaches_weights", "gradient", source)]
    nbformat.write(nb, path)
    return path


def test_default_width_cuts_the_hint(tmp_path):
    """Is nbgrader's own default what cut the message (so the setting below is what restores it)?"""
    from nbgrader.validator import Validator

    out = _validate(Validator(), _notebook(tmp_path / "nb.ipynb"))
    assert "AssertionError: Wq got no gradient" in out and LONG_MESSAGE not in out


def _validate(validator, path: Path) -> str:
    import io

    validator.stream = io.StringIO()
    validator.validate_and_print(str(path))
    return validator.stream.getvalue()


def test_course_configuration_shows_the_whole_message(tmp_path):
    """Does Validate with the course's settings (grader/, a course directory's nbgrader_config.py) print the
    message whole, on one line?"""
    from nbgrader.validator import Validator

    config = configure(Config(), tmp_path)
    out = _validate(Validator(config=config), _notebook(tmp_path / "nb.ipynb"))
    assert f"AssertionError: {LONG_MESSAGE}" in out, out


def test_bundle_settings_reach_nbgrader_validate(tmp_path):
    """Does `nbgrader validate`, with the bundle's Jupyter settings in a config folder (as `pip install
    ./helpers` puts them under the venv's prefix), print the message whole?"""
    config_dir = tmp_path / "etc" / "jupyter"
    for installed, content in JUPYTER_CONFIG.items():
        target = tmp_path / installed
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(content))
    assert json.loads((config_dir / "nbgrader_config.json").read_text()) == {"Validator": {"width": VALIDATE_WIDTH}}
    work = tmp_path / "work"
    work.mkdir()
    _notebook(work / "nb.ipynb")
    env = {**os.environ, "JUPYTER_CONFIG_PATH": str(config_dir)}
    run = subprocess.run(
        [sys.executable, "-m", "nbgrader", "validate", "nb.ipynb"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert f"AssertionError: {LONG_MESSAGE}" in run.stdout, run.stdout + run.stderr


def _longest_message_line(assignment: str) -> tuple[int, str]:
    """The longest line of a visible check's message (an f-string's ``{...}`` counted as 20 characters)."""
    longest = (0, "")
    for cell in nbformat.read(notebook_path(assignment, SOLUTIONS), as_version=4).cells:
        if cell.cell_type != "code" or not is_graded_test(cell):
            continue
        for node in ast.walk(ast.parse(visible_source(cell.source))):
            if isinstance(node, ast.Assert) and node.msg is not None:
                text = (
                    "".join(
                        part.value if isinstance(part, ast.Constant) else "x" * 20
                        for part in (node.msg.values if isinstance(node.msg, ast.JoinedStr) else [node.msg])
                    )
                    if isinstance(node.msg, (ast.JoinedStr, ast.Constant))
                    else ast.unparse(node.msg)
                )
                for line in str(text).splitlines():
                    longest = max(longest, (len(line), line))
    return longest


@pytest.mark.parametrize("assignment", existing_assignments(SOLUTIONS))
def test_every_visible_message_line_fits_the_width(assignment):
    """Does the longest line of every visible check's message, after Validate's indent and the error's name,
    fit in the width (a longer message would be cut again)?"""
    length, line = _longest_message_line(assignment)
    assert 4 + len("AssertionError: ") + length <= VALIDATE_WIDTH - 3, line


def test_a_course_notebook_shows_the_message_whole_even_at_the_default_width(tmp_path):
    """With the notebook's setup cell (setup_backend wraps messages in the kernel), does nbgrader's default
    width of 90 still show every word of the message, as the Validate button's dialog needs?"""
    from nbgrader.validator import Validator

    path = _notebook(tmp_path / "nb.ipynb")
    nb = nbformat.read(str(path), as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell("from course.figures import setup_backend\nsetup_backend()"))
    nbformat.write(nb, str(path))
    out = _validate(Validator(), path)
    assert "..." not in out.split("AssertionError:")[-1], out
    assert f"AssertionError: {LONG_MESSAGE}" in " ".join(out.split())
