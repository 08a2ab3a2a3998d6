"""The four models of the course, timed and trained until the notebook's promise holds.

The models are the reference solutions themselves: each part loads the
``library`` cells of a solution notebook
(:func:`instructor.authoring.library.load_library`) and trains exactly that
code, so there is no second copy to drift. Median ms per training step
(forward, backward, Adam) over repeated timed runs; then a fresh model
trained with a fixed seed until the promise holds (or the notebook's own
number of steps, or the time cap, is reached): steps, training seconds and
the accuracy reached. Sizes, batch, rates and steps are the ``SETTINGS`` of
the notebook's library cells.
"""

from __future__ import annotations

import contextlib
import functools
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import mygrad as mg
import numpy as np
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from course import fused
from instructor.authoring.library import load_library
from instructor.paths import REPO_ROOT, SOLUTIONS

SEED = 0


@dataclass
class Trainer:
    """What a model part needs from a notebook: one training step and one evaluation."""

    step: Callable[[], None]
    evaluate: Callable[[], dict]  # -> {"reached": bool, ...figures}


@dataclass
class ModelPart:
    """One model of the bench; its sizes and step counts come from the notebook's ``SETTINGS``."""

    key: str
    #: formatted with the notebook's ``SETTINGS``, e.g. ``"RNN, D={dim_recurrent}, batch {batch_size}"``
    title_template: str
    assignment: str
    promise: str
    make: Callable[[object], Trainer]  # library module -> Trainer
    eval_every: int
    #: step cap of the run to the promise; None: the notebook's own ``SETTINGS["n_steps"]``
    max_steps: int | None = None
    time_cap: float = 300.0
    #: further step timings (label -> trainer factory), e.g. another batch size
    also_time: dict = field(default_factory=dict)
    #: the notebook's ``with fused:`` block (:mod:`course.fused`): its full-mode training runs the stand-ins that
    #: agree with the reference's code, so the bench times the same; None where the notebook has none (02)
    fused: Callable | None = None

    def stand_ins(self) -> contextlib.AbstractContextManager:
        """The notebook's ``with fused:`` block on its library module (a block that changes nothing for 02)."""
        if self.fused is None:
            return contextlib.nullcontext()
        block = self.fused(vars(self.library), announce=False)
        if block.refused:  # the reference's own code must agree with every stand-in (tests/course/test_fused.py)
            raise RuntimeError(f"{self.assignment}: the reference disagrees with course.fused: {block.refused}")
        return block

    @property
    def library(self):
        """The notebook's library cells as a module (loaded once per bench run)."""
        return _library(self.assignment)

    @property
    def title(self) -> str:
        return self.title_template.format(**self.library.SETTINGS)

    @property
    def step_cap(self) -> int:
        return self.max_steps if self.max_steps is not None else int(self.library.SETTINGS["n_steps"])


@functools.cache
def _library(assignment: str):
    # one module per notebook: the title, the trainers and the step cap all read its SETTINGS
    return load_library(assignment)


def _first(out):
    return out[0] if isinstance(out, tuple) else out


#: The lengths (in digits) at which 01-03 measure whole-sequence accuracy: the x axis of their plots.
EVAL_LENGTHS = (1, 20)


