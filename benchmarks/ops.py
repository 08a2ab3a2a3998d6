"""Each fused operation of :mod:`course.ops` against the MyGrad composition it replaces, forward and backward.

``python -m benchmarks.ops [--repeats N] [--json FILE]``

A whole training step's time moves with the machine's load; one operation
timed many times in a row on one thread, its median taken, moves much less,
so these figures show what a fusion buys where ``course bench --against
torch`` cannot tell it from noise. Each case is one fused call and its
unfused twin on the same inputs, at the sizes the notebooks train with; a
timing is ``forward`` then ``.backward()`` of the output's sum (or of the
loss), the median of ``repeats`` calls after a warm-up, in microseconds, with
one BLAS thread and MyGrad's memory guard off (as the bench trains).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import mygrad as mg
import numpy as np
from mygrad.nnet import softmax, softmax_crossentropy
from threadpoolctl import threadpool_limits

from benchmarks.machine import blas_summary, machine_info
from course import ops


@dataclass
class Case:
    """One fused operation and the MyGrad composition it replaces, on inputs of one size."""

    name: str
    size: str  # the shapes, as the table shows them
    fused: Callable[[], mg.Tensor]
    unfused: Callable[[], mg.Tensor]


def _rng_tensors(rng, *shapes):
    return [mg.tensor(rng.normal(size=s).astype(np.float32)) for s in shapes]


def cases(seed: int = 0) -> list[Case]:
    """The fused operations at the sizes of the notebooks' training steps (04: t = T = 49, N = 32, d = 29, h = 4)."""
    rng = np.random.default_rng(seed)
    found: list[Case] = []

    (scores,) = _rng_tensors(rng, (49, 32, 4, 49))
    mask = np.tril(np.ones((49, 49), dtype=bool))[:, None, None, :].repeat(32, axis=1)  # (t, N, 1, T), causal
    found.append(
        Case(
            "softmax, masked",
            "(49, 32, 4, 49)",
            lambda: ops.softmax(scores, axis=-1, mask=mask),
            lambda: softmax(mg.where(mask, scores, ops.BLOCKED), axis=-1),
        )
    )

    (logits,) = _rng_tensors(rng, (49, 32, 29))
    target = rng.integers(0, 29, size=(49, 32))
    real = np.arange(49)[:, None] < rng.integers(1, 50, size=32)[None, :]  # (t, N): the real positions
    found.append(
        Case(
            "softmax_crossentropy, masked",
            "(49, 32, 29)",
            lambda: ops.softmax_crossentropy(logits, target, mask=real),
            lambda: softmax_crossentropy(logits[real], target[real]),
        )
    )

    x, gain, bias = _rng_tensors(rng, (49, 32, 29), (29,), (29,))

    def layer_norm_composed():
        mean = x.mean(axis=-1, keepdims=True)
        return gain * (x - mean) / mg.sqrt(x.var(axis=-1, keepdims=True) + 1e-5) + bias

    found.append(
        Case(
            "layer_norm",
            "(49, 32, 29)",
            lambda: ops.layer_norm(x, gain, bias),
            layer_norm_composed,
        )
    )

    h, w, b = _rng_tensors(rng, (49, 32, 29), (29, 64), (1, 64))
    found.append(
        Case(
            "affine",
            "(49, 32, 29) @ (29, 64) + (1, 64)",
            lambda: ops.affine(h, w, b),
            lambda: mg.matmul(h, w) + b,
        )
    )

    x_part, h0, w_hh = _rng_tensors(rng, (20, 100, 25), (1, 100, 25), (25, 25))
    x_part.data *= 0.5
    w_hh.data *= 0.2

    def recurrence_loop():
        state, states = h0[0], []
        for t in range(x_part.shape[0]):
            state = mg.tanh(x_part[t] + mg.matmul(state, w_hh))
            states.append(state)
        return mg.stack(states)

    found.append(
        Case(
            "tanh_recurrence",
            "T = 20, N = 100, D = 25",
            lambda: ops.tanh_recurrence(x_part, h0, w_hh),
            recurrence_loop,
        )
    )
    onehot = mg.tensor(np.eye(12, dtype=np.float32)[rng.integers(0, 12, size=(20, 100))])  # (T, N, C)
    w_xh, b_in = _rng_tensors(rng, (12, 25), (1, 25))
    found.append(
        Case(
            "tanh_rnn",
            "T = 20, N = 100, C = 12, D = 25",
            lambda: ops.tanh_rnn(onehot, w_xh, b_in, h0, w_hh),
            lambda: ops.tanh_recurrence(ops.affine(onehot, w_xh, b_in), h0, w_hh),
        )
    )
    step, start = mg.tensor(onehot.data[:1]), h0  # one decoder step of 02 and 03: T = 1
    found.append(
        Case(
            "tanh_rnn, one decoder step",
            "T = 1, N = 100, C = 12, D = 25",
            lambda: ops.tanh_rnn(step, w_xh, b_in, start, w_hh),
            lambda: ops.tanh_recurrence(ops.affine(step, w_xh, b_in), start, w_hh),
        )
    )
    enc_proj, enc_h, dec_h = _rng_tensors(rng, (20, 100, 25), (20, 100, 25), (1, 100, 25))  # one step of 03

    def attend_composed():
        weights = softmax(mg.einsum("tnd,snd->tsn", enc_proj, dec_h), axis=0)
        return mg.einsum("tsn,tnd->snd", weights, enc_h)

    found.append(
        Case(
            "attend",
            "T = 20, N = 100, D = 25",
            lambda: ops.attend(enc_proj, enc_h, dec_h)[0],
            attend_composed,
        )
    )
    return found


