"""The corpus store (never overwrites, atomic), signatures, the corpus index, and the
seeded corpus files. Fast: nothing here runs a backend."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import pytest

from fuzz.campaign.findings import found_labels, render_finding, replace_docstring
from fuzz.case import CLASSES, CaseError, case_from_source, load_case
from fuzz.corpus import (
    CorpusIndex,
    DirectoryCorpus,
    ReadOnlyCorpus,
    ReadOnlyCorpusError,
    VariantError,
    expand_paths,
    pattern_variants,
)
from fuzz.divergence import stage_kind
from fuzz.signature import normalize_source, signature, signatures_of_source
from fuzz.tensors import materialize
from tests.helpers import pytest_corpus

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "corpus"

GENERATED_ADD = '''"""Generated program."""

import torch


def program(x0, x1):
    v2 = x0 + x1
    return (v2,)


def calls():
    out = []
    # call 0: s0=2
    x0_0 = torch.randn(2, 2)
    x1_0 = torch.randn(1,)
    out.append((x0_0, x1_0,))
    return out


LANES = ('thunder',)
DIMS = {}
META = {'families': ['broadcast'], 'decisions': [], 'ops': ['add']}
'''


# -- storage ---------------------------------------------------------------------------


def test_save_fetch_keys_delete(tmp_path):
    corpus = DirectoryCorpus(tmp_path / "c")
    assert corpus.keys() == []
    assert corpus.save("one", "A = 1\n") == "one"
    assert corpus.fetch("one") == "A = 1\n"
    assert corpus.fetch("missing") is None
    assert corpus.keys() == ["one"] and "one" in corpus
    corpus.delete("one")
    corpus.delete("one")  # deleting twice is fine
    assert corpus.keys() == []


def test_saving_twice_under_one_name_keeps_both(tmp_path):
    corpus = DirectoryCorpus(tmp_path)
    first = corpus.save("thunder_unsound_hit", "FIRST = 1\n")
    second = corpus.save("thunder_unsound_hit", "SECOND = 2\n")
    third = corpus.save("thunder_unsound_hit", "THIRD = 3\n")
    assert (first, second, third) == (
        "thunder_unsound_hit",
        "thunder_unsound_hit_2",
        "thunder_unsound_hit_3",
    )
    assert corpus.fetch(first) == "FIRST = 1\n"
    assert corpus.fetch(second) == "SECOND = 2\n"
    assert corpus.fetch(third) == "THIRD = 3\n"
    # No temporary files are left behind, and they would not count as cases anyway.
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "thunder_unsound_hit.py",
        "thunder_unsound_hit_2.py",
        "thunder_unsound_hit_3.py",
    ]


def test_never_overwrites_a_file_written_by_someone_else(tmp_path):
    (tmp_path / "case.py").write_text("MINE = 1\n")
    corpus = DirectoryCorpus(tmp_path)
    assert corpus.save("case", "THEIRS = 2\n") == "case_2"
    assert (tmp_path / "case.py").read_text() == "MINE = 1\n"


def test_concurrent_saves_under_one_name_all_survive(tmp_path):
    corpus = DirectoryCorpus(tmp_path)
    names: list[str] = []
    lock = threading.Lock()

    def save(i):
        name = corpus.save("same", f"N = {i}\n")
        with lock:
            names.append(name)

    threads = [threading.Thread(target=save, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(names)) == 16
    assert sorted(corpus.fetch(n) for n in names) == sorted(f"N = {i}\n" for i in range(16))


def test_without_hard_links_exclusive_create_still_never_overwrites(tmp_path, monkeypatch):
    def no_link(src, dst):
        raise OSError(errno.EPERM, "hard links not supported")

    monkeypatch.setattr(os, "link", no_link)
    corpus = DirectoryCorpus(tmp_path)
    assert corpus.save("x", "A = 1\n") == "x"
    assert corpus.save("x", "B = 2\n") == "x_2"
    assert corpus.fetch("x") == "A = 1\n" and corpus.fetch("x_2") == "B = 2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.py", "x_2.py"]


def test_names_are_sanitized_and_validated(tmp_path):
    corpus = DirectoryCorpus(tmp_path)
    assert corpus.save("thunder.unsound-hit 3", "A = 1\n") == "thunder_unsound_hit_3"
    with pytest.raises(ValueError):
        corpus.fetch("../escape")


def test_read_only_wrapper(tmp_path):
    corpus = DirectoryCorpus(tmp_path)
    corpus.save("a", "A = 1\n")
    ro = ReadOnlyCorpus(corpus)
    assert ro.keys() == ["a"] and ro.fetch("a") == "A = 1\n"
    with pytest.raises(ReadOnlyCorpusError):
        ro.save("b", "B = 1\n")
    with pytest.raises(ReadOnlyCorpusError):
        ro.delete("a")
    assert corpus.keys() == ["a"]


# -- signatures ------------------------------------------------------------------------


def test_same_program_found_twice_has_the_same_signature():
    other = GENERATED_ADD.replace('"""Generated program."""', '"""Another docstring."""')
    other = other.replace("torch.randn(2, 2)", "torch.randn(5, 3)")  # other calls
    other = other.replace("v2 = x0 + x1", "v7 = x0 + x1  # a comment").replace("(v2,)", "(v7,)")
    other += "FOUND = ('thunder.unsound-hit@call',)\n"
    a = signature("thunder.unsound-hit", "call[1]", GENERATED_ADD)
    b = signature("thunder.unsound-hit", "call[4]", other)
    assert a == b and a.digest == b.digest
    assert a.stage == "call" and a.lane == "thunder"


def test_signature_tells_programs_kinds_and_stages_apart():
    base = signature("thunder.unsound-hit", "call[1]", GENERATED_ADD)
    assert signature("thunder.wrong-result", "call[1]", GENERATED_ADD) != base
    assert (
        signature("thunder.unsound-hit", "call[1]", GENERATED_ADD.replace("x0 + x1", "x0 * x1"))
        != base
    )
    assert (
        signature("thunder.unsound-hit", "call[1]", GENERATED_ADD.replace("x0 + x1", "x1 + x0"))
        != base
    )
    assert stage_kind("to_executorch") == "to_executorch"
    # The call index goes, the probe or insertion point stays: they tell bugs apart.
    assert stage_kind("call[12]") == "call"
    assert stage_kind("pipeline-variance[repeat]") == "pipeline-variance[repeat]"
    assert stage_kind("contract[upper]") == "contract[upper]"
    assert signature("exir.unchecked-contract", "contract[upper]", GENERATED_ADD) != signature(
        "exir.unchecked-contract", "contract[guard]", GENERATED_ADD
    )


def test_generated_and_hand_written_forms_normalize_alike():
    seed = (CORPUS / "thunder_symbolic_cache_broadcast.py").read_text()
    assert (
        normalize_source(seed)
        == normalize_source(GENERATED_ADD)
        == "def program(a0, a1):\n    return a0 + a1"
    )


def test_normalization_keeps_branches_and_renames_consistently():
    src = """
