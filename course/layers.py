"""MyNN's dense layer with a one-operation forward pass, for the notebooks' models.

``from course.layers import dense`` instead of ``from mynn.layers.dense import
dense``: the same class (a subclass), the same arguments, weights, bias and
``parameters``; only the forward pass differs, ``course.ops.affine(x, weight,
bias)`` instead of ``matmul(x, weight) + bias``: one MyGrad operation instead of
two, and one matrix product over all leading axes. The values agree with
MyNN's to float32 rounding.
"""

from __future__ import annotations

from mynn.layers.dense import dense as _mynn_dense

from course.ops import affine

__all__ = ["dense"]


class dense(_mynn_dense):  # MyNN's name, so that the notebooks' code reads as before
    """A fully-connected layer, ``x W + b`` over the last axis of ``x``: MyNN's ``dense``, fused."""

    def __call__(self, x):
        """x: shape (..., input_size) -> mygrad.Tensor, shape (..., output_size)."""
        if getattr(x, "ndim", None) is None or x.ndim < 2:
            # MyNN broadcasts a 1-d x against the (1, K) bias; keep exactly that
            return super().__call__(x)
        return affine(x, self.weight, self.bias)
