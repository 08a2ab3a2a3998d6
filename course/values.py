"""Values a check computed in the student's kernel, sent to the grader as data that cannot carry code.

When a notebook is graded, each check (an ``assert`` of a test cell) is
judged by the grader in its own process, not in the kernel: in its place the
kernel calls :func:`send`, which shows the values the check reads as one
``display_data`` output of type :data:`MIME`. The grader reads them back
with :func:`decode`. The format is JSON: numbers, strings, lists, tuples,
dicts with string keys, sets, NumPy arrays and scalars (``.npy`` bytes,
read with ``allow_pickle=False``) and MyGrad tensors (data and gradient).
Anything else travels as its type's name only, and no check can pass on it.
Decoding costs time linear in the size of what was sent: a set (or a dict's keys)
whose items hash alike is refused rather than built.
"""

from __future__ import annotations

import base64
import io
import math
from typing import Any

import numpy as np

# the channel's output type (defined where the sandbox's executor imports it without NumPy)
from course.channel import MIME

#: how deep a value may nest, and how many items the values of one check may hold in all
MAX_DEPTH = 12
MAX_ITEMS = 100_000


class Opaque:
    """A value that could not travel: only its type's name did. Every use of it raises."""

    __slots__ = ("type_name",)

    def __init__(self, type_name: str):
        object.__setattr__(self, "type_name", type_name)

    def _refuse(self, *args, **kwargs):
        raise TypeError(f"a value of type {self.type_name} cannot be judged outside the kernel")

    def __repr__(self):
        return f"<{self.type_name}: not sent to the grader>"

    __getattr__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __len__ = __iter__ = _refuse
    __getitem__ = __call__ = __array__ = __hash__ = __contains__ = __float__ = __int__ = __index__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __neg__ = _refuse
    __matmul__ = __rmatmul__ = __pow__ = __abs__ = _refuse


def _array(a: np.ndarray) -> str:
    buffer = io.BytesIO()
    np.save(buffer, np.array(a, order="C"), allow_pickle=False)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def encode(value, _depth: int = 0, _budget: list | None = None):
    """``value`` as JSON-ready data (see the module doc)."""
    budget = _budget if _budget is not None else [MAX_ITEMS]
    budget[0] -= 1
    if budget[0] < 0 or _depth > MAX_DEPTH:
        return {"t": "opaque", "type": "a value too large or too deep"}
    kind = type(value)
    if value is None or kind is bool:
        return value
    # a subclass of a built-in type travels as the built-in value it holds: its own methods stay behind
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int) and not isinstance(value, (bool, np.generic)):
        return {"t": "int", "v": format(int.__index__(value), "x")}  # hex: no limit on its digits
    if isinstance(value, complex) and not isinstance(value, np.generic):
        return {"t": "complex", "v": [repr(value.real), repr(value.imag)]}
    if isinstance(value, float) and not isinstance(value, np.generic):
        number = float.__float__(value)
        return {"t": "float", "v": repr(number)} if not math.isfinite(number) else number
    containers: tuple[type[Any], ...] = (list, tuple, set, frozenset)
    for plain in containers:
        if isinstance(value, plain):
            items = list(plain.__iter__(value))
            if plain in (set, frozenset):
                items.sort(key=repr)
            return {"t": plain.__name__, "v": [encode(v, _depth + 1, budget) for v in items]}
    if isinstance(value, dict):
        keys = list(dict.keys(value))
        if all(type(k) is str for k in keys):
            return {"t": "dict", "v": {k: encode(dict.__getitem__(value, k), _depth + 1, budget) for k in keys}}
        return {
            "t": "pairs",
            "v": [
                [encode(k, _depth + 1, budget), encode(dict.__getitem__(value, k), _depth + 1, budget)] for k in keys
            ],
        }
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufc" and value.dtype.fields is None:
        # a subclass (np.matrix, a masked array) travels as the plain array of its data
        budget[0] -= value.size // 8
        if budget[0] < 0:
            return {"t": "opaque", "type": "an array too large"}
        return {"t": "array", "v": _array(np.asarray(value).view(np.ndarray))}
    if isinstance(value, np.generic) and value.dtype.kind in "biufc" and kind is value.dtype.type:
        return {"t": "scalar", "v": _array(np.asarray(value))}
    if isinstance(value, np.dtype):
        return {"t": "dtype", "v": value.str}
    tensor = _tensor(value)
    if tensor is not None:
        data, grad, constant = tensor
        return {
            "t": "tensor",
            "v": encode(data, _depth + 1, budget),
            "grad": encode(grad, _depth + 1, budget),
            "constant": bool(constant),
        }
    return {"t": "opaque", "type": f"{kind.__module__}.{kind.__qualname__}"[:120]}


def _tensor(value):
    """(data, grad, constant) of a MyGrad tensor whose data is a plain array, else None."""
    try:
        import mygrad
    except ImportError:  # pragma: no cover - mygrad is a dependency of the course
        return None
    if not isinstance(value, mygrad.Tensor):
        return None
    data, grad = value.data, value.grad
    if type(data) is not np.ndarray or (grad is not None and type(grad) is not np.ndarray):
        return None
    return data, grad, value.constant


