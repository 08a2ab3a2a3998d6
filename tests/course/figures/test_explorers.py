"""The explorers of 03 and 04 (course/figures/explorers.py): quiet where nobody watches, alive where someone does."""

from __future__ import annotations

import os

import numpy as np
import pytest
from nbclient import NotebookClient

from course.figures import explorers
from instructor.cells import read, tags
from instructor.paths import SOLUTIONS, notebook_path

TOKENS = [*"0123456789", "<S>", "<E>"]


@pytest.fixture
def watched(monkeypatch):
    """A JupyterLab session: not quick, not CI, not grading."""
    for name in ("COURSE_QUICK", "CI", "NBGRADER_EXECUTION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JPY_SESSION_NAME", "03_attention/03_attention.ipynb")


def _reversal(calls):
    """Fake 03 model: sequences of L digits, a model that reverses all but the first digit."""

    def make_sequence(L):
        calls.append(L)
        digits = np.random.default_rng(len(calls)).integers(0, 10, size=L)
        x = np.eye(12, dtype=np.float32)[[*digits, 11]][:, None, :]  # (T, 1, C)
        target = np.array([*digits[::-1], 11])[:, None]  # (T, 1)
        return x, target

    def decode(x):
        tokens = x.argmax(axis=-1)[:, 0]
        out = np.array([*tokens[:-1][::-1], 11])
        out[0] = (out[0] + 1) % 10  # one mistake
        return out[:, None]

    def attention(x):
        T = x.shape[0]
        return np.eye(T, dtype=np.float32)[::-1][:, :, None]  # (t, T, 1): the anti-diagonal

    return make_sequence, decode, attention


def _cipher_parts():
    def encrypt(message):
        if not set(message) <= set("abcdefghijklmnopqrstuvwxyz "):
            raise ValueError(f"not in the alphabet: {sorted(set(message) - set('abcdefghijklmnopqrstuvwxyz '))}")
        return message[::-1]

    def attention(secret):
        T = len(secret) + 1
        rng = np.random.default_rng(T)
        w = rng.random((2, 3, T, T)).astype(np.float32)
        w /= w.sum(axis=-1, keepdims=True)
        return {"encoder self-attention": (w, [*secret, "E"], [*secret, "E"]), "cross": w[:, :, :-1]}

    return encrypt, lambda secret: secret[::-1].replace("e", "x"), attention


