"""The documentation says what the code does: the generated parts of docs/ are current, the
tables a reader trusts equal the code they describe, and the README's commands, options,
exit statuses and links are real.
"""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

import fuzz.docs
from fuzz.case import case_metadata
from fuzz.corpus import DirectoryCorpus
from fuzz.divergence import KINDS

ROOT = Path(__file__).resolve().parents[3]
README = ROOT / "README.md"
# Options of other programs the README shows (ray, redis-server, pip, ruff), not ours.
OTHER_PROGRAMS_OPTIONS = {
    "--head",
    "--port",
    "--address",
    "--save",
    "--target",
    "--no-deps",
    "--check",
}


def _table_rows(text: str) -> list[list[str]]:
    """The body rows of the Markdown tables in `text`, cells stripped and unescaped."""
    rows = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("|---"):
            cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
            rows.append([c.strip().replace("\\|", "|") for c in cells])
    return rows


def _block(path: Path, name: str) -> str:
    match = re.search(
        rf"<!-- BEGIN GENERATED {name}\b[^>]*-->\n(.*?)<!-- END GENERATED {name} -->",
        path.read_text(),
        re.S,
    )
    assert match, f"{path.name} has no generated block {name!r}"
    return match.group(1)


def _pyproject_contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_generated_docs_are_current():
    stale = fuzz.docs.stale(ROOT)
    assert stale == [], f"stale: {stale}; run `{fuzz.docs.REGENERATE}` and commit the result"


def test_the_kinds_table_in_the_docs_is_the_catalogue_in_the_code():
    rows = _table_rows(_block(ROOT / "docs" / "reference.md", "kinds"))
    documented = {kind.strip("`"): meaning for kind, meaning in rows[1:]}
    assert documented == {kind: " ".join(meaning.split()) for kind, meaning in KINDS.items()}


def test_bugs_md_lists_every_corpus_case_with_its_upstream_report():
    text = (ROOT / "docs" / "bugs.md").read_text()
    rows = _table_rows(text.split("\n## Cases\n", 1)[1])
    header = rows[0]
    cases = {
        row[0].strip("`"): dict(zip(header, row))
        for row in rows[1:]
        if len(row) == len(header) and row[0].startswith("`")
    }
    corpus = DirectoryCorpus(ROOT / "corpus")
    assert sorted(cases) == corpus.keys()
    for name in corpus.keys():
        meta = case_metadata(corpus.fetch(name))
        assert cases[name]["upstream"] == (meta.get("UPSTREAM") or fuzz.docs.NO_UPSTREAM), name
        for kind in meta.get("EXPECT") or ():
            assert f"`{kind}`" in cases[name]["kinds"], (name, kind)


def test_the_layer_groups_in_fuzz_init_are_the_import_linter_layers():
    (layers,) = [c["layers"] for c in _pyproject_contracts() if c["type"] == "layers"]
    groups = fuzz.docs.layer_groups()
    assert [name for name, _ in groups] == ["core", "generator", "lanes", "commands"]
    # pyproject lists the layers from the top, the docstring its groups from the bottom.
    assert [sorted(fuzz.docs.layer_modules(layer)) for layer in reversed(layers)] == [
        sorted(modules) for _, modules in groups
    ], "fuzz/__init__.py's layer groups and pyproject.toml's layers contract differ"


def test_the_readme_names_no_commit_hash():
    text = README.read_text()
    hashes = [
        h
        for h in re.findall(r"\b[0-9a-f]{7,40}\b", text)
        if re.search(r"[a-f]", h) and re.search(r"\d", h)
    ]
    assert hashes == []


