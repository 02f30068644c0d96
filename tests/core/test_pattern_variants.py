"""Registered bugs are recognised in other programs that show them: other slicing, other
ops around the bug, other dtypes. Each variant below is a hand-written program that
shows a registered bug in a form its corpus case does not have; it must be recognised as
that case's bug (by its MATCHES, on the facts the lane observed), and as no other. The
divergences of the other registered bugs a case names in ALSO (its program cannot help
showing them) are those bugs' own, as they are in the case itself.

A variant that is reported as new would cost a compiler engineer a morning on a known
bug; the row-block form of the disjoint-views bug was reported as new while the pattern
was a regex over how the harness rendered column blocks.

A key is the case's name, or "<case>:<form>" where one bug shows in several forms (one
variant per form, each recognised as that case's bug).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from fuzz.case import case_from_source, case_metadata, load_case
from fuzz.corpus import CorpusIndex, DirectoryCorpus
from fuzz.outcome import run_lane, run_lane_isolated
from fuzz.prepare import all_fixes_on

INDEX_DIR = Path(__file__).resolve().parents[2] / "corpus"
INDEX = CorpusIndex.of([DirectoryCorpus(INDEX_DIR)])

# "case" or "case:form" (a second form of one case's bug) -> (lane, program source).
VARIANTS = {
    # The square written out on a number derived from a size, not a gram matrix's numel.
    "executorch_sym_pow_unsupported:square": (
        "exir",
        """
        def program(x):
            n = x.shape[0] + 1
            return (x.new_ones(n**2) * 2.0, x.sum(0))

        def calls():
            return [(torch.randn(3, 4),), (torch.randn(4, 4),)]

        DIMS = {"x": {0: (2, 6)}}
        """,
    ),
    # The sym_min exists only once decomposed: a replicate pad of a diagonal (min(s0, s2)
    # long) indexes with a clamp sized by it (a fault-benchmark baseline, 2026-12-04).
    "executorch_sym_min_edge_verifier:decomposed": (
        "exir",
        """
        import torch.nn.functional as F

        def program(x):
            d = torch.diagonal(x, 0, 0, 2)
            return (F.pad(d.unsqueeze(1), (2, 2), mode="replicate").squeeze(1) * 2.0,)

        def calls():
            return [(torch.randn(3, 1, 4),), (torch.randn(5, 1, 2),)]

        DIMS = {"x": {0: (2, 6), 2: (2, 6)}}
        """,
    ),
    # Rows picked by a mask (2-d, dynamic columns) fed to a cond on the backed size.
    "executorch_cond_unbacked_operand_replay:rows": (
        "exir",
        """
        def program(x):
            v = x[x.flatten(1).sum(1) > 0]
            return (torch.cond(v.shape[1] > 5, lambda t: t.abs(), lambda t: t * 2.0, (v,)),)

        def calls():
            return [(torch.randn(3, 4),), (torch.randn(3, 6),)]

        DIMS = {"x": {1: (3, 7)}}
        """,
    ),
    # nonzero and masked_select results as the operand, with a second static operand.
    "executorch_cond_unbacked_operand_replay:nonzero": (
        "exir",
        """
        def program(x):
            idx = torch.nonzero(x > 0).flatten()
            vals = torch.masked_select(x, x > 0)
            return torch.cond(
                x.sum() > 0, lambda i, v: (i * 2, v.abs()), lambda i, v: (i + 1, -v), (idx, vals)
            )

        def calls():
            return [(torch.tensor([1.0, -2.0, 3.0]),)]
        """,
    ),
    # unique of an int64 tensor with a checked length: the re-run plans sys.maxsize elements.
    "executorch_rerun_drops_checked_bound:unique": (
        "exir",
        """
        def program(x):
            v = torch.unique(x.long())
            torch._check(v.shape[0] <= x.shape[0])
            return (v * 2,)

        def calls():
            return [(torch.randn(3),), (torch.randn(5),)]

        DIMS = {"x": {0: (2, 6)}}
        """,
    ),
    # repeat_interleave of counts with a checked length: the re-run finds no finite bound.
    "executorch_rerun_drops_checked_bound:repeat_interleave": (
        "exir",
        """
        def program(x):
            v = torch.repeat_interleave(x.abs().clamp(max=2))
            torch._check(v.shape[0] <= 2 * x.shape[0])
            return (v,)

        def calls():
            return [(torch.tensor([1, -2, 0]),), (torch.tensor([2, 0, 1, 1, -1]),)]

        DIMS = {"x": {0: (2, 6)}}
        """,
    ),
    # Disjoint views of one base, as row blocks instead of column blocks, through mul_.
    "thunder_disjoint_views_inplace": (
        "thunder",
        """
        def program(a, b):
            a.mul_(b)
            return (a + 0,)

        def calls():
            base = torch.randn(4, 3)
            return [(base[:2], base[2:])]
        """,
    ),
    # The same tensor twice and an unused first input, with other ops around it.
    "thunder_alias_index_shift": (
        "thunder",
        """
        def program(a, b, c):
            return (c.sin().mul_(2.0), b - 1.0)

        def calls():
            t = torch.zeros(2, 4)
            return [(t, t, torch.ones(2, 4))]
        """,
    ),
    # nonzero of a 3-d mask: its (n, 3) output planned column-major.
    "executorch_nonzero_dim_order": (
        "exir",
        """
        def program(x):
            return (torch.nonzero(x < 0),)

        def calls():
            return [(torch.tensor([[[1.0, -1.0], [-2.0, 3.0]], [[-4.0, 5.0], [6.0, -7.0]]]),)]
        """,
    ),
    # nonzero of a 1-d mask, (n, 1) planned column-major, then an op that checks dim
    # orders: the form a fixes-on nightly met (the corpus case squeezes instead).
    "executorch_nonzero_squeeze_dim_order": (
        "exir",
        """
        def program(x, n):
            return (torch.nonzero(torch.relu(x) > 0) * n,)

        def calls():
            return [(torch.tensor([1.0, -2.0, 3.0]), 0)]
        """,
    ),
    # A reduction of nonzero's (n, ndim) result: the reduction kernels' own dim-order
    # check fails (a fixes-on night of the tenth session, filed as new while the pattern
    # asked for the elementwise ops' check).
    "executorch_nonzero_squeeze_dim_order:reduction": (
        "exir",
        """
        def program(x):
            return (torch.nonzero(x.reshape(-1) > 0).sum(dim=1).float(),)

        def calls():
            return [(torch.tensor([[1.0, -2.0], [3.0, 4.0]]),)]
        """,
    ),
    # The empty tensor made inside the program: an expand to a number input that is 0,
    # then a cat (the tenth session's fault-benchmark night, filed as new while the
    # pattern asked for an empty input).
    "executorch_prune_empty_cat_symbolic_full:expand-to-zero": (
        "exir",
        """
        def program(x0, x1):
            v = x0.unsqueeze(0).expand(x1, *x0.shape)
            return (torch.cat([v, v], dim=1),)

        def calls():
            return [(torch.randn(2, 4), 0)]

        DIMS = {"x0": {0: (2, 3)}}
        """,
    ),
    # Two conds with other branch ops: the first cond's result is overwritten.
    "executorch_cond_output_overwritten": (
        "exir",
        """
        def program(x):
            a = torch.cond(x.mean() > 0, lambda x: x.neg(), lambda x: x.abs(), (x,))
            b = torch.cond(x.mean() > 0, lambda x: x + 100.0, lambda x: x - 100.0, (x,))
            return (a, b)

        def calls():
            return [(torch.tensor([1.0, 2.0, 3.0, 4.0]),)]
        """,
    ),
    # Integer remainder with operands of opposite signs, `%` of two tensors broadcast.
    "executorch_remainder_int_sign": (
        "exir",
        """
        def program(a, b):
            return ((a + 1) % b,)

        def calls():
            return [(torch.tensor([[-5], [2]]), torch.tensor([3, -4, 2]))]
        """,
    ),
    # The Scalar overload: `torch.remainder` of an int32 tensor by a negative number.
    "executorch_remainder_int_sign:scalar": (
        "exir",
        """
        def program(x):
            return (x * 2, torch.remainder(x, -3))

        def calls():
            return [(torch.tensor([[1, -1], [4, 7]], dtype=torch.int32),)]
        """,
    ),
    # The Scalar overload through `%` with a positive divisor and negative dividends.
    "executorch_remainder_int_sign:mod-number": (
        "exir",
        """
        def program(x):
            return (x.sum(0) % 5,)

        def calls():
            return [(torch.tensor([[-3, 2, -9], [1, -1, 0]]),)]
        """,
    ),
    # The dividend made in a program of float inputs: topk's int64 indices by a negative
    # divisor from a number input (the nightly's finding, reported as new while the
    # pattern asked for an integer input).
    "executorch_remainder_int_sign:made-inside": (
        "exir",
        """
        def program(x, n):
            _, idx = torch.topk(x, x.shape[0] // 2, dim=0)
            return (torch.remainder(idx, -(n + 1)),)

        def calls():
            return [(torch.randn(4, 3), 2)]
        """,
    ),
    # float64 layer norm of standard normal values (no offset): off by about 1e-7
    # relative, past the float64 tolerance.
    "executorch_norm_double_float_statistics:layer-norm": (
        "exir",
        """
        def program(x):
            return (torch.nn.functional.layer_norm(x, (x.shape[-1],)) * 2,)

        def calls():
            g = torch.Generator().manual_seed(1)
            return [(torch.randn(8, 96, dtype=torch.float64, generator=g),)]
        """,
    ),
    # The Max(1, ...) in a later stride of a rank-3 branch value (a topk over the last
    # dim, k = size // 2), as a fault-benchmark baseline night found it.
    "torch_cond_max_stride_dense_output:inner-max": (
        "exir",
        """
        def program(x):
            v, _ = torch.topk(x, x.shape[2] // 2, dim=2)
            return (torch.cond(v.shape[1] > 5, lambda a: a * 2.0, lambda a: a + 1.0, (v,)),)

        def calls():
            return [(torch.randn(2, 7, 4),), (torch.randn(3, 6, 6),)]
        """,
    ),
    # A negative remainder as an embedding index: the generator's old embedding indices,
    # `remainder(idx.long(), n)` of a float operand with negative values. The runtime's
    # embedding kernel fails its index check (error 0x12), an exir.crash, not a wrong
    # value; the crash forms read which check failed in the runtime's log.
    "executorch_remainder_int_sign:embedding-index": (
        "exir",
        """
        def program(x, w):
            return (torch.nn.functional.embedding(torch.remainder(x.long(), w.shape[0]), w),)

        def calls():
            return [(torch.tensor([1.5, -1.2, 2.0, -3.7]), torch.randn(4, 3))]
        """,
    ),
    # index_select with a `%`-made index (the Scalar overload) of a negative int64 input.
    "executorch_remainder_int_sign:index-select": (
        "exir",
        """
        def program(x, w):
            return (torch.index_select(w, 1, x % w.shape[1]),)

        def calls():
            return [(torch.tensor([1, -1, 2, -3]), torch.randn(2, 4))]
        """,
    ),
    # take_along_dim (a gather) with the Tensor overload's index, broadcast divisor.
    "executorch_remainder_int_sign:gather": (
        "exir",
        """
        def program(x, n, w):
            return (torch.take_along_dim(w, torch.remainder(x, n), 1),)

        def calls():
            return [(torch.tensor([[1, -1], [2, -3]]), torch.tensor([3]), torch.randn(2, 3))]
        """,
    ),
    # A wrong integer remainder feeding float ops: a float result that differs with a
    # tolerance (the form of a fault-benchmark baseline night's finding, reduced).
    "executorch_remainder_int_sign:float-downstream": (
        "exir",
        """
        def program(x):
            return (torch.rsqrt(torch.remainder(x, 3).abs() + 1),)

        def calls():
            return [(torch.tensor([-4, 3, -2, 5]),)]
        """,
    ),
    # A negative divisor: eager's index is negative and gather raises, the runtime's
    # (C's `%`) is in range and it returns a result.
    "executorch_remainder_int_sign:negative-divisor": (
        "exir",
        """
        def program(x, w):
            return (torch.gather(w, 1, torch.remainder(x, -w.shape[1])),)

        def calls():
            return [(torch.tensor([[1, 2], [3, 0]]), torch.randn(2, 4))]
        """,
    ),
    # scatter_add into rows picked by an int32 remainder widened to an index.
    "executorch_remainder_int_sign:scatter": (
        "exir",
        """
        def program(x, w, v):
            return (w.scatter_add(1, torch.remainder(x, 3).long(), v),)

        def calls():
            x = torch.tensor([[1, -1], [0, -2]], dtype=torch.int32)
            return [(x, torch.randn(2, 3), torch.randn(2, 2))]
        """,
    ),
    # The program the campaign found (issue #19): roll of the second piece of a
    # tensor_split, on its dynamic dim 1, float16.
    "executorch_prim_mod_sign:tensor-split": (
        "exir",
        """
        def program(x1):
            v6, v7 = torch.tensor_split(x1, (0,), 0)
            return (torch.roll(v7, 3, 1),)

        def calls():
            return [(torch.randn(3, 4).half(),), (torch.randn(2, 2).half(),)]
        """,
    ),
    # roll without dims (it rolls the flattened tensor: numel is the size), int64.
    "executorch_prim_mod_sign:flatten": (
        "exir",
        """
        def program(x):
            return (torch.roll(x.abs(), 5) * 2,)

        def calls():
            return [(torch.tensor([[1, -2, 3], [4, 5, -6]]),), (torch.tensor([[1, 2], [3, 4]]),)]

        DIMS = {"x": {1: (2, 4)}}
        """,
    ),
    # index_select along an empty inner dim of a 2-d intermediate, reduced after.
    # torch.empty sized by unique's length (the case's form is new_empty after nonzero).
    "executorch_empty_dim_order_unbacked_size:empty": (
        "exir",
        """
        def program(x):
            n = torch.unique(x).shape[0]
            return (torch.empty(n, 2).fill_(1.5) * 2,)

        def calls():
            return [(torch.tensor([1.0, 1.0, 2.0]),), (torch.tensor([3.0, 1.0, 2.0, 0.0]),)]

        DIMS = {"x": {0: (2, 6)}}
        """,
    ),
    "executorch_index_select_empty_axis": (
        "exir",
        """
        def program(x, i):
            return ((x + 1).index_select(1, i).sum(1),)

        def calls():
            return [(torch.randn(2, 0), torch.zeros(0, dtype=torch.int64))]
        """,
    ),
    # The empty axis made inside the program from a non-empty input (a mask that selects
    # nothing): no input is empty, the runtime's log names the check.
    "executorch_index_select_empty_axis:masked-empty": (
        "exir",
        """
        def program(x):
            v = x[x > 10]
            return (v.index_select(0, v.long()) * 2,)

        def calls():
            return [(torch.tensor([1.0, 2.0, 3.0]),)]
        """,
    ),
    # A comparison's bool result plus a literal int, its dtype read by `.to`, 2-d.
    "thunder_bool_int_promotion_int8": (
        "thunder",
        """
        def program(x):
            v = (x > 0) + 2
            return (x.to(v.dtype), x * 2.0)

        def calls():
            return [(torch.tensor([[1.0, -1.0], [0.25, -0.25]]),)]
        """,
    ),
    # masked_fill of a bool intermediate (a comparison) with an int value, 2-d.
    "thunder_masked_fill_bool_int": (
        "thunder",
        """
        def program(x):
            return ((x > 0).masked_fill(x < -0.5, 1), x + 1.0)

        def calls():
            return [(torch.tensor([[1.0, -1.0], [0.25, -0.25]]),)]
        """,
    ),
    # repeat_interleave along a dim of size 1, with other ops around it: a view again.
    "thunder_einsum_layout_contiguous_copies": (
        "thunder",
        """
        def program(x):
            v = torch.einsum("i,j->ij", x, x)
            return (v[0], v.contiguous().view(-1))

        def calls():
            return [(torch.randn(3),)]
        """,
    ),
    # As found: pieces of the contiguous einsum result next to a row of the result.
    "thunder_einsum_layout_contiguous_copies:split": (
        "thunder",
        """
        def program(x, n):
            v = torch.einsum("i,j->ij", x, x)
            w = v.contiguous().view(*v.shape[:-2], -1)
            a, b, c = torch.tensor_split(w, 3, 0)
            return (v[n % v.shape[0]], a, b, torch.neg(c))

        def calls():
            return [(torch.randn(2), 0)]
        """,
    ),
    "thunder_repeat_interleave_view": (
        "thunder",
        """
        def program(x, y):
            return (y * 2.0, x.repeat_interleave(3, dim=1))

        def calls():
            return [(torch.randn(2, 1), torch.randn(4))]
        """,
    ),
    # An in-place op on repeat_interleave's result writes through to the caller's input.
    "thunder_repeat_interleave_view:mutation": (
        "thunder",
        """
        def program(x):
            y = x.repeat_interleave(1, dim=1)
            y.mul_(2.0)
            return (y + 1.0,)

        def calls():
            return [(torch.randn(3, 2),)]
        """,
    ),
    # An in-place op on a size-1 dim repeated: Thunder's expanded view refuses the write.
    "thunder_repeat_interleave_view:overlap": (
        "thunder",
        """
        def program(x):
            y = x.repeat_interleave(3, dim=1)
            y.add_(1.0)
            return (y * 2.0,)

        def calls():
            return [(torch.randn(2, 1),)]
        """,
    ),
    # A write to the input after repeat_interleave (a size-1 dim repeated, through a narrow
    # view) shows in the returned result: a wrong value next to the aliasing.
    "thunder_repeat_interleave_view:written-after": (
        "thunder",
        """
        def program(x, w):
            y = x.repeat_interleave(2, dim=1)
            x.narrow(0, 0, 1).mul_(w)
            return (w + 1.0, y)

        def calls():
            return [(torch.randn(3, 1), torch.randn(1))]
        """,
    ),
    # Two single-value groups of a 3-d intermediate, with another output beside it.
    "thunder_group_norm_single_value_group": (
        "thunder",
        """
        def program(x, y):
            return (y * 2.0, torch.group_norm(torch.relu(x), 2, eps=0.001))

        def calls():
            return [(torch.randn(1, 2, 1), torch.randn(3))]
        """,
    ),
    # arange(0) traced as 0-d, met by Thunder's own tril on an empty last dim.
    "thunder_arange_empty_zero_dim:tril": (
        "thunder",
        """
        def program(x):
            return (torch.tril(x * 2.0, 1),)

        def calls():
            return [(torch.randn(2, 3, 0),)]
        """,
    ),
    # arange's length traced one short: an int number input as the end, a `>` decision.
    "thunder_arange_step_length_truncated:number": (
        "thunder",
        """
        def program(x, n):
            idx = torch.arange(0, n, 2)
            if idx.shape[0] > 2:
                return (x[:1] * 2.0,)
            return (x[:1] + idx.sum(),)

        def calls():
            return [(torch.randn(4), 5)]
        """,
    ),
    # The generator's form: every other column (index_select), a branch on its count.
    "thunder_arange_step_length_truncated:index_select": (
        "thunder",
        """
        def program(x):
            v = torch.index_select(x, 1, torch.arange(0, x.shape[1], 2))
            if v.shape[1] == 2:
                return (v * 10.0,)
            return (v + 1.0,)

        def calls():
            return [(torch.randn(2, 5),)]
        """,
    ),
    # index_select on a dim that is empty in an intermediate (a split piece), not an input.
    "thunder_arange_empty_zero_dim:take": (
        "thunder",
        """
        def program(x):
            a, b = torch.split(x, [2, 0], 1)
            return (torch.index_select(b, 1, torch.arange(b.shape[1]).flip(0)), a + 1.0)

        def calls():
            return [(torch.randn(3, 2),)]
        """,
    ),
    # index_put with an arange index on an empty dim.
    "thunder_arange_empty_zero_dim:index_put": (
        "thunder",
        """
        def program(x):
            return (x.index_put((torch.arange(x.shape[0]),), x - 1.0, accumulate=True),)

        def calls():
            return [(torch.randn(0, 2, 2),)]
        """,
    ),
    # diagonal of a matrix with an empty dim (Thunder's clang diagonal indexes with arange).
    "thunder_arange_empty_zero_dim:diagonal": (
        "thunder",
        """
        def program(x):
            return (torch.diagonal(x, 0, 1, 0).exp(),)

        def calls():
            return [(torch.randn(4, 0),)]
        """,
    ),
    # softmax of an empty intermediate (the input is not empty), through F.softmax.
    "thunder_softmax_empty_dim_symbolic": (
        "thunder",
        """
        def program(x):
            v = x[2:] + 1.0
            return (torch.nn.functional.softmax(v, dim=0),)

        def calls():
            return [(torch.randn(2, 3),)]
        """,
    ),
    # logsumexp itself over an empty last dim (log_softmax's root cause).
    "thunder_log_softmax_empty_dim": (
        "thunder",
        """
        def program(x):
            return (torch.logsumexp(x * 2.0, dim=1),)

        def calls():
            return [(torch.randn(2, 0),)]
        """,
    ),
    # float64 remainder of two tensors (`%`, the Tensor overload), broadcast.
    "executorch_remainder_float64_precision": (
        "exir",
        """
        def program(a, b):
            return (a % b,)

        def calls():
            a = torch.tensor([[-99999999.7], [5.5]], dtype=torch.float64)
            return [(a, torch.tensor([1e8, 3.0], dtype=torch.float64))]
        """,
    ),
    # The Scalar overload through `%` with a number, the dividend made in the program.
    "executorch_remainder_float64_precision:mod-number": (
        "exir",
        """
        def program(x):
            return ((x + x) % 1e8,)

        def calls():
            return [(torch.tensor([-49999999.85, 3.0], dtype=torch.float64),)]
        """,
    ),
    # A float64 dividend made from a float32 input.
    "executorch_remainder_float64_precision:made-inside": (
        "exir",
        """
        def program(x):
            return (x.double() * 1e8 % 1e8,)

        def calls():
            return [(torch.tensor([-0.9999999, 0.5]),)]
        """,
    ),
    # A float64 sum over one dim of a float32 input cast in the program.
    "executorch_opt_sum_float_accumulator:made-inside": (
        "exir",
        """
        def program(x):
            return ((x.double() * 1e8).sum(dim=0),)

        def calls():
            return [(torch.tensor([1.0, 1e-8, -1.0]),)]
        """,
    ),
    # A float64 tensor times a Python float, within tolerance, amplified by sin (the
    # nightly's `torch.sin(x * math.exp(5 / 4))`): the edge program departs at sin.
    "executorch_scalar_constant_float32": (
        "exir",
        """
        def program(x):
            return (torch.sin(x * 3.4903429574618414),)

        def calls():
            return [(torch.tensor([300.0, 1.0], dtype=torch.float64),)]
        """,
    ),
    # As found: an einsum over the empty dim of an empty float16 input (it lowers to bmm),
    # next to a tensor whose buffer the planner shares with its output.
    # mm too: a linear over an empty last dim (a default night, 2026-12-04).
    "executorch_bmm_empty_contraction:mm": (
        "exir",
        """
        import torch.nn.functional as F

        def program(x, w):
            y = torch.exp(w * 3.0)
            return (y.sum(), F.linear(x, w[:, :0]))

        def calls():
            return [(torch.randn(2, 3, 0), torch.randn(4, 5))]
        """,
    ),
    "executorch_bmm_empty_contraction:einsum": (
        "exir",
        """
        def program(x, a):
            s = (x * 3.0).exp().sum()
            return (s, torch.einsum("ij,ij->j", a, a))

        def calls():
            x = torch.randn(8, 8)
            return [(x, torch.randn(0, 3).half()), (x, torch.randn(0, 3).half())]
        """,
    ),
    # The empty contraction is computed: the empty first piece of a tensor_split of a
    # non-empty input (as the derandomized property test drew it).
    "executorch_bmm_empty_contraction:computed-empty": (
        "exir",
        """
        def program(x, a):
            s = (x * 3.0).exp().sum()
            p, q = torch.tensor_split(a, (0,), 0)
            return (s, torch.einsum("ij,ij->j", p, p))

        def calls():
            x = torch.randn(8, 8)
            return [(x, torch.randn(2, 3)), (x, torch.randn(2, 3))]
        """,
    ),
    # The 0-dim tensor is computed (a full reduction), not an input; in place, as found.
    "executorch_zero_dim_scalar_promotion:reduced-in-place": (
        "exir",
        """
        def program(x):
            return (torch.neg(torch.std(x, dim=0, correction=0).mul_(1.5)),)

        def calls():
            return [(torch.tensor([0.5], dtype=torch.bfloat16),)]
        """,
    ),
    "executorch_zero_dim_scalar_promotion:reduced": (
        "exir",
        """
        def program(x):
            return (x.sum(0) * 2.0,)

        def calls():
            return [(torch.tensor([0.5, -1.25, 2.0], dtype=torch.float16),)]
        """,
    ),
    # A bfloat16 cumsum along the last dim of a 2-d input, as generated (before an exp).
    "executorch_cumsum_half_accumulator:bfloat16": (
        "exir",
        """
        def program(x):
            return (torch.exp(torch.cumsum(x, dim=1).clamp(max=10.0)),)

        def calls():
            return [(torch.full((2, 600), 0.01, dtype=torch.bfloat16),)]
        """,
    ),
    # Floor division by a number (floor_divide, div.Tensor_mode in the edge program).
    "executorch_scalar_constant_float32:floor-divide": (
        "exir",
        """
        def program(x):
            return (x.abs() // 10.1,)

        def calls():
            return [(torch.tensor([[10.1, -20.2], [5.0, 0.0]], dtype=torch.float64),)]
        """,
    ),
    # A number minus a reduction (rsub, sub.Tensor in the edge program), next to a float32
    # output.
    "executorch_scalar_constant_float32:rsub": (
        "exir",
        """
        def program(x, y):
            return (10.1 - x.mean(0), y + 1)

        def calls():
            x = torch.tensor([[10.1, 0.1], [10.1, 0.3]], dtype=torch.float64)
            return [(x, torch.ones(2))]
        """,
    ),
    # torch.empty (not new_empty) sized from a dynamic dim, written with fill_. (empty_like
    # is not affected: it reaches the edge program as empty_like's own kernel.)
    "executorch_empty_dim_order_specializes:torch-empty": (
        "exir",
        """
        def program(x):
            return (torch.empty((x.shape[0], 3)).fill_(2.0) + x.sum(1, keepdim=True),)

        def calls():
            return [(torch.randn(2, 3),), (torch.randn(5, 3),)]

        DIMS = {"x": {0: (2, 6)}}
        """,
    ),
    # A new_empty sized from one dynamic dim (plus one), filled: as the generator's
    # new_empty_fill draws it; the rest of the program is static but for that dim.
    "executorch_empty_dim_order_specializes:sized-from-a-dim": (
        "exir",
        """
        def program(x):
            return (x.new_empty((x.shape[0] + 1, 2)).fill_(1.5), x.sum(1))

        def calls():
            return [(torch.randn(3, 4),), (torch.randn(5, 4),)]

        DIMS = {"x": {0: (2, 6)}}
        """,
    ),
    # Only a smaller size after the example: nothing is under-allocated, the runtime's
    # execute fails (error 0x12). The fault benchmark's seed-1 EXIR baseline filed this
    # as new while the pattern knew only the set_inputs message.
    "executorch_empty_dim_order_specializes:smaller": (
        "exir",
        """
        def program(x0, n):
            v = torch.neg(x0).new_empty((x0.shape[0] + 1, 2)).fill_(1.5)
            return (v * n,)

        def calls():
            return [(torch.randn(3), 0), (torch.randn(2), 0)]

        DIMS = {"x0": {0: (2, 3)}}
        """,
    ),
    # A size of several dims (s1*s2 + 1): the guard replaces no symbol, only the op's own
    # output is static and a call of other sizes fails execute. The floor-division fault
    # night (seed 1) found it with a pow and two branches around it.
    "executorch_empty_dim_order_specializes:product-of-dims": (
        "exir",
        """
        def program(x):
            v = x.flatten(1, 2)
            return (v.new_empty((v.shape[1] + 1, 2)).fill_(1.5), v * 2.0)

        def calls():
            return [(torch.randn(6, 3, 5),), (torch.randn(6, 2, 3),)]

        DIMS = {"x": {1: (2, 3), 2: (3, 7)}}
        """,
    ),
    # A transposed operand (not channels-last) with a size-1 channel: the clone's output
    # strides tie on C and W (the fault-benchmark night's form was an expand, shrunk).
    "executorch_channels_last_size_one_dim_order:transposed": (
        "exir",
        """
        def program(x):
            return (x.transpose(2, 3).contiguous(memory_format=torch.channels_last),)

        def calls():
            return [(torch.randn(2, 1, 3, 4),)]
        """,
    ),
    # As the default night at ccaf204 found it: a cond over the specialized value fails
    # to_executorch's replay check, with backed sizes.
    "executorch_empty_dim_order_specializes:cond": (
        "exir",
        """
        def program(x0):
            v3 = x0 * 2
            v5 = torch.cond(v3.shape[1] > 5, lambda x: -x, lambda x: torch.sin(x), (v3,))
            return (v5, v3.new_empty(v3.shape).fill_(1.0))

        def calls():
            return [(torch.randn(3, 6, 6, 6),)]

        DIMS = {"x0": {0: (3, 6), 1: (3, 6), 2: (3, 6), 3: (3, 6)}}
        """,
    ),
    # As the fixes-on campaign (seed 2026) found it: the piece split off a dim of size 1
    # added in front, its second piece empty at the example.
    "torch_decompositions_specialize_empty_at_example:unsqueezed": (
        "exir",
        """
        def program(x):
            return torch.tensor_split(x.unsqueeze(0), (2,), 1)

        def calls():
            return [(torch.randn(2, 1),), (torch.randn(3, 1),)]

        DIMS = {"x": {0: (2, 4)}}
        """,
    ),
    # The eval dropout's result returned, its input then written through another view:
    # eager's output is the new values, the exported program's the old (fault-benchmark
    # night, seed 4, shrunk).
    "torch_dropout_eval_identity_mutation_lost:output": (
        "exir",
        """
        import torch.nn.functional as F

        def program(x):
            v = F.dropout(x, p=0.9, training=False)
            x.reshape(-1).mul_(1.5)
            return (v,)

        def calls():
            return [(torch.randn(3, 4),), (torch.randn(5, 4),)]
        """,
    ),
    # Another in-place op through the eval dropout, with a nonzero p.
    "torch_dropout_eval_identity_mutation_lost:add_": (
        "exir",
        """
        import torch.nn.functional as F

        def program(x):
            v = F.dropout(x, p=0.3, training=False)
            v.add_(1.0)
            return (v.sum(0),)

        def calls():
            return [(torch.randn(3, 2),)]
        """,
    ),
    # float16, over two of three dims with keepdim, of a matmul's result (as found).
    "executorch_var_half_accumulator:float16-matmul": (
        "exir",
        """
        def program(x):
            return (torch.var(x @ x.transpose(-2, -1), dim=(-2, 0), correction=0, keepdim=True),)

        def calls():
            x = ((torch.arange(1024) % 17 - 8) / 5.0 + 1).reshape(4, 32, 8)
            return [(x.to(torch.float16),)]
        """,
    ),
    # Two returned views of one intermediate: an index and repeat_interleave's result.
    "thunder_repeat_interleave_view:outputs": (
        "thunder",
        """
        def program(x):
            v = x.abs()
            w = v.repeat_interleave(1, dim=0)
            return (v[0], w)

        def calls():
            return [(torch.randn(3, 2),), (torch.randn(4, 2),)]
        """,
    ),
    # A float number, reached by an unused first input before two disjoint views written
    # in place (the alias positions "1,2" land on the float n): 'FloatProxy' has no shape.
    "thunder_alias_number_input_integerproxy:float": (
        "thunder",
        """
        def program(x0, x1, x2, n):
            x1.mul_(x2)
            return (x1 * n,)

        def calls():
            base = torch.randn(10)
            return [(torch.ones(3), base[:5], base[5:], 3.0)]
        """,
    ),
    # The float64 made by the program from a float32 input, over a trailing dim.
    "executorch_log_softmax_float64_unsupported:made-in-program": (
        "exir",
        """
        import torch.nn.functional as F

        def program(x):
            return (F.log_softmax(x.to(torch.float64) * 2.0, dim=-1),)

        def calls():
            return [(torch.randn(2, 3),), (torch.randn(4, 3),)]
        """,
    ),
    # A wider offset and an op after the slice: 31 planned for 25.
    "torch_value_ranges_expanded_bound:wide-offset": (
        "exir",
        """
        import fuzz.custom_ops  # noqa: F401

        def program(x):
            return (torch.ops.fuzz.positive(x[:, 2:] * 2),)

        def calls():
            return [(torch.randn(3, 4),), (torch.randn(4, 6),)]

        DIMS = {"x": {0: (2, 5), 1: (3, 7)}}
        """,
    ),
    # Both dims sliced: (s0 - 1)*(s1 - 1) multiplied out, 31 planned for 24.
    "torch_value_ranges_expanded_bound:two-offsets": (
        "exir",
        """
        import fuzz.custom_ops  # noqa: F401

        def program(x):
            return (torch.ops.fuzz.positive(x[1:, 1:]),)

        def calls():
            return [(torch.randn(3, 4),), (torch.randn(4, 6),)]

        DIMS = {"x": {0: (2, 5), 1: (3, 7)}}
        """,
    ),
    # The function form, at dim 0, of an intermediate that is empty at the second call
    # only (the first call's sizes divide: both agree there).
    "thunder_unflatten_empty_unchecked_sizes": (
        "thunder",
        """
        def program(x, y):
            return (torch.unflatten(x * 2.0, 0, (2, 2)), y + 1)

        def calls():
            return [(torch.randn(4, 3), torch.randn(2)), (torch.randn(3, 0), torch.randn(2))]
        """,
    ),
    # The to_edge and export bugs in programs the runtime has no kernel for (a stable sort):
    # the lane compares the edge program's result instead, exir.edge-result (NO_KERNEL).
    "executorch_scalar_constant_float32:no-kernel": (
        "exir",
        """
        def program(x):
            return (torch.sort(x, stable=True).values - 10.1,)

        def calls():
            return [(torch.tensor([10.1, 10.1], dtype=torch.float64),)]
        """,
    ),
    "executorch_zero_dim_scalar_promotion:no-kernel": (
        "exir",
        """
        def program(x, y):
            return (x + 0.5, torch.sort(y, stable=True).values)

        def calls():
            return [(torch.tensor(1.25, dtype=torch.bfloat16), torch.randn(4))]
        """,
    ),
    "torch_dropout_eval_identity_mutation_lost:no-kernel": (
        "exir",
        """
        import torch.nn.functional as F

        def program(x, y):
            v = F.dropout(x, p=0.0, training=False)
            v.copy_(torch.sort(y, dim=0, stable=True).values * 2.0)
            return (v + 1,)

        def calls():
            return [(torch.randn(3, 4), torch.randn(3, 4)), (torch.randn(5, 4), torch.randn(5, 4))]
        """,
    ),
    # The specialized size bounds a data-dependent one: the edge program's runtime assertion
    # `u0 <= 2` on the unique's length fails at 3 rows (a fault-benchmark night's program,
    # seed 4, 2026-12-05, the fault's op shrunk away).
    "torch_decompositions_specialize_empty_at_example:no-kernel-assert": (
        "exir",
        """
        def program(x1):
            v7 = torch.unique(x1, sorted=True)
            torch._check(v7.shape[0] <= x1.numel())
            v8, v9 = torch.tensor_split(x1 + 1, (2,), 0)
            return (v7, v8, v9)

        def calls():
            return [(torch.randn(2),), (torch.randn(3),)]

        DIMS = {"x1": {0: (2, 6)}}
        """,
    ),
    "torch_decompositions_specialize_empty_at_example:no-kernel": (
        "exir",
        """
        def program(x):
            a, b = torch.tensor_split(torch.sort(x, dim=1, stable=True).values, (2,), 0)
            return (a, b)

        def calls():
            return [(torch.randn(2, 1),), (torch.randn(3, 1),)]

        DIMS = {"x": {0: (2, 6)}}
        """,
    ),
}
NO_KERNEL = sorted(v for v in VARIANTS if ":no-kernel" in v)


def test_a_pattern_of_another_bug_that_recognises_a_case_is_reported():
    """The corpus items' cross-match check (fuzz.pytest_plugin) names the other bug's case."""
    from fuzz.pytest_plugin import foreign_matches

    case = case_from_source(
        "import torch\n\ndef program(a, b):\n    return (a + b,)\n\n"
        "def calls():\n    return [(torch.ones(2), torch.ones(2))]\n",
        "some_other_bug",
    )
    wrong = {
        "kind": "thunder.wrong-result",
        "stage": "call[0]",
        "details": "output 0: values differ",
        "data": {"control": "diverges too", "facts": {"inputs": ["disjoint-views"]}},
    }
    assert any("by thunder_disjoint_views_inplace" in m for m in foreign_matches(case, [wrong]))
    alone = wrong | {"data": {"control": "diverges too", "facts": {"inputs": []}}}
    assert foreign_matches(case, [alone]) == []


def test_the_zero_dim_promotion_after_a_values_departure_is_recognised_by_its_dtype_origin():
    """The form a default night reported as new on 2026-12-02 (a float16 einsum, then
    `.mean() * 1.5` in a loop): the first departure was the einsum's, by values, and the
    promotion's dtype departure came later. Stock lowerings rarely depart by values, so no
    hand-written program shows it (tests/exir/test_exir_origin.py makes one by swapping a
    kernel); here are the facts the night observed, and the same facts with a dimensioned
    tensor among the promoted op's operands (no longer this bug's rule) or without a dtype
    departure."""
    night = {
        "kind": "exir.runtime-result",
        "stage": "call[2]",
        "details": "output 0: dtype torch.float32, expected torch.float16",
        "data": {
            "facts": {
                "ops": ["aten.einsum.default", "dim_order_ops._to_dim_order_copy.default"],
                "origin": "aten.einsum.default:values",
                "origin_class": "aten.einsum.default",
                "dtype_origin": "aten.mul.Tensor:0-dim,number",
                "sizes": [],
            }
        },
    }
    source = "import torch\n\ndef program(x):\n    return (x,)\n"
    known = [Path(w).stem for w in INDEX.known_as(night, source)]
    assert known == ["executorch_zero_dim_scalar_promotion"]
    facts = night["data"]["facts"]
    for changed in (
        {"dtype_origin": "aten.mul.Tensor:0-dim,number,tensor"},
        {"dtype_origin": "aten.mul.Tensor:number,tensor"},
        {"dtype_origin": None},
    ):
        other = night | {"data": {"facts": facts | changed}}
        if changed["dtype_origin"] is None:
            del other["data"]["facts"]["dtype_origin"]
        assert INDEX.known_as(other, source) == [], changed


def test_an_index_crash_is_the_remainder_bug_only_with_an_integer_remainder_node():
    """The embedding crash of a negative integer remainder as observed (variant
    "executorch_remainder_int_sign:embedding-index"), with the runtime's log that says
    which check failed. Not this bug: the same crash without an integer remainder (an
    index made by subtraction, a float or unsigned remainder), an 0x12 whose log is
    another check (an empty index_select axis) or absent, another error or stage."""
    log = (
        " (runtime log: [op_embedding.cpp:52] Check failed (indices_ptr[i] >= 0): "
        "indices_ptr[0] -3 < 0; [method.cpp:1483] KernelCall failed at instruction 0:2 "
        "in operator aten::embedding.out: 0x12)"
    )
    error = "RuntimeError: method->execute() failed with error 0x12" + log
    crash = {
        "kind": "exir.crash",
        "stage": "call[0]",
        "details": "the runtime raised " + error,
        "data": {
            "error": error,
            "facts": {
                "ops": [
                    "aten.embedding.default",
                    "aten.embedding.default:float32",
                    "aten.remainder.Scalar",
                    "aten.remainder.Scalar:int64",
                ],
                "dtypes": ["float32", "int64"],
                "error_type": "RuntimeError",
            },
        },
    }
    source = "import torch\n\ndef program(x, w):\n    return (x,)\n"

    def known(d):
        return [Path(w).stem for w in INDEX.known_as(d, source)]

    assert known(crash) == ["executorch_remainder_int_sign"]
    facts = crash["data"]["facts"]
    embedding = ["aten.embedding.default", "aten.embedding.default:float32"]
    for ops in (
        [*embedding, "aten.sub.Tensor", "aten.sub.Tensor:int64"],
        [*embedding, "aten.remainder.Scalar", "aten.remainder.Scalar:float32"],
        [*embedding, "aten.remainder.Scalar", "aten.remainder.Scalar:uint8"],
    ):
        other = crash | {"data": crash["data"] | {"facts": facts | {"ops": ops}}}
        assert "executorch_remainder_int_sign" not in known(other), ops
    empty_axis = (
        "RuntimeError: method->execute() failed with error 0x12 (runtime log: "
        "[index_util.cpp:71] Check failed (nonempty_size(in, dim) > 0): ; "
        "[method.cpp:1483] KernelCall failed at instruction 0:1 in operator "
        "aten::index_select.out: 0x12)"
    )
    for kind, stage, error in (
        ("exir.crash", "call[0]", empty_axis),
        ("exir.crash", "call[0]", "RuntimeError: method->execute() failed with error 0x12"),
        ("exir.crash", "call[0]", "RuntimeError: method->execute() failed with error 0x20" + log),
        ("exir.crash", "process", "the process died (SIGSEGV)"),
        ("exir.crash", "to_edge", "RuntimeError: failed with error 0x12" + log),
    ):
        other = crash | {"kind": kind, "stage": stage, "details": error}
        other["data"] = crash["data"] | {"error": error}
        assert "executorch_remainder_int_sign" not in known(other), error


_LOGS_OF_0X12 = {
    "executorch_index_select_empty_axis": (
        "[index_util.cpp:71] Check failed (nonempty_size(in, dim) > 0): index_select: "
        "Indexing axis dim should be positive; nonempty_size(in, dim) = 0; "
        "[method.cpp:1483] KernelCall failed at instruction 0:3 in operator "
        "aten::index_select.out: 0x12",
        ["aten.index_select.default"],
    ),
    "executorch_prim_mod_sign": (
        "[index_util.cpp:94] Check failed (index_ptr[i] >= 0 && index_ptr[i] < "
        "nonempty_size(in, dim)): index[0] = -1 is out of range [0, 2); [method.cpp:1483] "
        "KernelCall failed at instruction 0:8 in operator aten::index_select.out: 0x12",
        ["operator.mod", "aten.fmod.Scalar", "aten.index_select.default"],
    ),
    "executorch_log_softmax_float64_unsupported": (
        "[op_log_softmax.cpp:171] Check failed (false): ; [method.cpp:1483] KernelCall "
        "failed at instruction 0:0 in operator aten::_log_softmax.out: 0x12",
        ["aten._log_softmax.default", "aten._log_softmax.default:float64"],
    ),
    "executorch_nonzero_squeeze_dim_order": (
        "[tensor_util_portable.cpp:130] Check failed (all_contiguous || all_channels_last): "
        "2 input tensors have different dim orders; [method.cpp:1483] KernelCall failed at "
        "instruction 0:2 in operator aten::squeeze_copy.dims_out: 0x12",
        ["aten.nonzero.default", "aten.nonzero.default:dim-order"],
    ),
}


@pytest.mark.parametrize("name", sorted(_LOGS_OF_0X12))
def test_an_invalid_argument_crash_is_the_bug_only_with_its_check_in_the_runtime_log(name):
    """Error 0x12 (InvalidArgument) is every portable kernel's failed check: a pattern on
    the code and the ops alone would claim a new bug of any kernel in such a program. Each
    of these bugs is recognised by its own failed check in the runtime's log (as observed
    on the corpus case), and not with another bug's check, or with no log."""
    log, ops = _LOGS_OF_0X12[name]

    def crash(runtime_log):
        error = "RuntimeError: method->execute() failed with error 0x12"
        if runtime_log is not None:
            error += f" (runtime log: {runtime_log})"
        return {
            "kind": "exir.crash",
            "stage": "call[0]",
            "details": "the runtime raised " + error,
            "data": {"error": error, "facts": {"ops": ops, "sizes": ["empty"]}},
        }

    source = "import torch\n\ndef program(x):\n    return (x,)\n"

    def known(d):
        return [Path(w).stem for w in INDEX.known_as(d, source)]

    assert name in known(crash(log))
    others = [other for key, (other, _) in _LOGS_OF_0X12.items() if key != name]
    for runtime_log in (*others, None):
        assert name not in known(crash(runtime_log)), runtime_log


def test_a_log_softmax_check_failure_is_the_float64_bug_only_with_a_float64_log_softmax():
    """The optimized log_softmax kernel's `Check failed (false)` is its dtype fall-through,
    but the kernel checks its arguments too (dim, dtypes of in and out): the same log from
    a float32 log_softmax is another bug, not the missing float64 path."""
    log, _ = _LOGS_OF_0X12["executorch_log_softmax_float64_unsupported"]
    error = f"RuntimeError: method->execute() failed with error 0x12 (runtime log: {log})"

    def known(ops):
        d = {
            "kind": "exir.crash",
            "stage": "call[0]",
            "details": "the runtime raised " + error,
            "data": {"error": error, "facts": {"ops": ops}},
        }
        source = "import torch\n\ndef program(x):\n    return (x,)\n"
        return [Path(w).stem for w in INDEX.known_as(d, source)]

    name = "executorch_log_softmax_float64_unsupported"
    assert known(["aten._log_softmax.default", "aten._log_softmax.default:float64"]) == [name]
    assert name not in known(["aten._log_softmax.default", "aten._log_softmax.default:float32"])
    assert name not in known(["aten.mul.Tensor:float64", "aten._log_softmax.default:float16"])


@pytest.mark.parametrize(
    "died",
    [
        "the process died (SIGABRT)",  # an isolated run (fuzz.outcome, a replay)
        # A nightly worker's death, confirmed by triage (the fixes-on 1,000-program EXIR
        # campaign of 2026-12-05 filed it as new: the patterns wanted the first wording).
        "the worker process died (SIGABRT) while exir ran this program",
    ],
)
def test_a_process_abort_is_the_empty_reduction_bug_only_with_its_reduction_in_the_log(died):
    """A death with the runtime's last log lines (fuzz.procs.RUNTIME_LOG_ENV) is the
    reduction plans' non-empty assertion only where the log names it, whichever process
    died: another kernel's abort, or one with no log, stays new."""

    def known(log):
        error = f"{died} (runtime log: {log})" if log else None
        data = {"returncode": -6, "facts": {"ops": ["aten.mul.Tensor"], "during": "calls"}}
        d = {"kind": "exir.crash", "stage": "process", "details": died, "data": data}
        if error:
            d["data"]["error"] = error
        source = "import torch\n\ndef program(x):\n    return (x,)\n"
        return [Path(w).stem for w in INDEX.known_as(d, source)]

    name = "executorch_amax_empty_abort"
    plan = (
        "[reduce_util.h:533] In function MapReduceOverDimListPlan(), assert failed "
        "(in.numel() > 0): Input tensor must be nonempty"
    )
    argmax = (
        "[reduce_util.h:494] In function map_reduce_over_dim<float, float, "
        "torch::executor::reduce_over_dim<float, native::argmax_out(executorch::runtime::K"
    )
    assert known(plan) == [name]
    assert known(argmax) == [name]
    assert name not in known(argmax.replace("argmax_out", "cumsum_out"))
    assert name not in known("[op_sort.cpp:80] assert failed (k > 0): k must be positive")
    assert name not in known(None)


def test_a_static_size_crash_is_the_empty_dim_order_bug_only_where_that_op_made_it():
    """A runtime refusal in a program whose lowering made a size of several dims static
    is the `_empty_dim_order` schema's bug only when that op's node is the one holding the
    static size: another op doing the same is another upstream gap."""
    error = (
        "RuntimeError: method->execute() failed with error 0x12 (runtime log: "
        "[tensor_impl.cpp:135] Attempted to resize a static tensor.)"
    )

    def known(specialized):
        facts = {"ops": ["dim_order_ops._empty_dim_order.default"], "specialized": specialized}
        d = {
            "kind": "exir.crash",
            "stage": "call[1]",
            "details": "the runtime raised " + error,
            "data": {"error": error, "facts": facts},
        }
        source = "import torch\n\ndef program(x):\n    return (x,)\n"
        return [Path(w).stem for w in INDEX.known_as(d, source)]

    name = "executorch_empty_dim_order_specializes"
    assert known(["to_edge:dim_order_ops._empty_dim_order.default"]) == [name]
    assert name not in known(["to_edge:aten.full.default"])
    assert name not in known(["to_executorch:dim_order_ops._empty_dim_order.out"])
    assert name not in known([])


def test_an_int_list_the_emitter_cannot_box_is_the_prune_bug_only_at_a_symbolic_full():
    """The emitter's "Unsupported type encountered in int list" is the empty-cat pruning
    bug where the node it marks is a full.out with a symbol in its size list (the pass's
    raw SymInt), not at another node or a full of plain sizes."""
    head = "InternalError: Failed with error: Unsupported type encountered in int list.\nAt: "
    full = (
        "%aten_full_default : [num_users=1] = call_function[target=torch.ops.aten.full.out]"
        "(args = (({sizes}), 0), kwargs = {{out: %alloc}})"
    )
    other = (
        "%aten_view_copy_default : [num_users=1] = call_function[target=torch.ops.aten."
        "view_copy.out](args = (%x0, [s4, 2]), kwargs = {out: %alloc})"
    )
    source = "import torch\n\ndef program(x):\n    return (x,)\n"

    def known(at):
        error = head + at + "\nHere is the node in the graph module:\ngraph():"
        d = {"kind": "exir.crash", "stage": "to_executorch", "details": error, "data": {}}
        return [Path(w).stem for w in INDEX.known_as(d, source)]

    name = "executorch_prune_empty_cat_symbolic_full"
    assert known(full.format(sizes="0, 2*s4, 4")) == [name]
    assert known(full.format(sizes="s4, 0")) == [name]
    assert name not in known(full.format(sizes="0, 6, 4"))
    assert name not in known(other)


def test_an_invalid_call_target_is_the_pow_bug_only_for_pow():
    """The emitter's "invalid target for call_function" is the missing symbolic `pow`
    only when the target is `pow`: another Python operator missing from ExecuTorch's
    table of symbolic ops is another gap with its own fix, and stays new."""
    head = "InternalError: Failed with error: invalid target for call_function {target}\nAt: "
    node = "%n : [num_users=1] = call_function[target={name}](args = (%sym_size, 2), kwargs = {{}})"
    source = "import torch\n\ndef program(x):\n    return (x,)\n"

    def known(target, name):
        error = head.format(target=target) + node.format(name=name)
        d = {"kind": "exir.crash", "stage": "to_executorch", "details": error, "data": {}}
        return [Path(w).stem for w in INDEX.known_as(d, source)]

    pow_bug = "executorch_sym_pow_unsupported"
    assert known("<built-in function pow>", "operator.pow") == [pow_bug]
    assert pow_bug not in known("<built-in function and_>", "operator.and_")
    assert pow_bug not in known("<built-in function lshift>", "operator.lshift")
    assert pow_bug not in known("<function sym_sqrt at 0x7f>", "torch.sym_sqrt")


def test_an_index_out_of_range_made_by_subtraction_is_no_divergence():
    """A negative embedding index that no remainder made: eager raises too, so the lane
    sees no divergence, and there is no crash for the remainder bug's index forms to
    claim (they are about an index that is in range in eager)."""
    if not all_fixes_on():
        pytest.skip("the registry is written for the fixed stacks")
    source = (
        "import torch\n\ndef program(x, w):\n"
        "    return (torch.nn.functional.embedding(x - 3, w), torch.remainder(x, 3))\n\n"
        "def calls():\n    return [(torch.tensor([1, 4, 2, 5]), torch.randn(4, 3))]\n\n"
        "LANES = ('exir',)\n"
    )
    outcome = run_lane(case_from_source(source, "embedding_index_by_subtraction"), "exir", "cpu")
    assert outcome.status == "pass", outcome


# Variants that kill the process that runs them (a case's ISOLATE): each runs in a fresh
# process (fuzz.outcome.run_lane_isolated), and its crash is classified from the facts
# the lane announced before it died.
ISOLATED_VARIANTS = {
    # `//` of a constant by an unbacked size that a dropped torch._check kept nonzero:
    # executorch_prim::floordiv.Scalar(3, 0) at call 1, where eager's check raises.
    "executorch_prim_int_div_by_zero:floordiv": (
        "exir",
        """
        def program(x, y):
            u = x.nonzero().shape[0]
            torch._check(u > 0)
            return (y[3 // u] * 2,)

        def calls():
            return [
                (torch.tensor([1.0, 1.0, 0.0]), torch.arange(4.0)),
                (torch.zeros(3), torch.arange(4.0)),
            ]
        """,
    ),
    # The campaign's form: every call is fine; the lower contract probe (s0 = 1, below
    # the exported minimum 2) makes the conv1d output length `(s0 - 2) // 2 + 1` zero and
    # `1 % 0` kills the runtime (exir_crash_ae0327d7).
    "executorch_prim_int_div_by_zero:lower-probe": (
        "exir",
        """
        import torch.nn.functional as F

        def program(x, n):
            w = (torch.arange(6, dtype=x.dtype) / 6 - 0.5).reshape(3, 1, 2)
            v = F.conv1d(x[None, None], w, stride=2).permute(2, 0, 1)
            return (v[n % v.shape[0]],)

        def calls():
            return [(torch.randn(3, dtype=torch.bfloat16), 1)]

        DIMS = {"x": {0: (2, 5)}}
        """,
    ),
    # log_softmax over a dim whose trailing dim is empty, after an op (as generated).
    "executorch_log_softmax_empty_sigfpe:trailing-empty": (
        "exir",
        """
        import torch.nn.functional as F

        def program(x):
            return (F.log_softmax(x * 2.0, dim=-3),)

        def calls():
            return [(torch.randn(2, 3, 0),)]
        """,
    ),
    # Every call is fine; the lower contract probe (rows 1, below the exported 2) makes
    # `x[1:]` empty and the runtime, which accepts it, aborts in amin's reduction plan
    # (its log says so; the probe's input itself is not empty).
    "executorch_amax_empty_abort:amin-lower-probe": (
        "exir",
        """
        def program(x):
            return (torch.amin(x[1:], dim=(0, 1), keepdim=True) * 2.0,)

        def calls():
            return [(torch.randn(3, 4),), (torch.randn(5, 4),)]

        DIMS = {"x": {0: (2, 6)}}
        """,
    ),
    # The same for argmax: the lower probe (1 column) leaves tensor_split's first piece
    # empty (the fault-benchmark night's exir_crash_c11c0836, shrunk by hand).
    "executorch_amax_empty_abort:argmax-lower-probe": (
        "exir",
        """
        def program(x):
            v, w = torch.tensor_split(x, 2, 1)
            return (torch.argmax(v), w * 2.0)

        def calls():
            return [(torch.randn(3, 2),), (torch.randn(4, 3),)]

        DIMS = {"x": {0: (3, 5), 1: (2, 3)}}
        """,
    ),
    # amin, lowered from aminmax, over the non-empty dim of an empty tensor.
    "executorch_amax_empty_abort:aminmax": (
        "exir",
        """
        def program(x):
            return (torch.aminmax(x * 2.0, dim=0)[0],)

        def calls():
            return [(torch.randn(1, 0),)]
        """,
    ),
}


def _outcome(variant: str, tmp_path: Path):
    """Run a variant: in this process, or (ISOLATED_VARIANTS) in a fresh one."""
    isolated = variant in ISOLATED_VARIANTS
    lane, body = (ISOLATED_VARIANTS if isolated else VARIANTS)[variant]
    name = "variant_of_" + variant.partition(":")[0]
    source = "import torch\n\n" + textwrap.dedent(body) + f"\nLANES = ({lane!r},)\n"
    if not isolated:
        return run_lane(case_from_source(source, name), lane, "cpu", index=INDEX)
    path = tmp_path / f"{name}.py"
    path.write_text(source + "ISOLATE = True\n")
    return run_lane_isolated(
        load_case(path), lane, "cpu", 0, switch="on", plugins=(), timeout=300, index=INDEX
    )


@pytest.mark.parametrize("variant", sorted(VARIANTS) + sorted(ISOLATED_VARIANTS))
def test_a_variant_of_a_registered_bug_is_recognised_as_that_bug(variant, tmp_path):
    if not all_fixes_on():
        pytest.skip("the registry is written for the fixed stacks")
    registered = variant.partition(":")[0]
    outcome = _outcome(variant, tmp_path)
    assert outcome.status == "divergence", f"the variant did not diverge: {outcome}"
    # The other registered bugs the case names in ALSO show in its variants too, as theirs.
    also = case_metadata((INDEX_DIR / f"{registered}.py").read_text()).get("ALSO") or ()
    theirs = [
        d for d in outcome.divergences if len(d["known_as"]) == 1 and d["known_as"][0] in also
    ]
    assert len(theirs) < len(outcome.divergences), f"only ALSO's bugs diverged: {outcome}"
    for d in (d for d in outcome.divergences if d not in theirs):
        assert d["known_as"] == [registered], (
            f"{d['kind']} at {d['stage']} ({d['details'][:200]}), facts "
            f"{d['data'].get('facts')}: known as {d['known_as']}, not [{registered!r}]"
        )


@pytest.mark.parametrize("variant", NO_KERNEL)
def test_a_to_edge_bug_in_a_program_without_runtime_kernels_shows_as_an_edge_result(
    variant, tmp_path
):
    """The variants above are recognised through the edge program's result: the runtime
    did not run them, so a pattern of exir.runtime-result alone would miss them."""
    if not all_fixes_on():
        pytest.skip("the registry is written for the fixed stacks")
    kinds = {d["kind"] for d in _outcome(variant, tmp_path).divergences}
    assert "exir.edge-result" in kinds and "exir.runtime-result" not in kinds, kinds


def test_a_device_check_crash_is_the_cpu_index_bug_only_between_cuda_and_the_cpu():
    """The CPU machines cannot show Thunder's CPU-index-on-CUDA crash (its corpus item runs
    only where CUDA is), so here is the crash as the device machine's night observed it,
    in both orders, and the same check between two CUDA devices or with the meta device,
    which would be other bugs (a real device mismatch, a meta leak)."""

    def device(kind, index=None):
        tail = f", index={index})" if index is not None else ")"
        return f"thunder.devices.Device(type='{kind}'{tail}"

    def known(a, b, kind="thunder.crash"):
        error = f"Devices were expected to be the same, but got devices {a} and {b}!"
        d = {
            "kind": kind,
            "stage": "call[0]",
            "details": f"RuntimeError: {error}",
            "data": {"error": error, "facts": {"error_type": "RuntimeError"}},
        }
        source = "import torch\n\ndef program(x, n):\n    return (x[torch.arange(n)],)\n"
        return [Path(w).stem for w in INDEX.known_as(d, source)]

    name = "thunder_cpu_index_cuda_tensor"
    assert known(device("cuda", 0), device("cpu")) == [name]
    assert known(device("cpu"), device("cuda", 1)) == [name]
    assert known(device("cuda", 0), device("cuda", 1)) == []
    assert known(device("cuda", 0), device("meta")) == []
    assert known(device("cuda", 0), device("cpu"), "thunder.wrong-result") == []
