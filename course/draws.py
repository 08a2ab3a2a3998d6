"""The inputs of hidden checks, drawn afresh for each submission the grader runs.

A hidden check draws what it hands the student's code (lengths, batch sizes,
weights, stand-in predictors) from :func:`hidden_rng`, never from a fixed
seed, so a table of answers copied from one run is worth nothing on the next:

    rng = hidden_rng("rnn__matches_numpy")
    T, N = rng.integers(2, 9), rng.integers(1, 6)

Each check has a stream of its own (its name picks it), so adding a draw to
one check leaves the others' inputs as they were. The grader sets the seed
(:func:`use_seed`) in the kernel and in its own judging process alike, from
a key the students and graders cannot read, the student and the bytes of the
notebook (``instructor.grading.hidden_seed``): the same submission graded
again draws the same inputs; another student, or a changed notebook, others.
Without a seed (the author running the solutions, nbval in CI) every check
draws from :data:`AUTHOR_SEED`.

Validate never runs these: the student version holds no hidden test.
"""

from __future__ import annotations

import zlib

import numpy as np

__all__ = ["AUTHOR_SEED", "hidden_rng", "use_seed"]

#: the seed of the author's own runs: no grading run set one
AUTHOR_SEED = 20261207

_seed: int = AUTHOR_SEED


def use_seed(seed: int | None) -> None:
    """Draw every hidden check's inputs from ``seed`` from now on (None: :data:`AUTHOR_SEED`)."""
    global _seed
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise ValueError(f"a seed of the hidden inputs is a non-negative int, not {seed!r}")
    _seed = AUTHOR_SEED if seed is None else seed


def hidden_rng(check: str) -> np.random.Generator:
    """A fresh generator of ``check``'s own stream of the current seed: the same draws every time it is asked."""
    if not isinstance(check, str) or not check:
        raise ValueError(f"name the check whose inputs are drawn (its grade_id), not {check!r}")
    return np.random.default_rng([_seed, zlib.crc32(check.encode())])
