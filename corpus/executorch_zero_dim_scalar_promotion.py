"""Known upstream bug (ExecuTorch 1.5.1 to_edge): a 0-dim tensor combined with a Python number
is promoted as if the number were a 0-dim tensor of the default dtype.

In eager, `x + 0.5` with `x` a 0-dim bfloat16 tensor is bfloat16: a Python number is a
"wrapped number" and never raises the dtype of a tensor of its category. to_edge's
ScalarToTensorPass (exir/passes/scalar_to_tensor_pass.py) replaces the number by
`torch.tensor(0.5)`, a plain 0-dim float32 tensor, and RemoveMixedTypeOperators
(exir/passes/remove_mixed_type_operators.py) then computes the promotion with
`elementwise_dtypes` on two 0-dim tensors of one category: float32. It inserts
`_to_dim_order_copy(x, dtype=float32)` and the runtime returns a float32 result where
eager returns bfloat16. The same happens for float16 (`x * 2.0` -> float32) and for
integer tensors (`int32 + 2` -> int64); a tensor with a dim is not affected (a
dimensioned tensor outranks a 0-dim one). Found by the fixes-on EXIR campaign (a
generated program `x0.squeeze(0) + (x1 - 1) / 2` with a bfloat16 x0 of shape (1,)).
The 0-dim tensor need not be an input: a full reduction of a 1-d tensor times a number
(`torch.std(x0, dim=0, correction=0).mul_(1.5)` of a bfloat16 x0, found by a fault
benchmark baseline night on 2026-12-02; `x.sum(0) * 2.0` too) is promoted the same way.
That form is recognised by the dtype-origin fact: the first edge node that departs from
eager by dtype is an op whose operands are a 0-dim tensor and a number, and nothing with
a dim. It holds when an earlier node already departs by values (a float16 einsum before
`.mean() * 1.5`, reported as new by a default night on 2026-12-02 while the pattern
asked the *first* departure to be by dtype). The cast alone would not do: it is in half
of all generated EXIR programs (tests/stacks/core/test_pattern_specificity.py measured a 52 %
claim for a pattern without an origin fact).
"""

import torch


def program(x):
    return (x + 0.5,)


def calls():
    return [(torch.tensor(1.25, dtype=torch.bfloat16),)]


LANES = ("exir",)
EXPECT = ("exir.runtime-result",)
VERSIONS = {"torch": "2.13.0", "executorch": "1.5.1"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): the result
# has the default dtype of the number's category instead of the tensor's lower one; the
# runtime's result, or the edge program's where the runtime has no kernel for another op
# of the program (exir.edge-result: the bug is to_edge's).
MATCHES = (
    {
        "kind": "exir.*-result",
        "details": (
            r"dtype torch\.(float32, expected torch\.(bfloat16|float16)"
            r"|int64, expected torch\.(int8|int16|int32|uint8))\b"
        ),
        "facts": {"sizes": "zero-dim"},
    },
    # The 0-dim tensor computed in the program (a full reduction, `x.sum(0) * 2.0` of a
    # 1-d input): no input is 0-dim, but the first edge node that departs from eager by
    # dtype is an op of a 0-dim tensor and a number, and the pass's cast is in the edge
    # program.
    {
        "kind": "exir.*-result",
        "details": (
            r"dtype torch\.(float32, expected torch\.(bfloat16|float16)"
            r"|int64, expected torch\.(int8|int16|int32|uint8))\b"
        ),
        "facts": {
            "dtype_origin": "*:0-dim,number",
            "ops": "dim_order_ops._to_dim_order_copy.default",
        },
    },
)
# Searched the issue index for "RemoveMixedTypeOperators 0-dim tensor scalar type
# promotion", "ScalarToTensorPass zero-dim wrapped number promotion to_edge dtype" and
# "executorch to_edge scalar add python float bfloat16 output becomes float32": no
# upstream report found.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "to_edge promotes a 0-dim Half/BFloat16 tensor combined with a Python number to float32"
DESCRIBE = """
In eager, `x + 0.5` with `x` a 0-dim bfloat16 tensor stays bfloat16: a Python number is
a wrapped number and does not raise a tensor's dtype within its category. In `to_edge`,
`ScalarToTensorPass` (exir/passes/scalar_to_tensor_pass.py line 32) replaces the number
with `torch.tensor(0.5)`, a plain 0-dim float32 tensor, and `RemoveMixedTypeOperators`
(exir/passes/remove_mixed_type_operators.py) computes the promotion with
`elementwise_dtypes` over two 0-dim tensors of the same category, which gives float32;
it inserts a cast of `x` to float32 and the runtime returns a float32 result. The same
happens for float16 (`x * 2.0`) and for integer tensors (`int32 + 2` becomes int64), and
for 0-dim results computed in the program (`x.sum(0) * 2.0` of a 1-d bfloat16 `x`).
Tensors with at least one dim are not affected, since a dimensioned tensor outranks a
0-dim one. Creating the constant in the node's result dtype from `meta["val"]` (or
keeping wrapped-number semantics when promoting) would fix it.
"""
# Searched again on 2026-12-06 (issue and code indexes): "RemoveMixedTypeOperators zero-
# dim tensor scalar promotion bfloat16 becomes float32 executorch"; "executorch to_edge
# scalar add 0-dim tensor bfloat16 output dtype float32 instead of bfloat16 wrapped
# number type promotion"; "ScalarToTensorPass torch.tensor float32 default dtype double
# scalar precision loss". Found: no report of this bug.
