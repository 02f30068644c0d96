"""The parts of the repro export that need no stack run: values written as source, the
script's size, reading a script's outcome and output, the program's code as a Module,
root causes and their upstream status, the harness-word check and the index."""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from fuzz.case import case_from_source
from fuzz.corpus import root_causes, short_link, summary, upstream_status
from fuzz.repro_export.index import write_index
from fuzz.repro_export.issue import harness_words
from fuzz.repro_export.run import classify, clean_output
from fuzz.repro_export.script import THUNDER_SHIM, Script, lines_of_code
from fuzz.repro_export.source import module_source, program_code
from fuzz.repro_export.values import call_source, tensor_source


def _eval(src: str) -> torch.Tensor:
    return eval(src, {"torch": torch})


# ---- values ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "t",
    [
        torch.tensor([-4, 3]),
        torch.tensor([[1.541, -0.2934], [0.1, 1e-30]]),
        torch.tensor([True, False]),
        torch.tensor([1.0, float("nan"), -float("inf"), float("inf")]),
        torch.tensor([1.5, -2.25], dtype=torch.float16),
        torch.tensor([0.1, 0.7], dtype=torch.bfloat16),
        torch.tensor([1e-300, 3.0000000000000004], dtype=torch.float64),
        torch.tensor(2.5),
        torch.tensor([3], dtype=torch.int32),
        torch.tensor([1.0, 2.0]),  # integral floats stay float
    ],
)
def test_an_exact_literal_gives_the_same_tensor_back(t):
    back = _eval(tensor_source(t, exact=True))
    assert back.dtype == t.dtype and back.shape == t.shape
    assert torch.equal(back.isnan(), t.isnan()) if t.is_floating_point() else True
    same = back == t
    if t.is_floating_point():
        same |= back.isnan() & t.isnan()
    assert bool(same.all()), (tensor_source(t, exact=True), t)


def test_rounded_literals_keep_four_significant_digits():
    src = tensor_source(torch.tensor([1.5409960746765137, -0.2934]), exact=False)
    assert src == "torch.tensor([1.541, -0.2934])"


def test_constant_and_empty_tensors_are_written_as_makers():
    assert tensor_source(torch.ones(3000, dtype=torch.float16)) == (
        "torch.ones(3000, dtype=torch.float16)"
    )
    assert tensor_source(torch.zeros(2, 3)) == "torch.zeros(2, 3)"
    assert _eval(tensor_source(torch.full((4,), 7))).tolist() == [7] * 4
    empty = tensor_source(torch.empty(0, 3, dtype=torch.int64))
    assert empty == "torch.empty(0, 3, dtype=torch.int64)"
    assert _eval(empty).shape == (0, 3)


def test_many_varying_values_are_random_only_where_rounding_is_allowed():
    t = torch.randn(8, 8)
    assert tensor_source(t, exact=False) == "torch.randn(8, 8)"
    assert tensor_source(t, exact=True) is None  # every digit counts: not writable
    assert tensor_source(torch.arange(100), exact=False) is None  # integers: never made up


def test_views_and_shared_storage_are_not_written_out():
    base = torch.randn(3, 4)
    assert tensor_source(base.t()) is None  # non-contiguous
    assert call_source((base[0], base[1])) is None  # two views of one storage
    assert call_source((torch.tensor([1.0]), 3, 2.5, None)) == [
        "torch.tensor([1.0])",
        "3",
        "2.5",
        "None",
    ]
    assert tensor_source(torch.tensor([1.0]), device="cuda") == (
        'torch.tensor([1.0], device="cuda")'
    )


# ---- script size -------------------------------------------------------------------------


def test_lines_of_code_skip_blanks_comments_and_the_thunder_shim():
    text = "import torch\n\n# a comment\nx = (\n    1,\n)  # trailing\n\nprint(x)\n"
    assert lines_of_code(text) == 5  # import, the three lines of x, print
    script = Script(shim=THUNDER_SHIM).need("import torch", "import thunder").add("jfn = 1")
    assert lines_of_code(script.text(), script.shim) == 3  # import torch, import thunder, jfn
    assert "setattr(torch.Tensor, name, stub)" in script.text()


def test_a_script_seeds_torch_before_its_first_random_input():
    s = Script().need("import torch").add("model = 1").add("x = torch.randn(8, 8)").seeded()
    assert s.blocks[1].startswith("torch.manual_seed(0)\n")
    assert Script().add("x = 1").seeded().blocks == ["x = 1"]


# ---- outcomes and output -----------------------------------------------------------------

