"""The parts of docs/ that are generated from the code, never copied by hand.

    python -m fuzz.docs bugs      print docs/bugs.md (every corpus case)
    python -m fuzz.docs write     rewrite docs/bugs.md and the generated blocks in docs/
    python -m fuzz.docs check     list what is stale (exit 1), else exit 0

What is generated, and from where:

    docs/bugs.md                 the corpus (corpus/*.py, read with `ast`: nothing runs):
                                 each case's name, lanes, kinds, UPSTREAM link and the
                                 first paragraph of its docstring
    docs/architecture.md, block  the layers: the import-linter contracts in pyproject.toml,
    "layers"                     each module with the first paragraph of its docstring
    docs/reference.md, blocks    divergence kinds (fuzz.divergence.KINDS), case-file fields
    "kinds", "case-fields",      (fuzz.case.METADATA), the fixes (the `fixes` registry),
    "fixes", "cli", "exit"       the command-line options (fuzz.__main__.build_parser),
                                 exit statuses and blind-spot limits (fuzz.campaign.report)

A block is the text between `<!-- BEGIN GENERATED NAME ... -->` and `<!-- END GENERATED
NAME -->`; the rest of those files is written by people. tests/cover/core/test_docs.py fails when
any of it is stale. This module imports no torch.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from fuzz.case import CLASSES, METADATA, case_metadata
from fuzz.corpus import DirectoryCorpus, root_causes
from fuzz.divergence import KINDS

ROOT = Path(__file__).resolve().parents[1]
NO_UPSTREAM = "no upstream report"
REGENERATE = "python -m fuzz.docs write"


# ---- helpers ---------------------------------------------------------------------------


def _cell(text: str) -> str:
    """Text that fits in one Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def first_paragraph(doc: str) -> str:
    """The first paragraph of a docstring, on one line."""
    return " ".join(doc.strip().split("\n\n", 1)[0].split())


def _docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text())) or ""


