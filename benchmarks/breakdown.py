"""Where a training step's time goes, by kind of operation, for the project (MyGrad) and its twin (PyTorch).

``course bench --against torch`` times whole steps; this module splits a
step into the categories of :data:`CATEGORIES`, so that the next gap between
the two sides shows without a profiler:

* **MyGrad**: every :class:`mygrad.operation_base.Operation` subclass's
  ``__call__`` (forward) and ``backward`` is wrapped by a timer for the
  duration of :func:`mygrad_profile`; the optimiser's ``step`` too. The time
  spent inside them is the NumPy work of the operation (plus a few lines of
  Python); the rest of the step (making tensors, building, walking and
  clearing the graph, the model's own Python) is *bookkeeping*.
* **PyTorch**: ``torch.profiler`` records every ATen operation; each one's
  *self* CPU time (its children excluded, so nothing counts twice) goes to the
  category of its name, and any operation run inside ``Optimizer.step`` to
  *optimizer*. The rest (Python, the autograd engine, the dispatcher between
  operations) is bookkeeping.

Both profilers slow a step down a little (a timer pair per MyGrad operation,
an event per ATen operation), so the breakdown is reported as each
category's share of the profiled steps, scaled to the unprofiled median step
of the timing rounds: the categories add up to that median.
"""

from __future__ import annotations

import functools
import time
from collections import defaultdict
from collections.abc import Callable
from contextlib import contextmanager

from mygrad.operation_base import Operation

#: The categories, in the order of the table.
CATEGORIES = ("matmul", "elementwise", "softmax", "shape", "optimizer", "bookkeeping")

CATEGORY_MEANING = {
    "matmul": (
        "matrix products (matmul, einsum, course.ops.affine with its bias, course.ops.tanh_recurrence and "
        "tanh_rnn with their tanh, course.ops.attend with its softmax; mm, bmm, addmm)"
    ),
    "elementwise": "elementwise arithmetic and reductions (+, *, tanh, relu, sum, mean, var, ...)",
    "softmax": "softmax and its mask, cross-entropy, layer norm",
    "shape": "indexing, reshaping, joining, copying (getitem, reshape, concatenate, stack, cat, ...)",
    "optimizer": "Adam's update of every parameter",
    "bookkeeping": "everything else: making tensors, the graph and its walk, the model's Python",
}

# --- MyGrad: operation classes by name ---
_MYGRAD_MATMUL = {
    "MatMul",
    "EinSum",
    "Tensordot",
    "MultiMatMul",
    "Dot",
    "Affine",
    "TanhRecurrence",
    "TanhRNN",
    "Attend",
}
_MYGRAD_SOFTMAX = {
    "Softmax",
    "MaskedSoftmax",
    "LogSoftmax",
    "SoftmaxCrossEntropy",
    "LayerNorm",
    "FocalLoss",
    "MarginRanking",
}
_MYGRAD_SHAPE = {
    "GetItem",
    "SetItem",
    "Reshape",
    "Flatten",
    "Squeeze",
    "ExpandDims",
    "Ravel",
    "Transpose",
    "MoveAxis",
    "SwapAxes",
    "Roll",
    "BroadcastTo",
    "Concatenate",
    "Stack",
    "Tensor_Transpose_Property",
    "AtLeast1D",
    "AtLeast2D",
    "AtLeast3D",
    "Where",
    "Copy",
    "Positive",
}


def mygrad_category(op_name: str) -> str:
    """The category of a MyGrad operation class (``"elementwise"`` for any arithmetic or reduction)."""
    if op_name in _MYGRAD_MATMUL:
        return "matmul"
    if op_name in _MYGRAD_SOFTMAX:
        return "softmax"
    if op_name in _MYGRAD_SHAPE:
        return "shape"
    return "elementwise"