_TB = 'Traceback (most recent call last):\n  File "repro.py", line 3, in <module>\n'


@pytest.mark.parametrize(
    ("status", "stderr", "lane", "outcome"),
    [
        (0, "", "exir", "ok"),
        (-8, "", "exir", "reproduces"),  # SIGFPE
        (2, "", "thunder", "unavailable"),
        (1, _TB + "AssertionError: Tensor-likes are not equal!\n", "exir", "reproduces"),
        (1, _TB + "NameError: name 'x' is not defined\n", "exir", "error"),
        # raised inside a traced graph the stack generated: the stack's
        (
            1,
            _TB + '  File "<eval_with_key>.2", line 7, in forward\nNameError: s77\n',
            "exir",
            "reproduces",
        ),
        (1, _TB + "NotImplementedError: frobnicate\n", "thunder", "unsupported"),
        # the stack failed to import (a shim placed after it): the program never ran
        (
            1,
            _TB
            + "    from thunder.dynamo import thunderfx\n"
            + '  File "/x/site-packages/thunder/__init__.py", line 30, in <module>\n'
            + "AttributeError: type object 'Tensor' has no attribute 'align_as'\n",
            "thunderfx",
            "error",
        ),
        # "not supported" in an ExecuTorch lowering error is the bug, not a refusal
        (1, _TB + "RuntimeError: 0 in strides is not supported\n", "exir", "reproduces"),
        (
            1,
            "[method.cpp:9] Missing operator: [0] mylib::positive.out\n"
            + _TB
            + "RuntimeError: Failed to load method forward, error: 0x:14\n",
            "exir",
            "unsupported",
        ),
    ],
)
def test_outcomes_are_read_from_the_status_and_the_final_error(status, stderr, lane, outcome):
    assert classify(status, "", stderr, lane) == outcome


def test_clean_output_keeps_the_script_output_the_runtime_log_and_the_traceback(tmp_path):
    stderr = (
        "Failed to load /x/site-packages/torchao/_C.so: Could not load this library\n"
        "W1206 04:14:59 torch/utils/_pytree.py:630] <enum 'KernelPreference'> is an Enum\n"
        "[cpuinfo_utils.cpp:71] Reading file /sys/devices/soc0/image_version\n"
        "[op_embedding.cpp:52] Check failed (indices_ptr[i] >= 0): \n"
        "Traceback (most recent call last):\n"
        f'  File "{tmp_path.resolve()}/repro.py", line 9, in <module>\n'
        '  File "/venv/lib/python3.11/site-packages/torch/x.py", line 1, in f\n'
        "RuntimeError: method->execute() failed with error 0x12\n"
    )
    text = clean_output("eager: tensor([1])\n", stderr, tmp_path)
    assert text.splitlines()[0] == "eager: tensor([1])"
    assert "[op_embedding.cpp:52] Check failed" in text
    assert "torchao" not in text and "cpuinfo" not in text and "_pytree" not in text
    assert 'File "repro.py", line 9' in text and 'File "site-packages/torch/x.py"' in text
    assert text.endswith("failed with error 0x12")


# ---- the program's code ------------------------------------------------------------------

_CASE = '''"""doc"""

import torch
import torch.nn.functional as F

import fuzz.custom_ops  # noqa: F401


def helper(v):
    return v * 2


def program(x, n):
    y = torch.ops.fuzz.positive(x)
    return (F.relu(helper(y)) + n,)


def calls():
    return [(torch.randn(3), 2)]


LANES = ("exir",)
TITLE = "a title"
'''


def test_the_program_becomes_a_module_whose_forward_is_its_body():
    case = case_from_source(_CASE, "c")
    code = program_code(case)
    assert code.custom_ops == ["positive"] and "fuzz" not in code.body
    assert "torch.ops.mylib.positive(x)" in code.body
    assert "import torch.nn.functional as F" in code.helpers and "def helper" in code.helpers
    assert "TITLE" not in code.helpers and "fuzz" not in code.helpers
    source, model = module_source(code)
    assert model == "M()"
    assert source.startswith("class M(torch.nn.Module):\n    def forward(self, x, n):\n")
    ns = {"torch": torch, "F": torch.nn.functional, "helper": lambda v: v * 2}
    exec(source.replace("torch.ops.mylib.positive(x)", "x[x > 0]"), ns)
    assert ns["M"]()(torch.tensor([-1.0, 2.0]), 1)[0].tolist() == [5.0]


