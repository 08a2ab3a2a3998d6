"""`course bench --against torch`: each of the four models timed interleaved with its PyTorch twin.

For each model (:mod:`benchmarks.pairs`): the twin gets the project
model's initial weights, both train on the same batches, and their losses
over the first ``check_steps`` steps must agree within :data:`LOSS_TOLERANCE`
before anything is timed. Then, after ``warmup`` steps of each, ``rounds``
rounds: in each, every model takes ``steps`` steps of the project and of the
twin, alternating (project first on even steps, twin first on odd ones), each
step timed alone; per round the median ms of each side and their ratio
(project / twin), then the median of the rounds' ratios. Rounds go over all
models in turn, so a change of load falls on every model. One thread:
``torch.set_num_threads(1)`` and one BLAS thread (threadpoolctl) for NumPy.

Last, ``breakdown_steps`` further steps of each side run under a profiler
(:mod:`benchmarks.breakdown`): where each side's median step goes, in
ms per category (matmul, elementwise, softmax, shape, optimizer,
bookkeeping), so that the next gap is visible without a profiler.

PyTorch is the bench's optional extra, never needed by students or grading.
"""

from __future__ import annotations

import re
import statistics
import time
from contextlib import contextmanager

import mygrad as mg
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from benchmarks import breakdown
from benchmarks.machine import load_average
from benchmarks.models import MODELS
from instructor.errors import CourseError

TORCH_PIN = "torch==2.13.0"
INSTALL_HINT = (
    f"PyTorch is not installed: `course bench --against torch` needs the bench's extra, "
    f'`pip install -e ".[torch]"` ({TORCH_PIN}).'
)
#: the losses of the project and its twin, step by step, may differ by this much relative to the loss
LOSS_TOLERANCE = 1e-5


def require_torch():
    """The torch module, or a :class:`CourseError` saying how to install the extra."""
    try:
        import torch
    except ImportError:
        raise CourseError(INSTALL_HINT) from None
    return torch