def _recurrent(cls_name: str, reached: Callable[[np.ndarray], bool], n_eval: int = 1000):
    """Trainer factory for the digit-reversal models of 01-03, with the notebook's ``SETTINGS``.

    The model is ``cls_name(C, SETTINGS["dim_recurrent"], K)`` with C = K = 12
    tokens; each step is one Adam step (rate ``SETTINGS["learning_rate"]``, or
    the notebook's ``learning_rate(step, n_steps)`` where it has one, as 03 and 04
    do) on a batch of ``SETTINGS["batch_size"]`` sequences of ``seq_len_min`` to
    ``seq_len_max`` digits, as in the notebook's training cell.
    """

    def make(lib) -> Trainer:
        settings = lib.SETTINGS
        n_tokens = lib.END_TOKEN + 1  # the ten digits, <S> and <E>
        np.random.seed(SEED)
        model = getattr(lib, cls_name)(n_tokens, settings["dim_recurrent"], n_tokens)
        optimizer = lib.Adam(model.parameters, learning_rate=settings["learning_rate"])
        schedule = getattr(lib, "learning_rate", None)  # 03's rate schedule, as its training cell uses it
        taken = 0

        def step():
            nonlocal taken
            if schedule is not None:
                optimizer.learning_rate = schedule(taken, settings["n_steps"])
            taken += 1
            x, target, _ = lib.generate_batch(settings["seq_len_min"], settings["seq_len_max"], settings["batch_size"])
            loss, _ = lib.loss_and_accuracy(_first(model(x)), target)
            loss.backward()
            optimizer.step()

        def evaluate():
            acc = np.asarray(lib.accuracy_by_length(lambda x: _first(model(x)), *EVAL_LENGTHS, n_eval))
            return {"reached": bool(reached(acc)), "accuracy_by_length": [round(float(a), 4) for a in acc]}

        return Trainer(step, evaluate)

    return make


def _rnn_fails_as_promised(acc: np.ndarray) -> bool:
    # the curve the notebook explains: length 1 is solved, beyond 2 it is chance
    return acc[0] >= 0.95 and acc[2:].max() <= 0.2


#: Everyday sentences written for the course (not from any corpus), one per line.
SENTENCES = REPO_ROOT / "data" / "sentences.txt"
#: Length bands of the sentence table (the bands of issue 10's table).
SENTENCE_BANDS = ((1, 12), (13, 24), (25, 36), (37, 64), (65, 1000))


def sentence_table(lib, model, path=SENTENCES) -> dict:
    """Per-character and whole-message accuracy on the sentences of ``path``, by length band."""
    sentences = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    guesses = lib.decrypt_many([lib.cipher(s, lib.KEY) for s in sentences], model)
    table = {}
    for low, high in SENTENCE_BANDS:
        pairs = [(g, s) for g, s in zip(guesses, sentences, strict=True) if low <= len(s) <= high]
        if pairs:
            right = sum(
                a == b for g, s in pairs for a, b in zip(g, s, strict=False)
            )  # a guess may be shorter or longer
            table[f"{low}-{high}"] = {
                "messages": len(pairs),
                "per_character": round(right / sum(len(s) for _, s in pairs), 4),
                "whole_right": sum(g == s for g, s in pairs),
            }
    return table


def _transformer(batch: int | None = None, n_eval: int = 300):
    """Trainer factory for 04, with the notebook's own settings (``SETTINGS`` of its library cells).

    ``batch`` overrides the batch size for an extra timing. The promise: in every length band of the
    held-out messages, >= 99.5 % per character and >= 95 % whole messages right.
    """

    def make(lib) -> Trainer:
        np.random.seed(SEED)
        data = lib.load_cipher_data(str(SOLUTIONS / "04_transformer" / "cipher_data.npz"))
        settings = lib.SETTINGS
        model = lib.new_model()
        optimizer = lib.Adam(model.parameters, learning_rate=settings["learning_rate"])
        rng = np.random.default_rng(SEED)
        done = [0]

        def step():
            optimizer.learning_rate = lib.learning_rate(done[0], settings["n_steps"])
            lib.training_step(model, optimizer, rng, data.train_plain, batch_size=batch)
            done[0] += 1

        def evaluate():
            bands = lib.accuracy_by_band(model, data.held_out_plain, n=n_eval)
            reached = all(c >= 0.995 and w >= 0.95 for c, w in bands.values())
            result = {
                "reached": reached,
                "bands": {
                    f"{lo}-{hi}": {"per_character": round(c, 5), "whole_message": round(w, 4)}
                    for (lo, hi), (c, w) in bands.items()
                },
            }
            last = done[0] >= settings["n_steps"]  # the bench stops here either way
            if (reached or last) and SENTENCES.is_file():
                result["own_sentences"] = sentence_table(lib, model)
            return result

        return Trainer(step, evaluate)

    return make