def test_a_recursive_or_starred_program_is_called_from_forward():
    source = textwrap.dedent(
        """
        import torch


        def program(*xs):
            return (xs[0] + 1,)


        def calls():
            return [(torch.ones(1),)]
        """
    )
    code = program_code(case_from_source(source, "c"))
    text, model = module_source(code)
    assert "def forward(self, *args):\n        return program(*args)" in text
    assert text.startswith("def program(*xs):")


# ---- root causes, upstream status, harness words, the index -------------------------------


def _write(folder: Path, name: str, **meta) -> Path:
    fields = "".join(f"{k} = {v!r}\n" for k, v in meta.items())
    path = folder / f"{name}.py"
    path.write_text(
        f'"""Known upstream bug (x 1.0): {name} goes wrong.\n\nMore."""\n\nimport torch\n\n\n'
        "def program(x):\n    return (x,)\n\n\ndef calls():\n    return [(torch.ones(1),)]\n\n\n"
        + fields
    )
    return path


def test_variants_fold_into_their_root_cause_and_status_follows_the_metadata(tmp_path):
    paths = [
        _write(tmp_path, "a", UPSTREAM="https://github.com/pytorch/executorch/issues/11086"),
        _write(tmp_path, "b", VARIANT_OF="a"),
        _write(tmp_path, "c", VARIANT_OF="b"),  # a chain folds into its root
        _write(tmp_path, "d", FIXED_IN="torch 2.13.0", TITLE="D is wrong"),
        _write(tmp_path, "e", CLASS="limitation"),
        _write(tmp_path, "f", VARIANT_OF="missing"),  # no such case: its own root
    ]
    causes = {r.name: r for r in root_causes(paths)}
    assert sorted(causes) == ["a", "d", "e", "f"]
    assert causes["a"].variants == ["b", "c"]
    assert causes["a"].status == "reported pytorch/executorch#11086"
    assert causes["d"].status == "fixed in torch 2.13.0" and causes["d"].title == "D is wrong"
    assert causes["e"].status == "limitation" and causes["f"].status == "unreported"
    assert causes["a"].title == "a goes wrong."
    assert upstream_status({}) == "unreported"
    assert short_link("https://github.com/o/r/pull/7") == "o/r#7"
    assert summary("Known limitation (y): it is so.\n\nMore.") == "it is so."


def test_harness_words_are_found_and_stack_api_names_are_not():
    assert harness_words("Found by the corpus case of the fuzz lane") == [
        "corpus",
        "case",
        "fuzz",
        "lane",
    ]
    assert harness_words("an exir.crash at to_edge") == ["exir.crash"]
    assert harness_words("jfn = thunder.jit(program); thunder.last_traces(jfn)") == []


def test_the_index_has_one_row_per_root_cause_and_the_size_figures(tmp_path):
    paths = [
        _write(tmp_path, "a", TITLE="A is wrong"),
        _write(tmp_path, "b", VARIANT_OF="a"),
        _write(tmp_path, "c"),
    ]
    exported = [
        SimpleNamespace(case=n, tracker="pytorch/executorch", outcome=o, lines=k)
        for n, o, k in (("a", "reproduces", 12), ("b", "ok", 30), ("c", "reproduces", 20))
    ]
    text = write_index(tmp_path, paths, exported).read_text()
    rows = [ln for ln in text.splitlines() if ln.startswith("| pytorch/")]
    assert len(rows) == 2
    assert (
        "[A is wrong](a/ISSUE.md) | unreported | reproduces | 12 | [b](b/ISSUE.md) (ok)" in rows[0]
    )
    assert f"median {20:g}, largest 30" in text


@pytest.mark.parametrize(
    "lane, kinds, checks",
    [
        ("thunder", ("thunder.unsound-hit",), ("hit",)),
        ("thunder", ("thunder.aliasing",), ("values", "sharing")),
        # a ThunderFX unsound hit is wrong values at a reused graph: no trace to compare
        ("thunderfx", ("thunderfx.unsound-hit",), ("values",)),
        ("thunderfx", ("thunderfx.aliasing",), ("values", "sharing")),
        # the decompositions lane's kinds are the Thunder lane's (same_bugs_as)
        ("thunderprims", ("thunderprims.unsound-hit",), ("hit",)),
        ("thunderprims", ("thunderprims.crash",), ("values",)),
    ],
)
def test_a_thunder_scripts_checks_follow_the_kinds_it_shows(lane, kinds, checks):
    from fuzz.repro_export.ladder import thunder_checks

    assert thunder_checks(SimpleNamespace(lane=lane, kinds=kinds)) == checks