def send(cell: str, index: int, **values) -> None:
    """Show the values check ``index`` of test cell ``cell`` reads, for the grader to judge."""
    from IPython.display import publish_display_data

    budget = [MAX_ITEMS]
    data = {"cell": str(cell), "check": int(index), "values": {k: encode(v, 0, budget) for k, v in values.items()}}
    publish_display_data({MIME: data}, metadata={})


#: the most elements one array may have (a kernel's honest values are far smaller)
MAX_ELEMENTS = 4_000_000


def _load(raw: bytes) -> np.ndarray:
    """An ``.npy`` array of a number dtype whose header agrees with its bytes; ValueError otherwise."""
    buffer = io.BytesIO(raw)
    version = np.lib.format.read_magic(buffer)  # an .npz (zip) or anything else fails here
    reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    shape, fortran, dtype = reader(buffer, max_header_size=1024)
    count = math.prod(shape)
    if dtype.kind not in "biufc" or dtype.hasobject or dtype.fields is not None:
        raise ValueError(f"an array of dtype {dtype}")
    if count > MAX_ELEMENTS or count * dtype.itemsize != len(raw) - buffer.tell():
        raise ValueError(f"an array whose header (shape {shape}) does not match its {len(raw)} bytes")
    array = np.frombuffer(raw, dtype=dtype, count=count, offset=buffer.tell())
    return array.reshape(shape, order="F" if fortran else "C").copy()


#: how many items of one decoded set (or keys of one dict) may share a hash; an honest value's share none
MAX_SHARED_HASH = 8


def _spread_hashes(items: list, what: str) -> None:
    """Refuse items that hash alike: a set of them costs time quadratic in their number to build.

    Counting the hashes is linear: distinct hash values never collide in
    full, and equal ones are counted, not chained (a string's hash is salted
    per process; an int's, a float's and a tuple's are not).
    """
    counts: dict[int, int] = {}
    for item in items:
        h = hash(item)  # an unhashable item raises TypeError: the value does not decode
        counts[h] = counts.get(h, 0) + 1
        if counts[h] > MAX_SHARED_HASH:
            raise ValueError(f"{what} whose items hash alike")


def decode(data):
    """The value :func:`encode` gave ``data`` for; raises ValueError on anything malformed."""
    try:
        return _decode(data, 0)
    except (TypeError, LookupError, AttributeError) as err:  # a part of the wrong shape: {"t": "complex", "v": 5}
        raise ValueError(str(err)) from err


def _decode(data, depth: int):
    if depth > MAX_DEPTH + 2:
        raise ValueError("a value nested too deep")
    if data is None or type(data) in (bool, str, float):
        return data
    if type(data) is int:  # a JSON number without a fraction: the kernel sent a float that happened to be whole
        return float(data)
    if type(data) is not dict or "t" not in data:
        raise ValueError(f"not a value: {type(data).__name__}")
    kind = data["t"]
    v: Any = data.get("v")  # untrusted JSON: each kind below checks the shape it needs
    if kind == "int":
        if len(str(v)) > 100_000:
            raise ValueError("an int too long")
        return int(str(v), 16)
    if kind == "complex":
        return complex(float(v[0]), float(v[1]))
    if kind == "float":
        return float(v)
    if kind in ("list", "tuple", "set", "frozenset"):
        if type(v) is not list:
            raise ValueError("a container without items")
        items = [_decode(x, depth + 1) for x in v]
        if kind in ("set", "frozenset"):
            _spread_hashes(items, "a set")
        return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[kind](items)
    if kind == "dict":
        if type(v) is not dict:
            raise ValueError("a dict without items")
        return {str(k): _decode(x, depth + 1) for k, x in v.items()}
    if kind == "pairs":
        if type(v) is not list or any(type(p) is not list or len(p) != 2 for p in v):
            raise ValueError("a dict without pairs")
        keys = [_decode(k, depth + 1) for k, _ in v]
        _spread_hashes(keys, "a dict")
        return dict(zip(keys, [_decode(x, depth + 1) for _, x in v], strict=True))
    if kind in ("array", "scalar"):
        array = _load(base64.b64decode(str(v), validate=True))
        return array if kind == "array" else array[()]
    if kind == "dtype":
        return np.dtype(str(v))
    if kind == "tensor":
        import mygrad

        array = _decode(v, depth + 1)
        grad = _decode(data.get("grad"), depth + 1)
        if not isinstance(array, np.ndarray) or (grad is not None and not isinstance(grad, np.ndarray)):
            raise ValueError("a tensor without an array")
        tensor = mygrad.Tensor(array, constant=bool(data.get("constant")), copy=False)
        tensor._grad = grad  # the gradient the kernel's backward pass left
        return tensor
    if kind == "opaque":
        return Opaque(str(data.get("type", "unknown"))[:120])
    raise ValueError(f"an unknown kind of value: {str(kind)[:40]}")
