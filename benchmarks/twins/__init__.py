"""PyTorch twins of the course's four models, for `course bench --against torch`.

Each twin has the architecture of a reference solution (the notebook's
library cells), the same parameter tensors and counts, and takes its initial
weights from the project's model (:func:`copy_weights`), so that one batch
gives both the same loss. Importing this package imports torch: the bench's
optional extra (``pip install -e ".[torch]"``), never needed by students or
grading.

Modules::

    recurrent.py     RNN (01), Seq2Seq (02), AttentionSeq2Seq (03)
    transformer.py   Transformer (04)
    weights.py       parameter counts, and the project's weights copied into a twin
"""

from benchmarks.twins.recurrent import TwinAttentionSeq2Seq, TwinRNN, TwinSeq2Seq
from benchmarks.twins.transformer import TwinTransformer
from benchmarks.twins.weights import copy_weights, count_parameters

__all__ = [
    "TwinAttentionSeq2Seq",
    "TwinRNN",
    "TwinSeq2Seq",
    "TwinTransformer",
    "copy_weights",
    "count_parameters",
]
