"""04's second, independently written PyTorch twin: the same model as the project's and as the first twin."""

from __future__ import annotations

import pytest

from benchmarks import against_torch
from benchmarks.models import MODELS
from instructor.errors import CourseError

torch = pytest.importorskip("torch")

from benchmarks import pairs  # noqa: E402  (imports torch)
from benchmarks.twins import transformer_sdpa  # noqa: E402

TRANSFORMER = next(m for m in MODELS if m.key == "transformer")


def _second_pair():
    return pairs.transformer_pair(
        TRANSFORMER,
        TRANSFORMER.library,
        4,
        twin_class=transformer_sdpa.SdpaTransformer,
        twin_loss=transformer_sdpa.masked_loss,
    )


def test_second_twin_trains_to_the_projects_losses():
    """Over 6 steps of Adam on padded batches, the second twin's losses equal the project's (and the first twin's)?"""
    with against_torch.one_thread(torch):
        second, first = _second_pair(), pairs.transformer_pair(TRANSFORMER, TRANSFORMER.library, 4)
        assert (second.parameters, second.tensors) == (second.twin_parameters, second.twin_tensors)
        checked = against_torch.check_losses(second, 6)
        first_twin = [first.twin_step(i) for i in range(6)]
    assert checked["max_relative_difference"] <= 1e-5
    assert checked["twin_losses"] == pytest.approx(first_twin, rel=1e-5)


def test_second_twin_with_a_wrong_mask_is_refused():
    """The loss check can fail: the second twin with its source padding ignored differs from the project?"""
    pair = _second_pair()
    real_forward = transformer_sdpa.SdpaTransformer.forward

    def without_padding(self, src, tgt, src_lengths, tgt_lengths):
        full = torch.full_like(src_lengths, src.shape[0])  # every source position counted as real
        return real_forward(self, src, tgt, full, tgt_lengths)

    with against_torch.one_thread(torch), pytest.MonkeyPatch.context() as patch:
        patch.setattr(transformer_sdpa.SdpaTransformer, "forward", without_padding)
        with pytest.raises(CourseError, match="not the same model"):
            against_torch.check_losses(pair, 3)