@pytest.mark.parametrize("env", [{"COURSE_QUICK": "1"}, {"CI": "true"}, {"NBGRADER_EXECUTION": "autograde"}])
def test_explorers_skip_headless_with_one_line(monkeypatch, capsys, env):
    """Headless: does each explorer print one line, show nothing and write nothing to stderr?"""
    for name in ("COURSE_QUICK", "CI", "NBGRADER_EXECUTION", "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    called = []
    assert explorers.sequence_explorer(*_reversal(called), token_names=TOKENS) is None
    assert explorers.cipher_explorer(*_cipher_parts()) is None
    out, err = capsys.readouterr()
    assert err == "" and not called
    assert len(out.splitlines()) == 2 and all("skipped" in line for line in out.splitlines())


def test_explorers_skip_without_ipywidgets(watched, monkeypatch, capsys):
    """Without ipywidgets: one line that says how to install it, and no error?"""
    real = explorers.importlib.util.find_spec
    monkeypatch.setattr(
        explorers.importlib.util, "find_spec", lambda name: None if name == "ipywidgets" else real(name)
    )
    assert explorers.cipher_explorer(*_cipher_parts()) is None
    out, err = capsys.readouterr()
    assert "ipywidgets" in out and len(out.splitlines()) == 1 and err == ""


def test_sequence_explorer_answers_a_new_length_and_a_new_sequence(watched):
    """Does the 03 explorer show source, target and output, a PNG map, and redraw for a new length and on its button?"""
    calls = []
    box = explorers.sequence_explorer(*_reversal(calls), token_names=TOKENS, length=12)
    parts = box.parts
    assert calls == [12]
    first = parts["picture"].value
    assert first[:8] == b"\x89PNG\r\n\x1a\n"
    assert "source" in parts["text"].value and "1 of 13" not in parts["text"].value
    assert "12 of 13 tokens right" in parts["text"].value  # one mistake, marked
    parts["length"].value = 5
    assert calls == [12, 5] and parts["picture"].value != first
    second = parts["picture"].value
    parts["again"].click()
    assert calls == [12, 5, 5] and parts["picture"].value != second


def test_sequence_explorer_shows_errors_in_the_panel(watched):
    """Does a failing model show its error in the explorer instead of raising?"""
    make_sequence, _, attention = _reversal([])

    def broken(x):
        raise NotImplementedError("decode is not written yet")

    box = explorers.sequence_explorer(make_sequence, broken, attention, token_names=TOKENS)
    assert "NotImplementedError: decode is not written yet" in box.parts["text"].value


def test_cipher_explorer_answers_a_message_a_layer_and_a_head(watched):
    """Does the 04 explorer encrypt, decrypt, mark wrong characters and redraw for a new message, layer, head
    and kind?"""
    box = explorers.cipher_explorer(*_cipher_parts(), message="meet me")
    parts = box.parts
    assert list(parts["panel"].options) == ["encoder self-attention", "cross"]
    assert list(parts["layer"].options) == ["mean", 0, 1] and list(parts["head"].options) == ["mean", 0, 1, 2]
    assert "#c62828" in parts["text"].value  # the e's came back as x's: marked
    assert "4 of 7 right" in parts["text"].value
    pictures = [parts["picture"].value]
    for widget, value in (
        (parts["head"], 2),
        (parts["layer"], 1),
        (parts["panel"], "cross"),
        (parts["message"], "hello world"),
    ):
        widget.value = value
        assert parts["picture"].value not in pictures, f"no new picture after {widget.description} = {value!r}"
        pictures.append(parts["picture"].value)
    assert "dlrow\u2423olleh" in parts["text"].value  # the new message, encrypted


def test_cipher_explorer_names_characters_outside_the_alphabet(watched):
    """Does a message with a capital letter or digit say what is wrong, in the panel?"""
    box = explorers.cipher_explorer(*_cipher_parts())
    before = box.parts["picture"].value
    box.parts["message"].value = "Hello 2"
    assert "ValueError: not in the alphabet" in box.parts["text"].value
    assert box.parts["picture"].value == before


@pytest.mark.notebook
@pytest.mark.parametrize("assignment", ["03_attention", "04_transformer"])
def test_explorer_cell_of_the_solution_shows_a_widget_in_a_watched_quick_run(assignment):
    """Run in quick mode as JupyterLab would (a session): does the explorer cell show a widget, with no error or
    stderr?"""
    nb = read(notebook_path(assignment, SOLUTIONS))
    cells = [c for c in nb.cells if "explorer" in tags(c)]
    assert len(cells) == 1, "one explorer cell, tagged 'explorer'"
    assert "nbgrader" not in cells[0].metadata, "the explorer cell is ungraded and unlocked"
    saved = dict(os.environ)
    os.environ.update(COURSE_QUICK="1", JPY_SESSION_NAME=f"{assignment}/{assignment}.ipynb", OPENBLAS_NUM_THREADS="1")
    for name in ("CI", "NBGRADER_EXECUTION"):
        os.environ.pop(name, None)
    try:
        NotebookClient(
            nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(SOLUTIONS / assignment)}}
        ).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    (cell,) = [c for c in nb.cells if "explorer" in tags(c)]
    kinds = [o.output_type for o in cell.outputs]
    assert kinds == ["execute_result"], cell.outputs
    assert "application/vnd.jupyter.widget-view+json" in cell.outputs[0].data
    stderr = [
        o.text
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "stream" and o.name == "stderr"
    ]
    assert not stderr, stderr
