"""Properties of the value channel's format (course.values): what travels comes back whole, nothing else decodes.

Values go through JSON as the channel carries them (``json.dumps`` then
``json.loads``). Examples are drawn by hypothesis (profile in tests/conftest.py).
"""

from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from course.values import Opaque, decode, encode

_DTYPES = [np.bool_, np.int8, np.int64, np.uint16, np.float16, np.float32, np.float64, np.complex64, np.complex128]

_hashable = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),  # any size: ints travel as hex
    st.floats(allow_nan=False),  # NaN is not equal to itself: a set or key of it cannot be compared back
    st.text(max_size=8),
)
_hashable = st.recursive(
    _hashable, lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3), max_leaves=6
)
_arrays = st.sampled_from(_DTYPES).flatmap(
    lambda dtype: hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
)
_scalars = _arrays.filter(lambda a: a.ndim == 0 and a.dtype != np.bool_).map(lambda a: a[()])
_leaves = st.one_of(
    _hashable,
    st.floats(),  # NaN and the infinities too
    st.complex_numbers(),
    _arrays,
    _scalars,
    st.sampled_from([np.dtype("float32"), np.dtype("int64"), np.dtype("complex128")]),
)
values = st.recursive(
    _leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.sets(_hashable, max_size=4),
        st.dictionaries(st.text(max_size=4), inner, max_size=3),  # string keys: a JSON object
        st.dictionaries(_hashable, inner, max_size=3),  # any keys: pairs
    ),
    max_leaves=12,
)


def _same(a, b) -> bool:
    """Equal, of the same type, NaN equal to NaN, arrays equal in dtype, shape and every element."""
    if type(a) is not type(b):
        return False
    if isinstance(a, Opaque):  # it refuses every use, comparison too (sent again, it names its own type)
        return True
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if isinstance(a, np.generic):
        return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, complex):
        return _same(a.real, b.real) and _same(a.imag, b.imag)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a == b


def _through_the_channel(value):
    return decode(json.loads(json.dumps(encode(value), allow_nan=False)))


@settings(max_examples=60)
@given(values)
def test_what_travels_comes_back_whole(value):
    """Is every value of the format (numbers, strings, containers, arrays, scalars, dtypes) decoded equal to what
    was sent, of the same type, in JSON without NaN literals?"""
    assert _same(_through_the_channel(value), value)


class _Student(list):
    """A container of the student's own making: its methods stay behind, its items travel."""

    def __eq__(self, other):
        return True


@given(st.lists(st.integers(), max_size=4))
def test_a_subclass_travels_as_the_value_it_holds(items):
    back = _through_the_channel(_Student(items))
    assert type(back) is list and back == items


@given(st.one_of(st.builds(object), st.functions(), st.builds(_Student).map(lambda s: iter(s))))
def test_anything_else_travels_as_its_type_name_only(value):
    """Does an object outside the format come back an Opaque that refuses every use?"""
    back = _through_the_channel(value)
    assert isinstance(back, Opaque)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)
_KINDS = [
    "int",
    "complex",
    "float",
    "list",
    "tuple",
    "set",
    "frozenset",
    "dict",
    "pairs",
    "array",
    "scalar",
    "dtype",
    "tensor",
    "opaque",
    "unknown",
]
#: JSON the format does not allow: a known kind with a value of any shape, or no kind at all
_malformed = st.one_of(
    st.builds(lambda kind, v: {"t": kind, "v": v}, st.sampled_from(_KINDS), _json),
    st.builds(lambda kind, v, grad: {"t": kind, "v": v, "grad": grad}, st.just("tensor"), _json, _json),
    st.lists(_json, max_size=3),
    st.dictionaries(st.text(max_size=3).filter(lambda k: k != "t"), _json, max_size=3),
)


@given(_malformed)
def test_what_does_not_match_the_format_is_refused_with_a_value_error(data):
    """Does decoding any JSON either give a value the format could have sent, or raise ValueError (its contract),
    never another error?"""
    try:
        back = decode(data)
    except ValueError:
        return
    # what did decode is what the format sends for it: decoding its encoding gives it again
    assert _same(_through_the_channel(back), back)