import torch
def program(x0, x1):
    v2 = torch.sin(x0)
    if v2.shape[0] % 2 == 0:
        v3 = -v2
    else:
        v3 = v2 * v2
    v4 = v3.mul_(1.5)
    return (v4, x1)
"""
    norm = normalize_source(src)
    assert "if t0.shape[0] % 2 == 0:" in norm and "t1 = -t0" in norm
    assert "x0" not in norm and "v2" not in norm
    assert normalize_source(src.replace("v", "w")) == norm


def test_signatures_of_a_case_file_come_from_found_and_expect():
    seed = (CORPUS / "thunder_symbolic_cache_broadcast.py").read_text()
    sigs = signatures_of_source(seed)
    assert signature("thunder.unsound-hit", "call[1]", seed) in sigs
    known_bug = (CORPUS / "thunder_disjoint_views_inplace.py").read_text()
    kinds = {(s.kind, s.stage) for s in signatures_of_source(known_bug)}
    assert ("thunder.aliasing", "*") in kinds


def test_corpus_index_known_by_signature_or_by_expect_for_the_same_program():
    index = CorpusIndex.of([ReadOnlyCorpus(DirectoryCorpus(CORPUS))])
    # The generated form of the seed bug is known: same normalized program, same kind.
    where = index.known(signature("thunder.unsound-hit", "call[3]", GENERATED_ADD))
    assert where and where.endswith("thunder_symbolic_cache_broadcast.py")
    # Same program, kind the seed case never showed: new.
    assert index.known(signature("thunder.aliasing", "call[1]", GENERATED_ADD)) is None
    # A kind EXPECTed by some case does not make that kind known for other programs.
    assert "thunder.wrong-result" in index.expect_kinds
    assert index.known(signature("thunder.wrong-result", "call[0]", GENERATED_ADD)) is None
    disjoint = (CORPUS / "thunder_disjoint_views_inplace.py").read_text()
    assert index.known(signature("thunder.wrong-result", "call[0]", disjoint))


# -- case files ------------------------------------------------------------------------


PER_DIM_CASE = """
import torch
def program(x):
    return (x * 2,)