def test_the_readme_test_commands_are_the_ones_ci_runs():
    """The README's fast tier is pytest's default (tests/cover) and CI's first test
    command; CI's second runs the rest of the README's full suite (`tests corpus`), so
    together they run it whole, no test twice."""
    ci = (ROOT / ".ci" / "run").read_text()
    fast, rest = [
        line.strip()
        for line in ci.splitlines()
        if "python -m pytest" in line and not line.lstrip().startswith(("echo", "#"))
    ]
    readme = README.read_text()
    assert re.search(rf"^{re.escape(fast)}\s+# the tests: the fast tier", readme, re.M)
    assert re.search(rf"^{re.escape(fast)} tests corpus\s+# the full suite", readme, re.M)
    assert rest == f"{fast} tests/stacks corpus"
    pytest_ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    assert pytest_ini["ini_options"]["testpaths"] == ["tests/cover"]
    tiers = {p.relative_to(ROOT / "tests").parts[0] for p in (ROOT / "tests").rglob("test_*.py")}
    assert tiers == {"cover", "stacks"}  # so `tests` is the two tiers and nothing else
    assert re.search(r"^bash \.ci/with-env python -m fuzz nightly\s+# the main job", readme, re.M)


def test_every_option_the_readme_names_exists():
    from fuzz.__main__ import build_parser

    parser = build_parser()
    ours = {
        option
        for sub in parser._subparsers._group_actions[0].choices.values()
        for action in sub._actions
        for option in action.option_strings
    }
    # The guide's options; "Read more" names the benchmark scripts' own options.
    guide = README.read_text().split("## Read more", 1)[0]
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", guide))
    assert named - OTHER_PROGRAMS_OPTIONS - ours == set()


def test_the_readme_exit_table_has_the_report_exit_codes():
    from fuzz.campaign import report

    section = README.read_text().split("Exit status of `nightly`:", 1)[1].split("\n\n", 2)[1]
    codes = {int(row[0]) for row in _table_rows(section)[1:]}
    assert codes == {report.EXIT_CLEAN, report.EXIT_NEW, report.EXIT_ERRORS, report.EXIT_BLIND}


def test_links_in_the_readme_and_docs_point_to_files_that_exist():
    missing = []
    for doc in [README, ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", doc.read_text()):
            if not (doc.parent / target).exists():
                missing.append(f"{doc.relative_to(ROOT)} -> {target}")
    assert missing == []


def test_the_files_the_readme_names_exist():
    named = set(re.findall(r"[\w./-]+\.py\b", README.read_text()))
    missing = [
        name
        for name in named
        if not name.startswith("fuzz-out/")  # what a night writes
        and not (ROOT / name).exists()
        and not (ROOT / "benchmarks" / name).exists()
    ]
    assert named and missing == []


def test_where_tests_live_names_every_test_folder_and_none_is_left_at_the_top():
    """docs/architecture.md's table of test folders is the tree: a new test file goes into
    the folder of its area, and a new area is a new row."""
    doc = (ROOT / "docs" / "architecture.md").read_text()
    section = doc.split("## Where tests live", 1)[1].split("\n## ", 1)[0]
    named = {row[0].strip("`") for row in _table_rows(section)[1:]}
    tests = ROOT / "tests"
    assert sorted(p.name for p in tests.glob("test_*.py")) == []
    holding = {f"{p.parent.relative_to(ROOT).as_posix()}/" for p in tests.rglob("test_*.py")}
    assert named == holding


def test_bugs_md_has_one_row_per_root_cause_with_what_upstream_knows():
    from fuzz.corpus import root_causes

    text = (ROOT / "docs" / "bugs.md").read_text()
    rows = _table_rows(text.split("\n## Root causes\n", 1)[1].split("\n## Cases\n", 1)[0])
    listed = {row[0].strip("`"): row for row in rows[1:]}
    causes = root_causes(DirectoryCorpus(ROOT / "corpus").paths())
    assert sorted(listed) == sorted(c.name for c in causes)
    for cause in causes:
        assert listed[cause.name][2] == cause.status, cause.name
        for variant in cause.variants:
            assert f"`{variant}`" in listed[cause.name][3], (cause.name, variant)