# --- PyTorch: ATen operations by name (without the "aten::" prefix) ---
_TORCH_MATMUL = {
    "mm",
    "bmm",
    "addmm",
    "matmul",
    "einsum",
    "linear",
    "dot",
    "baddbmm",
    "addbmm",
    "tensordot",
    "mv",
    "addmv",
    "_unsafe_view_mm",
}
_TORCH_SOFTMAX = {
    "softmax",
    "_softmax",
    "_softmax_backward_data",
    "log_softmax",
    "_log_softmax",
    "_log_softmax_backward_data",
    "cross_entropy_loss",
    "nll_loss",
    "nll_loss_forward",
    "nll_loss_backward",
    "nll_loss_nd",
    "layer_norm",
    "native_layer_norm",
    "native_layer_norm_backward",
    "masked_fill",
    "masked_fill_",
}
_TORCH_SHAPE = {
    "view",
    "reshape",
    "_reshape_alias",
    "_unsafe_view",
    "cat",
    "stack",
    "index",
    "index_select",
    "slice",
    "select",
    "expand",
    "permute",
    "transpose",
    "t",
    "unsqueeze",
    "squeeze",
    "contiguous",
    "clone",
    "copy_",
    "as_strided",
    "unbind",
    "narrow",
    "flatten",
    "split",
    "chunk",
    "where",
    "empty",
    "empty_like",
    "empty_strided",
    "zeros",
    "zeros_like",
    "new_zeros",
    "new_empty",
    "new_empty_strided",
    "fill_",
    "zero_",
    "ones",
    "ones_like",
    "to",
    "_to_copy",
    "detach",
    "alias",
    "lift_fresh",
    "resize_",
    "slice_backward",
    "select_backward",
    "index_put_",
    "_index_put_impl_",
    "scatter",
    "scatter_",
    "one_hot",
    "embedding",
    "arange",
    "tril",
    "expand_as",
    "view_as",
    "_unsafe_index",
    "split_with_sizes",
}


def torch_category(name: str) -> str | None:
    """The category of a profiler event's name; None for an event that is not an ATen operation."""
    if not name.startswith("aten::"):
        return None
    op = name[len("aten::") :]
    if op in _TORCH_MATMUL:
        return "matmul"
    if op in _TORCH_SOFTMAX:
        return "softmax"
    if op in _TORCH_SHAPE:
        return "shape"
    return "elementwise"


#: ATen operations made of others (einsum of permute, reshape and bmm; linear of t and addmm; ...): all the
#: time of what they call counts to their own category, as MyGrad's einsum or softmax does its copies itself
_TORCH_COMPOSITE = {
    "einsum",
    "linear",
    "matmul",
    "tensordot",
    "softmax",
    "log_softmax",
    "cross_entropy_loss",
    "nll_loss_nd",
    "layer_norm",
}


def _torch_event_category(event) -> str | None:
    """The category an ATen event's self time counts to: the optimiser's, its outermost composite's, or its own."""
    if event.name.startswith("Optimizer.step"):  # the optimiser's own Python, around its ATen operations
        return "optimizer"
    category = torch_category(event.name)
    if category is None:
        return None
    outer, parent = event, event.cpu_parent
    while parent is not None:
        if parent.name.startswith("Optimizer.step"):
            return "optimizer"
        if parent.name.startswith("aten::") and parent.name[len("aten::") :] in _TORCH_COMPOSITE:
            outer = parent
        parent = parent.cpu_parent
    return torch_category(outer.name)


def _operation_classes() -> list[type]:
    """MyGrad's ``Operation`` and every class below it."""
    seen: list[type] = []
    todo: list[type] = [Operation]
    while todo:
        cls = todo.pop()
        if cls not in seen:
            seen.append(cls)
            todo.extend(cls.__subclasses__())
    return seen


class _OpTimer:
    """Seconds spent inside MyGrad operations and how many were made, by operation class, outermost call only."""

    def __init__(self):
        self.seconds: dict[str, float] = defaultdict(float)
        #: forward calls, i.e. operations made (each one a node of the graph the backward pass walks)
        self.calls: dict[str, int] = defaultdict(int)
        self._depth = 0

    def wrap(self, fn: Callable, forward: bool) -> Callable:
        @functools.wraps(fn)
        def timed(op, *args, **kwargs):
            if self._depth:  # a subclass calling its base's method: counted once, by the outermost call
                return fn(op, *args, **kwargs)
            self._depth = 1
            if forward:
                self.calls[type(op).__name__] += 1
            start = time.perf_counter()
            try:
                return fn(op, *args, **kwargs)
            finally:
                self.seconds[type(op).__name__] += time.perf_counter() - start
                self._depth = 0

        return timed


