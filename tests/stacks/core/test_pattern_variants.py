"""Registered bugs are recognised in other programs that show them: other slicing, other
ops around the bug, other dtypes. Each variant is a hand-written program that shows a
registered bug in a form its corpus case does not have; it must be recognised as that
case's bug (by its MATCHES, on the facts the lane observed), and as no other. The
divergences of the other registered bugs a case names in ALSO (its program cannot help
showing them) are those bugs' own, as they are in the case itself.

A variant that is reported as new would cost a compiler engineer a morning on a known
bug; the row-block form of the disjoint-views bug was reported as new while the pattern
was a regex over how the harness rendered column blocks.

The variants are files, `corpus/variants/<case>/<form>.py` (fuzz.corpus.pattern_variants:
a case file with a docstring, LANES naming the one lane it runs on, ISOLATE when it kills
its process), each a test "<case>:<form>" here; a form named no-kernel* must show as the
edge program's result too. The tests below the variants' are the registry's patterns on
divergences as observed (facts no hand-written program shows on these machines).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fuzz.case import case_from_source, case_metadata, load_case
from fuzz.corpus import CorpusIndex, DirectoryCorpus, pattern_variants
from fuzz.outcome import run_lane, run_lane_isolated
from fuzz.prepare import all_fixes_on

INDEX_DIR = Path(__file__).resolve().parents[3] / "corpus"
INDEX = CorpusIndex.of([DirectoryCorpus(INDEX_DIR)])

# "<case>:<form>" -> the variant file corpus/variants/<case>/<form>.py, read.
VARIANTS = {v.id: v for v in pattern_variants(INDEX_DIR)}
NO_KERNEL = sorted(key for key, v in VARIANTS.items() if v.form.startswith("no-kernel"))


def _outcome(variant: str, tmp_path: Path):
    """Run a variant: in this process, or (ISOLATE) in a fresh one."""
    v = VARIANTS[variant]
    name = "variant_of_" + v.case
    if not v.isolate:
        return run_lane(case_from_source(v.source, name), v.lane, "cpu", index=INDEX)
    path = tmp_path / f"{name}.py"
    path.write_text(v.source)
    return run_lane_isolated(
        load_case(path), v.lane, "cpu", 0, switch="on", plugins=(), timeout=300, index=INDEX
    )


@pytest.mark.parametrize("variant", sorted(VARIANTS))
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
    """The no-kernel* variants are recognised through the edge program's result: the
    runtime did not run them, so a pattern of exir.runtime-result alone would miss them."""
    if not all_fixes_on():
        pytest.skip("the registry is written for the fixed stacks")
    kinds = {d["kind"] for d in _outcome(variant, tmp_path).divergences}
    assert "exir.edge-result" in kinds and "exir.runtime-result" not in kinds, kinds


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
    hand-written program shows it (tests/stacks/exir/test_exir_origin.py makes one by swapping a
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
