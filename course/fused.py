"""Full-mode training on the fused operations of :mod:`course.ops`, once they agree with the student's own code.

A full-mode run trains for thousands of steps. Some of what each step calls,
an RNN's loop over time, 03's attention step, 04's layer norm and loss, is
written by the student as several MyGrad operations; :mod:`course.ops`
computes each as one operation with a backward pass written by hand, which
takes less time. Before training, a notebook calls one of
:func:`rnn_training`, :func:`attention_training` or
:func:`transformer_training` with its namespace (``globals()``). Each runs the
student's function and its fused stand-in on the same random inputs and
compares the values and the gradients. A stand-in that agrees replaces the
student's function inside ``with`` blocks only; one that does not is left
out, and one printed sentence names the student's function that training
then runs. Outside the blocks nothing is replaced, so graded cells and
everything after training run the student's own code::

    fused = transformer_training(globals())  # prints what training will use
    with fused:
        ...  # training steps
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import mygrad as mg
import numpy as np

from course import ops
from course.recurrent import run_rnn

__all__ = ["FusedTraining", "StandIn", "attention_training", "rnn_training", "transformer_training"]

#: float32 rounding of a few operations apart: how far a stand-in's values and gradients may be from the student's
RTOL, ATOL = 1e-4, 1e-5


@dataclass
class StandIn:
    """A fused function that may stand in for one of the student's while training runs.

    ``owner`` holds the student's function as ``owner[name]`` (a namespace)
    or ``owner.name`` (a class, for a method). ``trial`` runs the function it
    is given on fixed random inputs and returns the arrays to compare: its
    outputs and the gradients of a random sum of them.
    """

    label: str  # the student's function as she knows it, e.g. "`RNN.__call__`"
    owner: object
    name: str
    fused: Callable
    trial: Callable[[Callable], list]

    def own(self) -> Callable:
        return self.owner[self.name] if isinstance(self.owner, dict) else getattr(self.owner, self.name)

    def put(self, function: Callable) -> None:
        if isinstance(self.owner, dict):
            self.owner[self.name] = function
        else:
            setattr(self.owner, self.name, function)

    def disagreement(self) -> str | None:
        """None when the stand-in agrees with the student's function; else why not, in a few words."""
        try:
            function = self.own()
        except (KeyError, AttributeError):
            return "the notebook does not define it"
        try:
            own = self.trial(function)
        except Exception as error:  # her unfinished or broken code: training then runs it and shows her the error
            return f"on random inputs it raised {type(error).__name__}"
        try:
            fused = self.trial(self.fused)
        except Exception as error:  # her classes lack what the stand-in reads (a layer, a weight)
            return f"course.ops's version cannot run on your objects ({type(error).__name__})"
        for mine, theirs in zip(own, fused, strict=True):
            if mine is None or theirs is None:
                if (mine is None) != (theirs is None):
                    return "course.ops's version gives a gradient to other inputs than yours"
                continue
            if np.shape(mine) != np.shape(theirs) or not np.allclose(mine, theirs, rtol=RTOL, atol=ATOL):
                return "course.ops's version gives other values or gradients on random inputs"
        return None


class FusedTraining:
    """The stand-ins that agree, put in place inside each ``with`` block and taken out after it."""

    def __init__(self, stand_ins: list[StandIn], announce: bool = True):
        self.used: list[StandIn] = []
        self.refused: dict[str, str] = {}  # label -> why
        for stand_in in stand_ins:
            why = stand_in.disagreement()
            if why is None:
                self.used.append(stand_in)
            else:
                self.refused[stand_in.label] = why
        self._kept: list[tuple[StandIn, Callable]] = []
        if announce:
            print(self.summary())

    def summary(self) -> str:
        """One sentence for what training uses, and one for each of the student's functions it runs itself."""
        lines = []
        if self.used:
            labels = " and ".join(s.label for s in self.used)
            lines.append(
                f"Training uses course.ops in place of your {labels}: the same values and gradients on random "
                "inputs, in less time."
            )
        for label, why in self.refused.items():
            lines.append(f"Training runs your own {label}, more slowly: {why}.")
        return "\n".join(lines)

    def __enter__(self) -> FusedTraining:
        self._kept = [(s, s.own()) for s in self.used]
        for stand_in in self.used:
            stand_in.put(stand_in.fused)
        return self

    def __exit__(self, *exc) -> None:
        for stand_in, own in reversed(self._kept):
            stand_in.put(own)
        self._kept = []


