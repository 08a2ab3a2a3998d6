"""Parameter counts, and the project's initial weights copied into a twin.

A twin lists its parameters in the order of the project model's
``parameters`` tuple (:meth:`in_project_order`), each with a flag saying
whether it is stored transposed: MyNN's ``dense`` keeps its weight as
(in, out) and its bias as (1, out), ``torch.nn.Linear`` as (out, in) and
(out,). Nothing else changes between the two.
"""

from __future__ import annotations

import numpy as np
import torch

from instructor.errors import CourseError


def count_parameters(params) -> tuple[int, int]:
    """(tensors, values) of a sequence of MyGrad or torch tensors."""
    params = list(params)
    return len(params), sum(int(np.prod(p.shape)) for p in params)


def _fitted(array: np.ndarray, transposed: bool, shape: tuple[int, ...]) -> np.ndarray | None:
    """``array`` (one project parameter) in the twin's layout ``shape``, or None if it does not fit."""
    array = array.T if transposed else array
    if array.shape == shape:
        return array
    if array.ndim == len(shape) + 1 and array.shape[0] == 1 and array.shape[1:] == shape:
        return array[0]  # MyNN's (1, out) bias -> torch's (out,)
    return None


def copy_weights(project_params, twin, name: str) -> None:
    """Copy the project model's weights (MyGrad tensors, float32) into ``twin``, in place.

    Raises :class:`CourseError` when the two models differ in the number of
    tensors, in any tensor's shape or in the total number of values.
    """
    project_params = list(project_params)
    pairs = list(twin.in_project_order())
    mine, theirs = count_parameters(project_params), count_parameters(p for p, _ in pairs)
    # every tensor of the twin must be in its list, once
    listed = {id(p) for p, _ in pairs}
    if len(listed) != len(pairs) or listed != {id(p) for p in twin.parameters()}:
        raise CourseError(f"the PyTorch twin of {name} lists its parameters wrongly (a bug of the twin).")
    if mine != theirs:
        raise CourseError(
            f"the PyTorch twin of {name} has {theirs[1]} parameters in {theirs[0]} tensors, "
            f"the project's model {mine[1]} in {mine[0]}: they are not the same architecture."
        )
    with torch.no_grad():
        for i, (source, (target, transposed)) in enumerate(zip(project_params, pairs, strict=True)):
            array = np.asarray(source.data)
            if array.dtype != np.float32:
                raise CourseError(f"{name}: the project's parameter {i} is {array.dtype}, not float32.")
            fitted = _fitted(array, transposed, tuple(target.shape))
            if fitted is None:
                raise CourseError(
                    f"{name}: the project's parameter {i} has shape {array.shape}, "
                    f"its twin's {tuple(target.shape)}{' (transposed)' if transposed else ''}."
                )
            target.copy_(torch.from_numpy(np.ascontiguousarray(fitted)))