def _table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    header = list(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


# ---- docs/bugs.md ----------------------------------------------------------------------


def case_kinds(meta: dict) -> list[str]:
    """Every kind a case names (EXPECT with the fixes on, FOUND as filed, MATCHES),
    in the order of fuzz.divergence.KINDS."""
    named = set(meta.get("EXPECT") or ())
    named |= {entry.split("@", 1)[0] for entry in meta.get("FOUND") or ()}
    named |= {m["kind"] for m in meta.get("MATCHES") or () if isinstance(m, dict) and "kind" in m}
    return [k for k in KINDS if k in named] + sorted(named - set(KINDS))


def bugs_md(corpus_dir: Path = ROOT / "corpus") -> str:
    corpus = DirectoryCorpus(corpus_dir)
    rows, by_link = [], {}
    for path in corpus.paths():
        source = path.read_text()
        meta = case_metadata(source)
        upstream = meta.get("UPSTREAM")
        if upstream:
            by_link.setdefault(upstream, []).append(path.stem)
        rows.append(
            (
                f"`{path.stem}`",
                str(meta.get("CLASS") or "unclassified"),
                ", ".join(meta.get("LANES") or ("all",)),
                ", ".join(f"`{k}`" for k in case_kinds(meta)) or "none named",
                upstream or NO_UPSTREAM,
                first_paragraph(_docstring(path)),
            )
        )
    without = sum(1 for r in rows if r[4] == NO_UPSTREAM)
    causes = root_causes(corpus.paths())
    unreported = sum(1 for r in causes if r.status == "unreported")
    classes = {c: sum(1 for r in rows if r[1] == c) for c in sorted({r[1] for r in rows})}
    out = [
        "# Bugs in the corpus",
        "",
        "Generated from `corpus/` by `python -m fuzz.docs bugs > docs/bugs.md`",
        f"(or `{REGENERATE}`); tests/cover/core/test_docs.py fails when this file is stale. Do not",
        "edit it by hand: edit the case file (its docstring's first paragraph is the summary).",
        "",
        f"{len(rows)} cases, {len(causes)} root causes ({unreported} unreported upstream): "
        f"{len(rows) - without} cases name an upstream report "
        f"({len(by_link)} distinct links), {without} have {NO_UPSTREAM} "
        "(the case file says what was searched).",
        "",
        "By class (`CLASS`: "
        + "; ".join(f"`{c}` {CLASSES[c]}" for c in CLASSES)
        + "): "
        + ", ".join(f"{n} {c}" for c, n in classes.items())
        + ". Only `bug` cases are reports to file upstream.",
        "",
        "Kinds are every kind the case names: `EXPECT` (what it shows with every fix on),",
        "`FOUND` (what it was filed for) and `MATCHES` (what recognises it in other programs).",
        "",
        "## Root causes",
        "",
        "One row per upstream bug, its variants folded in (`VARIANT_OF`), with what upstream",
        "knows of it (`UPSTREAM`, `FIXED_IN`, `CLASS`): the same rows as the index that",
        "`python -m fuzz repro corpus/ --out DIR` writes to `DIR/README.md`, which adds the",
        "tracker, the script and whether it reproduces on the installed stack",
        "([docs/repro.md](repro.md)).",
        "",
        _table(
            ("root cause", "issue title", "upstream", "variants"),
            (
                (
                    f"`{r.name}`",
                    r.title,
                    r.status,
                    ", ".join(f"`{v}`" for v in r.variants),
                )
                for r in causes
            ),
        ),
        "",
        "## Cases",
        "",
        _table(("case", "class", "lanes", "kinds", "upstream", "summary"), rows),
        "",
        "## Cases per upstream report",
        "",
        _table(
            ("upstream", "cases"),
            ((link, ", ".join(f"`{n}`" for n in names)) for link, names in sorted(by_link.items())),
        ),
    ]
    return "\n".join(out) + "\n"


# ---- generated blocks ------------------------------------------------------------------


def kinds_table() -> str:
    return _table(("kind", "meaning"), ((f"`{k}`", meaning) for k, meaning in KINDS.items()))


def case_fields_table() -> str:
    return _table(("field", "meaning"), ((f"`{k}`", f.meaning) for k, f in METADATA.items()))


def fixes_table() -> str:
    import fixes

    return _table(
        ("fix", "package", "versions", "upstream", "what it fixes"),
        (
            (f"`{f.name}`", f.package, f.versions, f.upstream, f.summary)
            for f in fixes.all_fixes().values()
        ),
    )


def _option_rows(parser: argparse.ArgumentParser) -> list[tuple[str, str, str]]:
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if action.option_strings:
            name = ", ".join(action.option_strings)
            if action.choices:
                name += " " + "|".join(action.choices)
            elif action.nargs != 0:
                name += " " + (action.metavar or action.dest.upper())
        else:
            name = action.metavar or action.dest.upper()
        default = action.default
        hidden = (
            default is None or default is False or default == [] or default == argparse.SUPPRESS
        )
        shown = "" if hidden else str(default)
        if isinstance(default, tuple):
            shown = ",".join(default)
        rows.append((f"`{name}`", shown, (action.help or "").replace("%%", "%")))
    return rows


def cli_tables() -> str:
    from fuzz.__main__ import build_parser

    parser = build_parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    parts = []
    for command, subparser in sub.choices.items():
        parts += [
            f"`python -m fuzz {command}`",
            "",
            _table(("option", "default", "meaning"), _option_rows(subparser)),
            "",
        ]
    return "\n".join(parts).rstrip()


def exit_table() -> str:
    from fuzz.campaign import report

    names = [n for n in dir(report) if n.startswith("EXIT_")]
    names += [n for n in dir(report) if n.endswith("_LIMIT") or n == "MIN_PROGRAMS_FOR_HITS"]
    return _table(("constant", "value"), ((f"`{n}`", repr(getattr(report, n))) for n in names))


def _module_path(module: str) -> Path:
    base = ROOT / Path(*module.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def layer_modules(layer: str) -> list[str]:
    """The modules of one entry of an import-linter `layers` list: `a : b` (modules that may
    import each other) or `a | b` (modules that may not)."""
    return [m.strip() for m in re.split(r"[:|]", layer)]


def layer_groups(init: Path = ROOT / "fuzz" / "__init__.py") -> list[tuple[str, list[str]]]:
    """The groups of fuzz/__init__.py's docstring, from the bottom: (name, modules named)."""
    doc = _docstring(init).split("\nLayers,", 1)[1].split("\n\n", 1)[0]
    groups: list[tuple[str, list[str]]] = []
    for line in doc.splitlines():
        if re.match(r"    \w", line):
            groups.append((line.split()[0], []))
        if groups:
            groups[-1][1].extend(re.findall(r"fuzz\.[\w.]+\w", line))
    return groups


def layers_block(pyproject: Path = ROOT / "pyproject.toml") -> str:
    import tomllib  # Python 3.11+; only this generator needs it

    contracts = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]["contracts"]
    names = [name for name, _ in reversed(layer_groups())]
    out = []
    for contract in contracts:
        out += [f"**{contract['name']}** (import-linter, `{contract['type']}`)", ""]
        if contract["type"] == "layers":
            rows = []
            for depth, layer in enumerate(contract["layers"], 1):
                group = (
                    f"{depth} {names[depth - 1]}"
                    if len(names) == len(contract["layers"])
                    else str(depth)
                )
                for module in layer_modules(layer):
                    rows.append(
                        (
                            group,
                            f"`{module}`",
                            first_paragraph(_docstring(_module_path(module))),
                        )
                    )
            out += [
                "From the top; a module may import only from layers below its own. Each layer",
                "is a group of fuzz/__init__.py's docstring; modules of one layer (separated in",
                "pyproject by `:`) may import each other.",
                "",
                _table(("layer", "module", "what it is (its docstring)"), rows),
                "",
            ]
        elif contract["type"] == "forbidden":
            sources = ", ".join(f"`{m}`" for m in contract["source_modules"])
            forbidden = ", ".join(f"`{m}`" for m in contract["forbidden_modules"])
            out += [f"{sources} never import {forbidden}.", ""]
    return "\n".join(out).rstrip()


BLOCKS: dict[tuple[str, str], Callable[[], str]] = {
    ("docs/architecture.md", "layers"): layers_block,
    ("docs/reference.md", "kinds"): kinds_table,
    ("docs/reference.md", "case-fields"): case_fields_table,
    ("docs/reference.md", "fixes"): fixes_table,
    ("docs/reference.md", "cli"): cli_tables,
    ("docs/reference.md", "exit"): exit_table,
}
WHOLE_FILES: dict[str, Callable[[], str]] = {"docs/bugs.md": bugs_md}


def _block_pattern(name: str) -> re.Pattern:
    name = re.escape(name)
    begin = rf"<!-- BEGIN GENERATED {name}\b[^>]*-->\n"
    return re.compile(rf"({begin})(.*?)(<!-- END GENERATED {name} -->)", re.S)


def with_block(text: str, name: str, body: str) -> str:
    """`text` with the generated block `name` holding `body` (ValueError: no such block)."""
    pattern = _block_pattern(name)
    if not pattern.search(text):
        raise ValueError(f"no generated block {name!r}")
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(3), text, count=1)


def expected_files(root: Path = ROOT) -> dict[str, str]:
    """What each generated file should hold, by path relative to `root`."""
    out = {path: make() for path, make in WHOLE_FILES.items()}
    for (path, name), make in BLOCKS.items():
        text = out.get(path) or (root / path).read_text()
        out[path] = with_block(text, name, make())
    return out


def stale(root: Path = ROOT) -> list[str]:
    """The generated files whose text is not what the code gives now."""
    out = []
    for path, text in expected_files(root).items():
        file = root / path
        if not file.is_file() or file.read_text() != text:
            out.append(path)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fuzz.docs", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("command", choices=("bugs", "write", "check"))
    args = parser.parse_args(argv)
    if args.command == "bugs":
        sys.stdout.write(bugs_md())
        return 0
    if args.command == "write":
        for path, text in expected_files().items():
            (ROOT / path).write_text(text)
            print(f"wrote {path}")
        return 0
    paths = stale()
    for path in paths:
        print(f"stale: {path} (run `{REGENERATE}`)")
    return 1 if paths else 0


if __name__ == "__main__":
    sys.exit(main())