MODELS = [
    ModelPart(
        "rnn",
        "RNN, D={dim_recurrent}, batch {batch_size}",
        "01_rnn",
        "length 1 solved, chance beyond length 2",
        _recurrent("RNN", _rnn_fails_as_promised),
        eval_every=500,
        fused=fused.rnn_training,
    ),
    ModelPart(
        "seq2seq",
        "Seq2Seq, D={dim_recurrent}, batch {batch_size}",
        "02_seq2seq",
        "100 % at lengths <= 5",
        _recurrent("Seq2Seq", lambda acc: acc[:5].min() >= 1.0),
        eval_every=500,
    ),
    ModelPart(
        "attention",
        "Attention, D={dim_recurrent}, batch {batch_size}",
        "03_attention",
        ">= 99 % at every length 1-20",
        _recurrent("AttentionSeq2Seq", lambda acc: acc.min() >= 0.99),
        eval_every=500,
        fused=fused.attention_training,
    ),
    ModelPart(
        "transformer",
        "Transformer, batch {batch_size}, lengths 1-48",
        "04_transformer",
        ">= 99.5 % per character and >= 95 % whole messages, held out, lengths 1-12, 13-24, 25-48, 49-100",
        _transformer(),
        eval_every=400,
        time_cap=600.0,
        also_time={"batch 10": _transformer(10)},
        fused=fused.transformer_training,
    ),
]


def time_steps(step: Callable[[], None], warmup: int = 10, steps: int = 50, repeats: int = 3) -> dict:
    """Median and spread of single training steps, after a warm-up."""
    for _ in range(warmup):
        step()
    times = []
    for _ in range(repeats):
        for _ in range(steps):
            start = time.perf_counter()
            step()
            times.append((time.perf_counter() - start) * 1000)
    return {
        "median_ms": round(statistics.median(times), 2),
        "p10_ms": round(float(np.percentile(times, 10)), 2),
        "p90_ms": round(float(np.percentile(times, 90)), 2),
        "timed_steps": len(times),
    }


def in_full_mode(part: ModelPart, trainer: Trainer) -> Trainer:
    """The trainer with each step inside the notebook's ``with fused:`` block, as its full-mode training cell runs."""
    block = part.stand_ins()

    def step():
        with block:
            trainer.step()

    return Trainer(step, trainer.evaluate)  # evaluation outside the block, as in the notebook


def bench_model(part: ModelPart, quiet: bool = False) -> dict:
    """ms/step, then steps and seconds until the promise holds."""
    lib = part.library
    with threadpool_limits(1), mg.mem_guard_off:
        timing = time_steps(in_full_mode(part, part.make(lib)).step)
        for label, make in part.also_time.items():
            timing[f"median_ms_{label.replace(' ', '_')}"] = time_steps(in_full_mode(part, make(lib)).step)["median_ms"]
        trainer = in_full_mode(part, part.make(lib))  # fresh weights for the run to the promise
        trained, seconds, result = 0, 0.0, {"reached": False}
        bar = tqdm(total=part.step_cap, desc=f"{part.key:11s}", unit="step", leave=False, disable=quiet)
        while trained < part.step_cap and seconds < part.time_cap:
            start = time.perf_counter()
            for _ in range(part.eval_every):
                trainer.step()
            seconds += time.perf_counter() - start
            trained += part.eval_every
            bar.update(part.eval_every)
            with mg.no_autodiff:
                result = trainer.evaluate()
            bar.set_postfix_str("promise met" if result["reached"] else "training")
            if result["reached"]:
                break
        bar.close()
    return {
        "model": part.title,
        "assignment": part.assignment,
        **timing,
        "promise": part.promise,
        "steps": trained,
        "train_seconds": round(seconds, 1),
        **result,
    }