def calls():
    return [(torch.randn(3),)]
EXPECT = ("exir.unchecked-contract",)
MATCHES = ("exir.unchecked-contract@contract[upper]",)
"""


def _d(kind, stage, details="", **data):
    return {"kind": kind, "stage": stage, "details": details, "device": "cpu", "data": data}


def test_a_matches_pattern_knows_its_bug_on_any_program_and_nothing_else():
    index = CorpusIndex()
    index.add("corpus/per_dim.py", PER_DIM_CASE)
    other = "def program(a, b):\n    return (a - b,)\n"
    upper = _d("exir.unchecked-contract", "contract[upper]", "accepted s0=9 (max 8 + 1)")
    assert index.known_as(upper, other) == ["corpus/per_dim.py"]
    # Another probe kind is another bug: a new kind of unchecked contract is reported.
    assert index.known_as(_d("exir.unchecked-contract", "contract[guard]"), other) == []
    assert index.known_as(_d("exir.runtime-result", "call[0]"), other) == []
    assert index.known_as(_d("exir.crash", "contract[upper]"), other) == []


def test_patterns_match_on_details_source_and_data():
    index = CorpusIndex()
    index.add(
        "corpus/tuple_index.py",
        PER_DIM_CASE.replace(
            'MATCHES = ("exir.unchecked-contract@contract[upper]",)',
            "MATCHES = ({'kind': 'thunder.crash', 'details': 'not IntegerProxy', "
            "'source': r'\\(0\\.5, 1\\.5'},"
            " {'kind': 'exir.bound-loss', 'data': {'needed': 1, 'planned': 2}})",
        ),
    )
    lookup = "def program(x):\n    return (0.5, 1.5, 2.5)[x.shape[0] % 3] * x\n"
    crash = _d(
        "thunder.crash",
        "call[0]",
        "thunder raised TypeError: ...",
        error="TypeError: tuple indices must be integers or slices, not IntegerProxy",
    )
    assert index.known_as(crash, lookup) == ["corpus/tuple_index.py"]
    assert index.known_as(crash, "def program(x):\n    return x\n") == []  # source differs
    assert index.known_as(_d("thunder.crash", "call[0]", "KeyError: 3"), lookup) == []
    assert index.known_as(_d("exir.bound-loss", "plan-bounds", needed=1, planned=2), "") == [
        "corpus/tuple_index.py"
    ]
    assert index.known_as(_d("exir.bound-loss", "plan-bounds", needed=4, planned=8), "") == []


def test_a_lane_on_another_lanes_stack_is_matched_by_that_lanes_patterns_only_there():
    """The XNNPACK lane runs EXIR's `to_edge` and the ThunderFX lane `thunder.jit`
    (register_kinds `same_bugs_as`): their registered bugs are known on the other lane at
    the same stage with the same details; another stage, or a kind not mapped (another
    cache's unsound hits), is not."""
    index = CorpusIndex()
    index.add(
        "corpus/edge.py",
        PER_DIM_CASE.replace(
            'MATCHES = ("exir.unchecked-contract@contract[upper]",)',
            "MATCHES = ({'kind': 'exir.crash', 'stage': 'to_edge', 'details': 'AssertionError'},"
            " {'kind': 'thunder.crash', 'details': 'has no len'},"
            " {'kind': 'thunder.unsound-hit', 'details': 'stale'})",
        ),
    )
    assert index.known_as(_d("xnnpack.crash", "to_edge", "AssertionError: "), "") == [
        "corpus/edge.py"
    ]
    lowering = _d("xnnpack.crash", "to_edge_transform_and_lower", "AssertionError: ")
    assert index.known_as(lowering, "") == []  # the delegate's own lowering: not EXIR's
    assert index.known_as(_d("thunderfx.crash", "call[1]", "generator has no len()"), "") == [
        "corpus/edge.py"
    ]
    assert index.known_as(_d("thunderfx.unsound-hit", "call[1]", "stale"), "") == []
    assert index.known_as(_d("exir.crash", "to_edge", "KeyError"), "") == []


def test_same_bugs_as_names_kinds_of_the_lane_and_of_another():
    from fuzz.divergence import register_kinds

    with pytest.raises(ValueError, match="same_bugs_as"):
        register_kinds("plugin", {"plugin.crash": "x"}, {"plugin.other": "exir.crash"})
    with pytest.raises(ValueError, match="same_bugs_as"):
        register_kinds("plugin", {"plugin.crash": "x"}, {"plugin.crash": "plugin.crash"})


def test_a_pattern_that_would_hide_a_whole_kind_is_a_case_error():
    for bad, why in (
        ('MATCHES = ("thunder.wrong-result@call",)', "would count every"),
        ('MATCHES = ("thunder.nonsense@call[x]",)', "names no divergence kind"),
        ("MATCHES = ({'kind': 'exir.crash', 'detail': 'x'},)", "unknown field"),
        ("MATCHES = ({'kind': 'exir.crash', 'details': '('},)", "not a regular expression"),
        ('EXPECT = ("exir.nonsense",)', "unknown divergence kinds"),
        # Built, not written out: the registry (ast.literal_eval) would see no pattern.
        (
            'MATCHES = tuple(p for p in ("exir.unchecked-contract@contract[upper]",))',
            "must be a literal",
        ),
    ):
        source = PER_DIM_CASE.replace('MATCHES = ("exir.unchecked-contract@contract[upper]",)', bad)
        source = (
            source.replace('EXPECT = ("exir.unchecked-contract",)\n', "")
            if "EXPECT" in bad
            else source
        )
        with pytest.raises(CaseError, match=why) as e:
            case_from_source(source, "bad", Path("corpus/bad.py"))
        assert "corpus/bad.py" in str(e.value)


def test_seeded_corpus_cases_load_and_say_what_they_are():
    names = {p.stem for p in CORPUS.glob("*.py")}
    assert {
        "thunder_symbolic_cache_broadcast",
        "thunder_symbolic_cache_shape_branch",
        "executorch_specprop_unbacked_bound",
    } <= names
    for path in sorted(CORPUS.glob("*.py")):
        case = load_case(path)
        assert len(case.doc) > 200, f"{path}: the docstring must say what diverges and why"
        assert case.lanes, f"{path}: a corpus case names its lanes"
        assert materialize(case, 0), path
        # What it registers, so reports count bugs, limitations and plan quality apart.
        assert case.bug_class in CLASSES, f"{path}: CLASS must be one of {sorted(CLASSES)}"
    spec = load_case(CORPUS / "executorch_specprop_unbacked_bound.py")
    assert spec.lanes == ("exir",) and spec.dims == {"x": {0: (2, 8)}} and not spec.expect
    for name in ("thunder_symbolic_cache_broadcast", "thunder_symbolic_cache_shape_branch"):
        case = load_case(CORPUS / f"{name}.py")
        assert case.lanes == ("thunder",) and not case.expect  # fixed by our fixes
        assert [tuple(t.shape for t in c) for c in materialize(case, 0)][0]


def test_rendered_finding_is_a_loadable_case_with_its_signatures():
    divergences = [
        {
            "kind": "thunder.unsound-hit",
            "stage": "call[1]",
            "device": "cpu",
            "details": 'cache hit ran """another""" trace \\ here',
            "data": {"control": "agrees"},
        },
        {
            "kind": "thunder.wrong-result",
            "stage": "call[1]",
            "device": "cpu",
            "details": "output 0: shape (2, 8), expected (2, 2)",
            "data": {},
        },
    ]
    text = render_finding(
        GENERATED_ADD,
        divergences,
        how="Found by a test.",
        fixes={},
        versions={"torch": "2.13.0"},
        shrunk="yes",
        signatures=["abc"],
        switch="off",
    )
    case = case_from_source(text, "found")
    assert case.doc.startswith("thunder.unsound-hit at call[1] on cpu")
    assert "Generated program." not in text and "Fixes active: none." in case.doc
    assert '"""another"""' in case.doc
    assert found_labels(divergences) == ["thunder.unsound-hit@call", "thunder.wrong-result@call"]
    sigs = signatures_of_source(text)
    assert signature("thunder.wrong-result", "call[1]", GENERATED_ADD) in sigs
    # Rendering again replaces the docstring and FOUND, it does not stack them.
    again = render_finding(
        text, divergences[:1], how="x", fixes={}, versions={}, shrunk="yes", signatures=[]
    )
    assert again.count('"""') == 2 and again.count("FOUND = ") == 1
    assert replace_docstring("X = 1\n", "doc").startswith('"""doc\n"""')


def test_pytest_collects_corpus_cases_one_item_per_lane_and_device(tmp_path):
    """fuzz.pytest_plugin: each case file in a corpus folder becomes (lane, device) items; a file
    that cannot be loaded is one failing item naming the problem; the others still run."""

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "bad.py").write_text("def program(x)\n    return x\n")
    (corpus / "good.py").write_text(
        '"""A good case."""\nimport torch\n\ndef program(x):\n    return x * 2\n\n'
        "def calls():\n    return [(torch.randn(2, 3),)]\n\nLANES = ('thunder',)\n"
    )
    # The repository's conftest as a plugin, and the fast test lane standing in for Thunder.
    proc = pytest_corpus(corpus, "tests.crash_ops", "off")
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:]
    assert "PASSED" in out and "good.py::thunder[cpu]" in out
    assert "SKIPPED" in out and "no CUDA device" in out  # good.py::thunder[cuda]
    assert "bad case file:" in out and "bad.py: syntax error at line 1" in out
    assert "1 failed, 1 passed, 1 skipped" in out