def time_call(make: Callable[[], mg.Tensor], repeats: int, warmup: int = 5) -> float:
    """Median microseconds of ``make()`` and the backward pass of its sum."""
    times = []
    for i in range(warmup + repeats):
        start = time.perf_counter()
        out = make()
        (out if out.ndim == 0 else out.sum()).backward()
        if i >= warmup:
            times.append((time.perf_counter() - start) * 1e6)
    return statistics.median(times)


def bench_ops(repeats: int = 200) -> dict:
    """Fused and unfused microseconds of every case, and their ratio."""
    figures = {}
    with threadpool_limits(1), mg.mem_guard_off:
        for case in cases():
            fused, unfused = [], []
            for _ in range(3):  # alternate, so that a change of load falls on both
                fused.append(time_call(case.fused, repeats // 3 or 1))
                unfused.append(time_call(case.unfused, repeats // 3 or 1))
            f, u = statistics.median(fused), statistics.median(unfused)
            figures[case.name] = {"size": case.size, "fused_us": round(f, 1), "unfused_us": round(u, 1)}
            figures[case.name]["unfused_over_fused"] = round(u / f, 2)
    return figures


def table(figures: dict) -> list[str]:
    """One row per fused operation: its size, fused and unfused microseconds and the speed-up."""
    lines = [f"{'operation (forward + backward, 1 thread)':42s} {'size':34s} {'fused us':>9s} {'MyGrad us':>10s}  x"]
    for name, f in figures.items():
        lines.append(
            f"{name:42s} {f['size']:34s} {f['fused_us']:9.1f} {f['unfused_us']:10.1f}  {f['unfused_over_fused']:.2f}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ops", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200, help="timed calls of each side (default: %(default)s)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    machine = machine_info()
    figures = bench_ops(args.repeats)
    print("\n".join(table(figures)))
    print(f"machine: {machine['cpu']}, {machine['cores']} cores, load {machine['load_average']}")
    print(f"BLAS: {blas_summary(machine)} (1 thread here)")
    if args.json:
        args.json.write_text(json.dumps({"machine": machine, "ops": figures}, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