@contextmanager
def _own_random_state() -> Iterator[None]:
    """Run a trial without moving NumPy's global generator: the notebook's seeds keep their meaning."""
    state = np.random.get_state()
    try:
        yield
    finally:
        np.random.set_state(state)


def _draw(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.normal(size=shape).astype(np.float32)


def _backward(outputs: list, inputs: list, rng: np.random.Generator) -> list:
    """The outputs' values, then the gradient of a random weighted sum of them in each input."""
    for tensor in inputs:
        tensor.null_grad()
    total = sum((out * _draw(rng, *out.shape)).sum() for out in outputs)
    total.backward()
    return [np.array(mg.asarray(out)) for out in outputs] + [
        None if tensor.grad is None else np.array(tensor.grad) for tensor in inputs
    ]


# ---- 01: the RNN's loop over time ----------------------------------------------------------------------------------


def rnn_training(namespace: dict, announce: bool = True) -> FusedTraining:
    """Notebook 01: train ``RNN`` with its loop over time as one operation, if that agrees with ``RNN.__call__``."""
    rnn_class = namespace.get("RNN")

    def trial(call):
        with _own_random_state():
            np.random.seed(1)
            model = rnn_class(5, 4, 6)
        rng = np.random.default_rng(1)
        x = mg.tensor(_draw(rng, 3, 2, 5))
        scores, states = call(model, x)
        return _backward([scores, states], [x, *model.parameters], rng)

    return FusedTraining([StandIn("`RNN.__call__`", rnn_class, "__call__", run_rnn, trial)], announce)


# ---- 03: one step of attention -------------------------------------------------------------------------------------


def attention_training(namespace: dict, announce: bool = True) -> FusedTraining:
    """Notebook 03: train with each decoder step's attention as one operation, if that agrees with ``attend``."""

    def trial(attend):
        rng = np.random.default_rng(3)
        inputs = [mg.tensor(_draw(rng, 6, 3, 4)), mg.tensor(_draw(rng, 6, 3, 4)), mg.tensor(_draw(rng, 1, 3, 4))]
        context, weights = attend(*inputs)
        values = [np.array(mg.asarray(weights))]  # compared as values; the model only draws them
        return values + _backward([context], inputs, rng)

    return FusedTraining([StandIn("`attend`", namespace, "attend", ops.attend, trial)], announce)


# ---- 04: the layer norm and the loss -------------------------------------------------------------------------------


def _fused_add_and_norm(self, x_old, x_new):
    """``ResidualConnectionAndLayerNorm.__call__`` of notebook 04 on ``course.ops.layer_norm`` (eps 1e-5)."""
    return ops.layer_norm(x_old + x_new, self.gain, self.bias, eps=1e-5)


def _fused_masked_loss(scores, target, lengths):
    """``masked_loss`` of notebook 04 on ``course.ops.softmax_crossentropy`` with a mask: no copy of the scores."""
    real = np.arange(target.shape[0])[:, None] < np.asarray(lengths)[None, :]  # (t, N)
    return ops.softmax_crossentropy(scores, target, mask=real)


def transformer_training(namespace: dict, announce: bool = True) -> FusedTraining:
    """Notebook 04: train with a fused layer norm and loss, each only if it agrees with the student's own."""
    norm_class = namespace.get("ResidualConnectionAndLayerNorm")

    def norm_trial(call):
        rng = np.random.default_rng(4)
        layer = norm_class(6)
        layer.gain, layer.bias = mg.tensor(1 + _draw(rng, 6)), mg.tensor(_draw(rng, 6))
        x_old, x_new = _draw(rng, 3, 2, 6), _draw(rng, 3, 2, 6)
        x_old[0, 0] = 1 + _draw(rng, 6) / 1000  # a row of small spread, where eps matters
        x_new[0, 0] = 0
        x_old, x_new = mg.tensor(x_old), mg.tensor(x_new)
        return _backward([call(layer, x_old, x_new)], [x_old, x_new, layer.gain, layer.bias], rng)

    def loss_trial(loss):
        rng = np.random.default_rng(5)
        scores = mg.tensor(_draw(rng, 5, 4, 7))
        target = rng.integers(0, 7, size=(5, 4))
        return _backward([loss(scores, target, [5, 3, 1, 4])], [scores], rng)

    return FusedTraining(
        [
            StandIn(
                "`ResidualConnectionAndLayerNorm.__call__`", norm_class, "__call__", _fused_add_and_norm, norm_trial
            ),
            StandIn("`masked_loss`", namespace, "masked_loss", _fused_masked_loss, loss_trial),
        ],
        announce,
    )