def test_the_stock_symbolic_cache_bug_is_known_in_any_program_and_only_without_the_fix():
    index = CorpusIndex.of([ReadOnlyCorpus(DirectoryCorpus(CORPUS))])
    seed_cases = ["thunder_symbolic_cache_shape_branch.py"]  # one entry per bug
    other = "def program(x, n):\n    return (x * n if x.shape[0] > n else -x,)\n"

    def known(kind, cache, control=None):
        data = {"symbolic_cache": cache} | ({"control": control} if control else {})
        return sorted(Path(p).name for p in index.known_as(_d(kind, "call[2]", **data), other))

    assert known("thunder.unsound-hit", "stock") == seed_cases
    assert known("thunder.wrong-result", "stock", "agrees with eager") == seed_cases
    assert known("thunder.aliasing", "stock", "agrees with eager") == seed_cases
    # With the fix applied, a cache divergence is a new bug (the fix missed a decision).
    assert known("thunder.unsound-hit", "fixed") == []
    assert known("thunder.wrong-result", "fixed", "agrees with eager") == []
    # A wrong result the default cache shares is not a cache bug, stock cache or not.
    assert known("thunder.wrong-result", "stock", "diverges too") == []
    # A crash is the cache's only on a cache hit the default cache gets right (a crash
    # while tracing under symbolic values is another bug: thunder_tuple_index_integerproxy).
    crash = _d("thunder.crash", "call[1]", symbolic_cache="stock", control="agrees with eager")
    assert index.known_as(crash | {"data": crash["data"] | {"cache_hit": False}}, other) == []
    hit = crash | {"data": crash["data"] | {"cache_hit": True}}
    assert sorted(Path(p).name for p in index.known_as(hit, other)) == seed_cases
    assert known("thunder.crash", "stock") == []


