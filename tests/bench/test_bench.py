"""The bench's models take their settings from the notebooks (``SETTINGS``), never from a second copy."""

from __future__ import annotations

import re

import mygrad as mg
import pytest

from benchmarks import models as bench
from instructor.authoring.library import load_library
from instructor.cells import read, tags
from instructor.paths import SOLUTIONS, notebook_path

RECURRENT = [p for p in bench.MODELS if p.assignment in ("01_rnn", "02_seq2seq", "03_attention")]

#: settings no notebook uses, so a trainer that ignores them shows at once
ODD = {"dim_recurrent": 7, "batch_size": 3, "seq_len_min": 2, "seq_len_max": 4, "learning_rate": 0.25, "n_steps": 17}


def _spied_library(assignment: str, seen: dict):
    """The notebook's library with ``ODD`` settings, recording what the trainer asks of it."""
    lib = load_library(assignment)  # a fresh module: the bench's own cache stays untouched
    lib.SETTINGS = {**lib.SETTINGS, **ODD}  # every setting ODD names is odd; the rest (03's schedule) the notebook's
    make_batch, adam = lib.generate_batch, lib.Adam

    def generate_batch(seq_len_min, seq_len_max, batch_size):
        seen.setdefault("batches", []).append((seq_len_min, seq_len_max, batch_size))
        return make_batch(seq_len_min, seq_len_max, batch_size)

    def optimizer(params, **kwargs):
        seen["adam"] = kwargs
        return adam(params, **kwargs)

    lib.generate_batch, lib.Adam = generate_batch, optimizer
    return lib


@pytest.mark.parametrize("part", RECURRENT, ids=[p.key for p in RECURRENT])
def test_recurrent_trainer_follows_the_notebook_settings(part, monkeypatch):
    """Does the bench train 01-03 with whatever the notebook's SETTINGS say (size, batch, lengths, rate, steps)?"""
    seen: dict = {}
    lib = _spied_library(part.assignment, seen)
    with mg.mem_guard_off:
        trainer = part.make(lib)
        trainer.step()
        trainer.step()
    assert seen["batches"] == [(2, 4, 3)] * 2, seen["batches"]
    assert seen["adam"] == {"learning_rate": 0.25}
    monkeypatch.setattr(bench, "_library", lambda assignment: lib)
    assert "D=7" in part.title and "batch 3" in part.title, part.title
    assert part.step_cap == 17


def test_attention_trainer_follows_the_notebooks_rate_schedule():
    """Does the bench, as 03's training cell, set Adam's rate by the notebook's learning_rate(step, n_steps)?"""
    part = next(p for p in RECURRENT if p.assignment == "03_attention")
    lib = load_library(part.assignment)
    assert callable(lib.learning_rate)  # the notebook's own schedule, read by its training cell
    lib.SETTINGS = {**ODD, "n_steps": 16, "final_learning_rate": 0.0625, "drop_at": 0.875}
    adam, made = lib.Adam, []
    lib.Adam = lambda params, **kwargs: made.append(adam(params, **kwargs)) or made[-1]
    rates = []
    with mg.mem_guard_off:
        trainer = part.make(lib)
        for _ in range(16):
            trainer.step()
            rates.append(made[0].learning_rate)
    assert rates == [0.25] * 14 + [0.0625] * 2, rates  # the last eighth: steps 15 and 16 of 16


@pytest.mark.parametrize("part", RECURRENT, ids=[p.key for p in RECURRENT])
def test_recurrent_model_has_the_notebook_size(part):
    """Is the bench's model built with SETTINGS["dim_recurrent"] hidden units?"""
    lib = load_library(part.assignment)
    lib.SETTINGS = dict(ODD)
    built = []
    cls = getattr(lib, type_name := {"rnn": "RNN", "seq2seq": "Seq2Seq", "attention": "AttentionSeq2Seq"}[part.key])

    def spy(*args, **kwargs):
        built.append(args)
        return cls(*args, **kwargs)

    setattr(lib, type_name, spy)
    part.make(lib)
    assert built == [(12, 7, 12)], built


@pytest.mark.parametrize("part", bench.MODELS, ids=[p.key for p in bench.MODELS])
def test_titles_and_step_caps_come_from_the_notebooks(part):
    """Does every model's title name its notebook's batch size, and does its run stop at the notebook's steps?"""
    settings = load_library(part.assignment).SETTINGS
    assert f"batch {settings['batch_size']}" in part.title
    if "dim_recurrent" in settings:
        assert f"D={settings['dim_recurrent']}" in part.title
    assert part.step_cap == settings["n_steps"]


_READS = re.compile(r'SETTINGS\["(\w+)"\]')


@pytest.mark.parametrize("assignment", ["01_rnn", "02_seq2seq", "03_attention"])
def test_training_cell_reads_every_setting(assignment):
    """Does the notebook's training cell read every one of its SETTINGS, so that none is restated there?"""
    nb = read(notebook_path(assignment, SOLUTIONS))
    [training] = [c.source for c in nb.cells if "slow" in tags(c) and "optimizer.step()" in c.source]
    # with the library functions it calls (03's learning_rate reads the schedule's settings)
    called = [
        c.source
        for c in nb.cells
        if "library" in tags(c)
        and any(re.search(rf"\b{name}\(", training) for name in re.findall(r"^def (\w+)\(", c.source, re.M))
    ]
    unread = set(load_library(assignment).SETTINGS) - set(_READS.findall("\n".join([training, *called])))
    assert not unread, f"{assignment}: the training cell never reads SETTINGS {sorted(unread)}"