@contextmanager
def one_thread(torch):
    """One torch thread and one BLAS thread inside; torch's thread count restored after."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(1), mg.mem_guard_off:
            yield
    finally:
        torch.set_num_threads(before)


def torch_build(torch) -> dict:
    """The BLAS PyTorch was built with and the vector instructions it uses (from ``torch.__config__.show()``)."""
    try:
        text = torch.__config__.show()
    except AttributeError:
        return {}
    build = {}
    blas = re.search(r"BLAS_INFO=([^,\s]+)", text)
    if blas:
        build["blas"] = blas.group(1)
    capability = re.search(r"CPU capability usage:\s*(\S+)", text)
    if capability:
        build["cpu_capability"] = capability.group(1)
    return build


def check_losses(pair, steps: int, tolerance: float = LOSS_TOLERANCE) -> dict:
    """Train both sides ``steps`` steps on batches 0..steps-1; raise unless every pair of losses agrees.

    Agreement: ``|project - twin| <= tolerance * max(1, |project|)`` at every step.
    """
    project = [pair.project_step(i) for i in range(steps)]
    twin = [pair.twin_step(i) for i in range(steps)]
    worst = max(abs(p - t) / max(1.0, abs(p)) for p, t in zip(project, twin, strict=True))
    if not worst <= tolerance:  # NaN fails too
        listed = ", ".join(f"{p:.6f} vs {t:.6f}" for p, t in zip(project, twin, strict=True))
        raise CourseError(
            f"{pair.title}: the PyTorch twin's losses differ from the project's by up to {worst:.2e} "
            f"(tolerance {tolerance:.0e}) over the first {steps} steps ({listed}): the twin is not the same "
            "model, so timing it would compare different things."
        )
    return {
        "project_losses": [round(p, 7) for p in project],
        "twin_losses": [round(t, 7) for t in twin],
        "max_relative_difference": float(f"{worst:.3g}"),
    }


def _timed(step, i: int) -> float:
    start = time.perf_counter()
    step(i)
    return (time.perf_counter() - start) * 1000


def time_round(pair, first: int, steps: int) -> dict:
    """``steps`` interleaved steps of each side from batch ``first`` on: medians (ms) and their ratio."""
    project, twin = [], []
    for j in range(steps):
        i = first + j
        if j % 2 == 0:
            project.append(_timed(pair.project_step, i))
            twin.append(_timed(pair.twin_step, i))
        else:
            twin.append(_timed(pair.twin_step, i))
            project.append(_timed(pair.project_step, i))
    p, t = statistics.median(project), statistics.median(twin)
    return {"project_ms": round(p, 3), "torch_ms": round(t, 3), "ratio": round(p / t, 3)}


def split_step(torch, pair, first: int, steps: int, project_ms: float, torch_ms: float) -> dict:
    """Where the median steps ``project_ms`` and ``torch_ms`` go, from ``steps`` profiled steps of each side."""
    indices = range(first, first + steps)
    project = breakdown.mygrad_breakdown(pair.project_step, indices, pair.project_optimizer)
    twin = breakdown.torch_breakdown(torch, pair.twin_step, indices)
    per_op = breakdown.scaled({"seconds": {**project["operations"], "rest": project["total"]}}, project_ms)
    return {
        "profiled_steps": steps,
        "project_ms": breakdown.scaled(project, project_ms),
        "torch_ms": breakdown.scaled(twin, torch_ms),
        # the project's MyGrad operations by class (forward and backward), largest first
        "project_operations_ms": dict(
            sorted(((k, v) for k, v in per_op.items() if k != "rest"), key=lambda kv: -kv[1])
        ),
        # how many MyGrad operations of each class one step makes (forward calls; each is also walked backward)
        "project_operations_per_step": project["operations_per_step"],
        "project_operations_per_step_total": round(sum(project["operations_per_step"].values()), 1),
    }


def bench_against_torch(
    only: str | None = None,
    rounds: int = 3,
    steps: int = 50,
    warmup: int = 10,
    check_steps: int = 10,
    quiet: bool = False,
    breakdown_steps: int = 10,
) -> dict:
    """Pair every model (or the one ``only`` names), check the losses, time ``rounds`` rounds, split the step.

    ``breakdown_steps`` profiled steps per side give where the time goes (0: no breakdown).
    """
    torch = require_torch()
    from benchmarks.pairs import BUILDERS  # imports torch

    if rounds < 1 or steps < 1 or warmup < 0 or check_steps < 1 or breakdown_steps < 0:
        raise CourseError("--rounds and --steps take whole numbers of at least 1.")
    parts = [p for p in MODELS if only in (None, p.key)]
    if not parts:
        raise CourseError(f"--against torch times the models only: {', '.join(p.key for p in MODELS)}, not {only!r}.")
    pool = max(steps, check_steps + warmup)
    results = {
        "torch": torch.__version__,
        "torch_build": torch_build(torch),
        "threads": 1,
        "rounds": rounds,
        "steps_per_round": steps,
        "warmup_steps": warmup,
        "check_steps": check_steps,
        "loss_tolerance": LOSS_TOLERANCE,
        "load_before": load_average(),
        "models": {},
    }
    with one_thread(torch):
        pairs = []
        for part in parts:
            print(f"pairing {part.title} with its PyTorch twin, checking {check_steps} steps' losses ...", flush=True)
            pair = BUILDERS[part.key](part, part.library, pool)
            check = check_losses(pair, check_steps)
            for i in range(check_steps, check_steps + warmup):
                pair.project_step(i)
                pair.twin_step(i)
            pairs.append(pair)
            results["models"][pair.key] = {
                "model": pair.title,
                "parameters": pair.parameters,
                "tensors": pair.tensors,
                "twin_parameters": pair.twin_parameters,
                "twin_tensors": pair.twin_tensors,
                **check,
                "rounds": [],
            }
        done = check_steps + warmup
        bar = tqdm(total=rounds * len(pairs), desc="rounds", unit="model", leave=False, disable=quiet)
        for _ in range(rounds):
            for pair in pairs:
                figures = time_round(pair, done, steps)
                loads = load_average()
                figures["load_1min"] = loads[0] if loads else None
                results["models"][pair.key]["rounds"].append(figures)
                bar.update(1)
            done += steps
        bar.close()
        for pair in pairs:
            figures = results["models"][pair.key]
            figures["median_ratio"] = round(statistics.median(r["ratio"] for r in figures["rounds"]), 3)
            if breakdown_steps:
                figures["breakdown"] = split_step(
                    torch,
                    pair,
                    done,
                    breakdown_steps,
                    statistics.median(r["project_ms"] for r in figures["rounds"]),
                    statistics.median(r["torch_ms"] for r in figures["rounds"]),
                )
    results["load_after"] = load_average()
    return results


def table(results: dict) -> list[str]:
    """One row per model: parameters, each round's medians and ratio, the median ratio; then the load."""
    rounds = results["rounds"]
    head = f"{'model (step: forward, backward, Adam)':40s} {'params':>7s}"
    head += "".join(f"  {'round ' + str(r + 1) + ': project/torch ms':>30s}" for r in range(rounds))
    lines = [head + f"  {'median ratio':>12s}"]
    for m in results["models"].values():
        row = f"{m['model']:40s} {m['parameters']:7,d}"
        for r in m["rounds"]:
            row += f"  {r['project_ms']:9.2f} / {r['torch_ms']:7.2f} = {r['ratio']:5.2f}x"
        lines.append(row + f"  {m['median_ratio']:11.2f}x")
    loads = [r["load_1min"] for m in results["models"].values() for r in m["rounds"] if r["load_1min"] is not None]
    build = results.get("torch_build") or {}
    built = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in build.items())
    torch_said = f"torch {results['torch']}" + (f" ({built})" if built else "")
    lines.append(
        f"{torch_said}, 1 thread; {results['steps_per_round']} interleaved steps per model per round "
        f"after {results['warmup_steps']} warm-up steps; losses equal within {results['loss_tolerance']:.0e} "
        f"over the first {results['check_steps']} steps (largest difference "
        f"{max(m['max_relative_difference'] for m in results['models'].values()):.1e}); "
        f"load (1, 5, 15 min) {_loads(results['load_before'])} before, {_loads(results['load_after'])} after, "
        f"1 min {min(loads, default=0):.2f}-{max(loads, default=0):.2f} after each model's round"
    )
    if any("breakdown" in m for m in results["models"].values()):
        steps = next(m["breakdown"]["profiled_steps"] for m in results["models"].values() if "breakdown" in m)
        lines += [
            "",
            f"each side's median step split by {steps} profiled steps (shares of them, scaled to the median):",
        ]
        lines += breakdown.table(results["models"])
    return lines


def _loads(triple) -> str:
    return " ".join(f"{x:.2f}" for x in triple) if triple else "unknown"