def test_a_bad_class_is_a_case_error_and_reports_count_classes_apart(tmp_path):
    from fuzz.campaign.report import registered_by_class

    bad = "import torch\ndef program(x):\n    return (x,)\n"
    bad += "def calls():\n    return [(torch.ones(1),)]\n"
    with pytest.raises(CaseError, match="CLASS must be one of"):
        case_from_source(bad + 'CLASS = "feature"\n', "bad")
    known = {
        str(CORPUS / "executorch_unbacked_bound_one_planned_two.py"): 3,
        str(CORPUS / "torch_export_dict_lookup_symint.py"): 2,
        str(CORPUS / "thunder_copy_broadcast.py"): 5,
        str(tmp_path / "gone.py"): 1,
    }
    assert registered_by_class(known) == {
        "bug": 5,
        "limitation": 2,
        "plan-quality": 3,
        "unclassified": 1,
    }


def test_a_case_registered_on_another_stack_reports_instead_of_failing(tmp_path):
    """VERSIONS: on the stack a case was registered on, EXPECT is a strict expected
    failure (a bug that stopped showing fails the suite); on another stack the item says
    "not reproduced on torch X, registered on Y" and skips, and replay notes it."""
    from importlib import metadata

    torch_version = metadata.version("torch").split("+")[0]
    body = (
        '"""A case."""\nimport torch\n\ndef program(x):\n    return x * 2\n\n'
        "def calls():\n    return [(torch.randn(2, 3),)]\n\nLANES = ('thunder',)\n"
        "DEVICES = ('cpu',)\nEXPECT = ('thunder.wrong-result',)\n"
    )
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "elsewhere.py").write_text(body + "VERSIONS = {'torch': '0.0.1'}\n")
    (corpus / "here.py").write_text(body + f"VERSIONS = {{'torch': '{torch_version}'}}\n")
    assert load_case(corpus / "here.py").version_drift() is None
    assert load_case(corpus / "elsewhere.py").version_drift() == (
        f"torch {torch_version}, registered on 0.0.1"
    )
    proc = pytest_corpus(corpus, "tests.crash_ops", "on")
    out = proc.stdout
    assert f"not reproduced on torch {torch_version}, registered on 0.0.1" in out, out[-3000:]
    assert "1 failed, 1 skipped" in out, out[-3000:]  # here.py: the strict xfail passed
    from fuzz.outcome import run_lane

    note = run_lane(load_case(corpus / "elsewhere.py"), "thunder", "cpu").note
    assert note.startswith(f"not reproduced as registered on torch {torch_version}"), note


