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
notebook (``instructor.coursedir.hidden_seed``): the same submission graded
again draws the same inputs; another student, or a changed notebook, others.
Without a seed (the author running the solutions, nbval in CI) every check
draws from :data:`AUTHOR_SEED`.

Validate never runs these: the student version holds no hidden test.

**Variants.** An assignment may also give each student parameters of her own
(a cipher's key length, a range of digits), drawn by :func:`variant` from
her *variant seed*. Unlike the hidden seed it depends only on the course's
key, the assignment and the student, so it stays the same from her first
run to her last submission. The release carries every rostered student's
variant seed in ``variants.json`` beside the notebook (parameters are no
secret: each student sees her own); her kernel finds hers by her account
name. The grader never reads that file: it sets the seed it derived itself
(:data:`VARIANT_ENV` in the kernel, :func:`use_variant` in test cells and
in its judging process), so an edited file only changes what her own
kernel shows her.
"""

from __future__ import annotations

import getpass
import json
import os
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

__all__ = ["AUTHOR_SEED", "VARIANTS_FILE", "VARIANT_ENV", "hidden_rng", "use_seed", "use_variant", "variant"]

T = TypeVar("T")

#: the seed of the author's own runs: no grading run set one
AUTHOR_SEED = 20261207

#: the file beside a released notebook that holds each rostered student's variant seed (made at release)
VARIANTS_FILE = "variants.json"
#: the kernel's environment variable the grader sets to the variant seed of the student it grades
VARIANT_ENV = "COURSE_VARIANT_SEED"

_seed: int = AUTHOR_SEED
_variant_seed: int | None = None  # set by the grader (use_variant); None: the kernel looks for the student's own
_told: set[str] = set()  # the notes already printed, once a kernel


def _checked(seed: int | None, what: str) -> int | None:
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise ValueError(f"a seed of the {what} is a non-negative int, not {seed!r}")
    return seed


def use_seed(seed: int | None) -> None:
    """Draw every hidden check's inputs from ``seed`` from now on (None: :data:`AUTHOR_SEED`)."""
    global _seed
    checked = _checked(seed, "hidden inputs")
    _seed = AUTHOR_SEED if checked is None else checked


def use_variant(seed: int | None) -> None:
    """Draw every :func:`variant` from ``seed`` from now on (None: the student's own, as :func:`variant` finds it)."""
    global _variant_seed
    _variant_seed = _checked(seed, "variants")


def hidden_rng(check: str) -> np.random.Generator:
    """A fresh generator of ``check``'s own stream of the current seed: the same draws every time it is asked."""
    if not isinstance(check, str) or not check:
        raise ValueError(f"name the check whose inputs are drawn (its grade_id), not {check!r}")
    return np.random.default_rng([_seed, zlib.crc32(check.encode())])


def variant(name: str, choices: Sequence[T]) -> T:
    """The student's own one of ``choices`` for the parameter ``name``: the same in every run of hers.

    ``choices`` is a sequence (a range, a list); the author's runs (no
    student, no grader) get :data:`AUTHOR_SEED`'s choice. Each parameter has a
    stream of its own, as each hidden check has::

        key_length = variant("key_length", range(3, 9))
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name the parameter a variant draws (a non-empty str), not {name!r}")
    if isinstance(choices, (str, bytes)) or not isinstance(choices, Sequence) or len(choices) == 0:
        raise ValueError(f"a variant draws from a non-empty sequence of choices (a range, a list), not {choices!r}")
    rng = np.random.default_rng([_current_variant_seed(), zlib.crc32(f"variant:{name}".encode())])
    return choices[int(rng.integers(len(choices)))]


def _current_variant_seed() -> int:
    """The grader's seed, else the kernel's environment's (the grader sets it), else the student's own entry of
    ``variants.json`` in the working folder, else :data:`AUTHOR_SEED`."""
    if _variant_seed is not None:
        return _variant_seed
    named = os.environ.get(VARIANT_ENV, "")
    if named.isdigit():
        return int(named)
    path = Path(VARIANTS_FILE)
    if not path.is_file():
        return AUTHOR_SEED
    student = os.environ.get("JUPYTERHUB_USER") or getpass.getuser()
    try:
        seeds = json.loads(path.read_text(encoding="utf-8")).get("students", {})
        seed = seeds[student]
        return int(_checked(seed, "variants"))  # type: ignore[arg-type]
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        _tell_once(
            f"{VARIANTS_FILE} holds no variant for {student!r}: you get the course's default parameters. "
            "Ask your instructor to release the assignment again with you on the roster."
        )
        return AUTHOR_SEED


def _tell_once(note: str) -> None:
    if note not in _told:
        _told.add(note)
        print(note)
