"""Each of the four models with its PyTorch twin: one model, two implementations, the same batches.

A :class:`Pair` holds the project's model (built by the solution notebook's
library cells, with its ``SETTINGS`` and the bench's seed, as in
:mod:`benchmarks.models`), its twin (:mod:`benchmarks.twins`)
with the project's initial weights copied in, an Adam optimiser for each
with the notebook's rate, and a pool of batches drawn once by the notebook's
own batch code. ``project_step(i)`` and ``twin_step(i)`` each train on batch
``i`` of the pool (forward, loss, backward, Adam) and return the loss; batch
making is outside both, so the two time the same work.

The project's step is the body of the bench's step (``models.py``): for
01-03 ``loss_and_accuracy(model(x))``, ``backward``, ``Adam.step``; for 04
the body of the notebook's ``training_step`` (model, ``masked_loss``,
``backward``, ``Adam.step``), with the learning rate of its first steps; each
inside the notebook's ``with fused:`` block (:mod:`course.fused`), as its
full-mode training cell runs it.
Importing this module imports torch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional as F

from benchmarks.models import SEED, ModelPart
from benchmarks.twins import (
    TwinAttentionSeq2Seq,
    TwinRNN,
    TwinSeq2Seq,
    TwinTransformer,
    copy_weights,
    count_parameters,
)
from benchmarks.twins.transformer import masked_loss as twin_masked_loss
from instructor.paths import SOLUTIONS


@dataclass
class Pair:
    """One model of the course and its twin, ready to train on the same pool of batches."""

    key: str
    title: str
    project_step: Callable[[int], float]  # batch index -> loss
    twin_step: Callable[[int], float]
    pool: int  # batches in the pool; step i trains on batch i % pool
    parameters: int  # values of the project's model ...
    tensors: int
    twin_parameters: int  # ... and of its twin, counted apart (copy_weights refuses a twin where they differ)
    twin_tensors: int
    project_optimizer: object = None  # the two optimisers, for the breakdown of a step (breakdown.py)
    twin_optimizer: object = None


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def _adam_twin(twin, learning_rate: float) -> torch.optim.Adam:
    """torch's Adam with MyNN's defaults (betas 0.9, 0.999; eps 1e-8 added to sqrt(v_hat))."""
    return torch.optim.Adam(twin.parameters(), lr=learning_rate, betas=(0.9, 0.999), eps=1e-8)


TWIN_CLASSES = {"RNN": TwinRNN, "Seq2Seq": TwinSeq2Seq, "AttentionSeq2Seq": TwinAttentionSeq2Seq}


def recurrent_pair(part: ModelPart, lib, cls_name: str, pool: int) -> Pair:
    """01-03: ``cls_name(C, D, K)`` with C = K = 12 tokens, D = SETTINGS["dim_recurrent"].

    Batches: ``lib.generate_batch(seq_len_min, seq_len_max, batch_size)``, one-hot
    x (T, N, 12) float32 and target (T, N) int64, T drawn per batch.
    """
    settings = lib.SETTINGS
    n_tokens = lib.END_TOKEN + 1
    np.random.seed(SEED)
    model = getattr(lib, cls_name)(n_tokens, settings["dim_recurrent"], n_tokens)
    optimizer = lib.Adam(model.parameters, learning_rate=settings["learning_rate"])
    twin = TWIN_CLASSES[cls_name](n_tokens, settings["dim_recurrent"], n_tokens)
    copy_weights(model.parameters, twin, part.title)
    twin_optimizer = _adam_twin(twin, settings["learning_rate"])

    np.random.seed(SEED + 1)
    batches = [
        lib.generate_batch(settings["seq_len_min"], settings["seq_len_max"], settings["batch_size"])[:2]
        for _ in range(pool)
    ]
    twin_batches = [(torch.from_numpy(x), torch.from_numpy(target.astype(np.int64))) for x, target in batches]

    stand_ins = part.stand_ins()  # the notebook's `with fused:` block, as its full-mode training runs

    def project_step(i: int) -> float:
        x, target = batches[i % pool]
        with stand_ins:
            loss, _ = lib.loss_and_accuracy(_first(model(x)), target)
            loss.backward()
        optimizer.step()
        return loss.item()

    def twin_step(i: int) -> float:
        x, target = twin_batches[i % pool]
        twin_optimizer.zero_grad(set_to_none=True)
        scores = _first(twin(x))  # (T, N, K)
        loss = F.cross_entropy(scores.reshape(-1, scores.shape[-1]), target.reshape(-1))
        # the project's loss_and_accuracy also counts whole sequences right; so does the twin
        (scores.detach().argmax(dim=-1) == target).all(dim=0).float().mean().item()
        loss.backward()
        twin_optimizer.step()
        return loss.item()

    return _pair(part, project_step, twin_step, pool, model, twin, optimizer, twin_optimizer)


def transformer_pair(part: ModelPart, lib, pool: int, twin_class=TwinTransformer, twin_loss=twin_masked_loss) -> Pair:
    """04: ``lib.new_model()`` and its twin; batches of ``SETTINGS["batch_size"]`` messages.

    ``twin_class`` and ``twin_loss``: another twin of the same parameters and its masked loss
    (the second, independently written twin of :mod:`benchmarks.twins.transformer_sdpa`).

    Batches: ``lib.make_batch(lib.sample_messages(...))`` from the training texts
    of ``cipher_data.npz``: source and decoder input (T, N, 29) float32,
    target (T, N) int64, lengths (N,) int64, T one quarter of 1-48 plus one.
    """
    settings = lib.SETTINGS
    np.random.seed(SEED)
    model = lib.new_model()
    optimizer = lib.Adam(model.parameters, learning_rate=settings["learning_rate"])
    twin = twin_class(lib.N_SYMBOLS, settings["ff_units"], settings["n_enc"], settings["n_dec"], settings["n_head"])
    copy_weights(model.parameters, twin, part.title)
    twin_optimizer = _adam_twin(twin, settings["learning_rate"])

    data = lib.load_cipher_data(str(SOLUTIONS / "04_transformer" / "cipher_data.npz"))
    rng = np.random.default_rng(SEED)
    batches = [
        lib.make_batch(
            lib.sample_messages(rng, data.train_plain, settings["batch_size"], random_share=settings["random_share"])
        )
        for _ in range(pool)
    ]
    twin_batches = [tuple(torch.from_numpy(a) for a in batch) for batch in batches]

    stand_ins = part.stand_ins()  # the notebook's `with fused:` block, as its full-mode training runs

    def project_step(i: int) -> float:
        source, decoder_input, target, lengths = batches[i % pool]
        with stand_ins:
            scores = model(source, decoder_input, lengths, lengths)
            loss = lib.masked_loss(scores, target, lengths)
            loss.backward()
        optimizer.step()
        return loss.item()

    def twin_step(i: int) -> float:
        source, decoder_input, target, lengths = twin_batches[i % pool]
        twin_optimizer.zero_grad(set_to_none=True)
        scores = twin(source, decoder_input, lengths, lengths)
        loss = twin_loss(scores, target, lengths)
        loss.backward()
        twin_optimizer.step()
        return loss.item()

    return _pair(part, project_step, twin_step, pool, model, twin, optimizer, twin_optimizer)


def _pair(part: ModelPart, project_step, twin_step, pool: int, model, twin, optimizer, twin_optimizer) -> Pair:
    tensors, values = count_parameters(model.parameters)
    twin_tensors, twin_values = count_parameters(twin.parameters())
    return Pair(
        part.key,
        part.title,
        project_step,
        twin_step,
        pool,
        values,
        tensors,
        twin_values,
        twin_tensors,
        optimizer,
        twin_optimizer,
    )


#: model key -> how to pair it: (part, library module, pool size) -> Pair
BUILDERS: dict[str, Callable[..., Pair]] = {
    "rnn": lambda part, lib, pool: recurrent_pair(part, lib, "RNN", pool),
    "seq2seq": lambda part, lib, pool: recurrent_pair(part, lib, "Seq2Seq", pool),
    "attention": lambda part, lib, pool: recurrent_pair(part, lib, "AttentionSeq2Seq", pool),
    "transformer": transformer_pair,
}