def test_also_sets_aside_the_divergences_of_the_bugs_a_case_names_and_no_others(tmp_path):
    """ALSO: a case whose program cannot help showing another registered bug names it;
    the divergences that bug's MATCHES recognise are set aside (replay and the corpus
    items judge the case by the rest), and a name that is no case beside it is an error."""
    from fuzz.case import also_patterns, set_aside

    body = "import torch\ndef program(x):\n    return (x,)\n"
    body += "def calls():\n    return [(torch.ones(1),)]\n"
    (tmp_path / "other_bug.py").write_text(
        body + "MATCHES = ({'kind': 'exir.pipeline-variance', 'details': 'is_int'},)\n"
    )
    (tmp_path / "this_bug.py").write_text(body + "ALSO = ('other_bug',)\n")
    case = load_case(tmp_path / "this_bug.py")
    assert case.also == ("other_bug",) and len(also_patterns(case)) == 1
    theirs = {"kind": "exir.pipeline-variance", "stage": "pipeline-variance[after-asserts]"}
    theirs["details"] = "raise AttributeError: 'int' object has no attribute 'is_int'"
    other_variance = theirs | {"details": "changes the memory plan"}
    crash = {"kind": "exir.crash", "stage": "call[1]", "details": "error 0x12"}
    assert set_aside(case, [crash, theirs, other_variance]) == [theirs]
    (tmp_path / "this_bug.py").write_text(body + "ALSO = ('no_such_case',)\n")
    with pytest.raises(CaseError, match="ALSO names 'no_such_case'"):
        set_aside(load_case(tmp_path / "this_bug.py"), [crash])