@contextmanager
def mygrad_profile():
    """Inside: every MyGrad operation's forward and backward are timed and counted.

    Yields the timer: ``.seconds`` and ``.calls`` (operations made), by operation class.
    """
    timer = _OpTimer()
    patched = []
    for cls in _operation_classes():
        for name in ("__call__", "backward"):
            if name in cls.__dict__:
                patched.append((cls, name, cls.__dict__[name]))
                setattr(cls, name, timer.wrap(cls.__dict__[name], forward=name == "__call__"))
    try:
        yield timer
    finally:
        for cls, name, original in reversed(patched):
            setattr(cls, name, original)


def mygrad_breakdown(step: Callable[[int], object], indices, optimizer) -> dict:
    """Seconds per category over the steps ``step(i)`` for ``i`` in ``indices`` (MyGrad side), and the total.

    Also ``operations`` (seconds by operation class) and ``operations_per_step`` (how many
    operations of each class one step makes, on average over the steps).
    """
    optimizer_seconds: list[float] = []
    original_step = optimizer.step

    def timed_step(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original_step(*args, **kwargs)
        finally:
            optimizer_seconds.append(time.perf_counter() - start)

    optimizer.step = timed_step
    try:
        with mygrad_profile() as timer:
            start = time.perf_counter()
            for i in indices:
                step(i)
            total = time.perf_counter() - start
    finally:
        del optimizer.step  # the instance attribute: the class's method shows through again
    seconds = dict.fromkeys(CATEGORIES, 0.0)
    for op_name, s in timer.seconds.items():
        seconds[mygrad_category(op_name)] += s
    seconds["optimizer"] = sum(optimizer_seconds)  # MyNN's Adam runs NumPy only: no MyGrad operation inside
    seconds["bookkeeping"] = max(0.0, total - sum(seconds.values()))
    n = max(1, len(indices))
    per_step = {name: round(calls / n, 1) for name, calls in sorted(timer.calls.items(), key=lambda kv: -kv[1])}
    return {"seconds": seconds, "total": total, "operations": dict(timer.seconds), "operations_per_step": per_step}


def torch_breakdown(torch, step: Callable[[int], object], indices) -> dict:
    """Seconds per category over the steps ``step(i)`` for ``i`` in ``indices`` (PyTorch side), and the total."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        start = time.perf_counter()
        for i in indices:
            step(i)
        total = time.perf_counter() - start
    seconds = dict.fromkeys(CATEGORIES, 0.0)
    for e in prof.events():
        category = _torch_event_category(e)
        if category is not None:
            seconds[category] += e.self_cpu_time_total / 1e6
    seconds["bookkeeping"] = max(0.0, total - sum(seconds.values()))
    return {"seconds": seconds, "total": total}


def scaled(breakdown: dict, median_ms: float) -> dict:
    """Each category's share of the profiled steps, in ms of the unprofiled median step ``median_ms``."""
    total = sum(breakdown["seconds"].values()) or 1.0
    return {c: round(median_ms * s / total, 3) for c, s in breakdown["seconds"].items()}


def table(models: dict) -> list[str]:
    """One block per model: ms per category for the project and the twin, and their difference."""
    lines = [f"{'where the time goes (ms per step)':40s}" + "".join(f" {c:>11s}" for c in CATEGORIES)]
    for m in models.values():
        split = m.get("breakdown")
        if not split:
            continue
        project, twin = split["project_ms"], split["torch_ms"]
        lines.append(f"{m['model']:40s}")
        lines.append(f"{'  project (MyGrad)':40s}" + "".join(f" {project[c]:11.2f}" for c in CATEGORIES))
        lines.append(f"{'  twin (PyTorch)':40s}" + "".join(f" {twin[c]:11.2f}" for c in CATEGORIES))
        lines.append(f"{'  project - twin':40s}" + "".join(f" {project[c] - twin[c]:+11.2f}" for c in CATEGORIES))
        counts = split.get("project_operations_per_step")
        if counts:
            listed = ", ".join(f"{name} {n:g}" for name, n in counts.items())
            total = split["project_operations_per_step_total"]
            lines.append(f"{'  MyGrad operations per step':40s} {total:g}: {listed}")
    lines.append("; ".join(f"{c}: {CATEGORY_MEANING[c]}" for c in CATEGORIES))
    return lines
