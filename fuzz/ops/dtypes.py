"""Dtypes of the catalogue, as names (the catalogue itself does not import torch), and
torch's type promotion for them, stated as data so that shape rules can say what dtype
an op returns. `tests/cover/generator/test_op_catalogue.py` checks every rule here against torch.

Categories, lowest first: bool < integer < floating. Two tensors of one category
promote to the wider dtype; float16 with bfloat16 is float32. A Python number only
moves a tensor to a higher category: `int64_tensor * 2.5` is the default float dtype
(float32), `bool_tensor * 2` is int64, `float16_tensor * 2.5` stays float16.
"""

from __future__ import annotations

FLOATS = ("float32", "float16", "bfloat16", "float64")
INTS = ("int64",)
BOOL = ("bool",)
NUMERIC = FLOATS + INTS  # what arithmetic that rejects bool takes (neg, sub, abs, ...)
ALL = FLOATS + INTS + BOOL

DEFAULT_FLOAT = "float32"

# The dtype of a fresh tensor input, drawn per input: float32 first (the choice genes
# shrink to), then the others. Three float32 entries keep most programs float32.
INPUT_DTYPES = ("float32", "float32", "float32", "float64", "float16", "bfloat16", "int64", "bool")

_CATEGORY = {"bool": 0, "int64": 1} | {d: 2 for d in FLOATS}
_FLOAT_RANK = {"float16": 1, "bfloat16": 1, "float32": 2, "float64": 3}


def is_float(dtype: str) -> bool:
    return dtype in FLOATS


def promote(a: str, b: str) -> str:
    """torch.promote_types for two tensors of these dtypes."""
    if a == b:
        return a
    ca, cb = _CATEGORY[a], _CATEGORY[b]
    if ca != cb:
        return a if ca > cb else b
    if ca < 2:
        return a  # only one dtype per non-float category here
    if _FLOAT_RANK[a] == _FLOAT_RANK[b]:
        return "float32"  # float16 with bfloat16
    return a if _FLOAT_RANK[a] > _FLOAT_RANK[b] else b


def with_scalar(tensor: str, scalar: str) -> str:
    """The dtype of `tensor_op python_number`: `scalar` is "int" or "float"."""
    if scalar == "float":
        return tensor if is_float(tensor) else DEFAULT_FLOAT
    return "int64" if tensor == "bool" else tensor


def can_cast(source: str, target: str) -> bool:
    """Whether an in-place op may write a `source` result into a `target` tensor
    (torch.can_cast: never to a lower category)."""
    return _CATEGORY[source] <= _CATEGORY[target]