def test_every_case_says_what_to_file_upstream_in_the_maintainers_words():
    """TITLE and DESCRIBE become the upstream issue (fuzz/repro_export/issue.py): set on
    every case, without a word of the harness's own; VARIANT_OF names a case of the
    corpus, and following it ends at a root cause (no cycle)."""
    from fuzz.case import case_metadata
    from fuzz.repro_export.issue import harness_words

    metas = {p.stem: case_metadata(p.read_text()) for p in sorted(CORPUS.glob("*.py"))}
    for name, meta in metas.items():
        assert meta.get("TITLE") and meta.get("DESCRIBE"), name
        assert len(meta["TITLE"]) <= 100, name
        words = harness_words(meta["TITLE"] + "\n" + meta["DESCRIBE"])
        assert not words, (name, words)
        seen, at = {name}, name
        while metas[at].get("VARIANT_OF"):
            at = metas[at]["VARIANT_OF"]
            assert at in metas and at not in seen, (name, at)
            seen.add(at)


_VARIANT = (
    '"""Another form."""\n\nimport torch\n\n\ndef program(x):\n    return (x,)\n\n\n'
    'def calls():\n    return [(torch.ones(2),)]\n\n\nLANES = ("exir",)\n'
)


@pytest.mark.parametrize(
    "where, text, problem",
    [
        ("a/b.py", _VARIANT, "names no corpus case with MATCHES"),
        ("case/Bad Name.py", _VARIANT, "lowercase letters"),
        ("case/test_x.py", _VARIANT, "not test*"),
        ("case/b.txt", _VARIANT, "a variant is a file"),
        ("case/b.py", _VARIANT.replace("(x,)\n", "(x,\n"), "syntax error"),
        ("case/b.py", _VARIANT.replace('"""Another form."""', ""), "needs a docstring"),
        ("case/b.py", _VARIANT.replace("def calls", "def call"), "`program` and `calls`"),
        ("case/b.py", _VARIANT.replace('("exir",)', '("exir", "thunder")'), "LANES must"),
        ("case/b.py", _VARIANT.replace('("exir",)', '("cuda",)'), "LANES must"),
        ("case/b.py", _VARIANT + "EXPECT = ()\n", "EXPECT: a corpus case's field"),
        ("case/b.py", _VARIANT + "DIMS = {'x': 1}\n", "DIMS must be"),
        ("case.py", _VARIANT, "not a folder <case>/"),
    ],
)
def test_a_bad_pattern_variant_file_is_named_with_what_is_wrong(tmp_path, where, text, problem):
    """corpus/variants/<case>/<form>.py (tests/stacks/core/test_pattern_variants.py runs them)."""
    (tmp_path / "case.py").write_text(
        'MATCHES = ({"kind": "exir.crash", "details": "x"},)\n' + _VARIANT
    )
    path = tmp_path / "variants" / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    with pytest.raises(VariantError) as e:
        pattern_variants(tmp_path)
    assert str(e.value).startswith(str(path)) and problem in str(e.value), str(e.value)


def test_pattern_variants_are_read_but_never_corpus_cases(tmp_path):
    (tmp_path / "case.py").write_text(
        'MATCHES = ({"kind": "exir.crash", "details": "x"},)\n' + _VARIANT
    )
    (tmp_path / "variants" / "case").mkdir(parents=True)
    (tmp_path / "variants" / "case" / "other-form.py").write_text(_VARIANT + "ISOLATE = True\n")
    (variant,) = pattern_variants(tmp_path)
    assert (variant.id, variant.lane, variant.isolate) == ("case:other-form", "exir", True)
    assert variant.source.startswith("import torch\n") and "Another form" not in variant.source
    assert DirectoryCorpus(tmp_path).keys() == ["case"]
    assert expand_paths([tmp_path]) == [tmp_path / "case.py"]
    assert {v.case for v in pattern_variants(CORPUS)} <= set(DirectoryCorpus(CORPUS).keys())
