"""A repro script as it is assembled: imports, then blocks of code, then its text.

Scripts are short on purpose (a maintainer reads one in a minute), so their size is a
figure the exporter reports: `lines_of_code` counts the lines that are neither blank nor
comments, without the lines that only let lightning-thunder 0.2.6 import on torch 2.13
(`THUNDER_SHIM`), which a maintainer on a matching torch does not need.
"""

from __future__ import annotations

import dataclasses
import io
import tokenize

# lightning-thunder 0.2.6 registers these torch.Tensor methods at import; torch 2.13
# removed them. Named stubs let it import (Thunder's torch map checks each name).
THUNDER_SHIM = """# lightning-thunder 0.2.6 looks these up at import; torch 2.13 removed them
for name in ("align_as", "align_to", "has_names", "refine_names", "rename"):
    if not hasattr(torch.Tensor, name):
        stub = lambda self, *args, **kwargs: NotImplemented
        stub.__name__ = stub.__qualname__ = name
        setattr(torch.Tensor, name, stub)
"""


@dataclasses.dataclass
class Script:
    imports: list[str] = dataclasses.field(default_factory=list)
    blocks: list[str] = dataclasses.field(default_factory=list)
    shim: str = ""  # THUNDER_SHIM where the script imports thunder

    def need(self, *lines: str) -> Script:
        for line in lines:
            if line not in self.imports:
                self.imports.append(line)
        return self

    def add(self, block: str) -> Script:
        if block.strip():
            self.blocks.append(block.strip("\n"))
        return self

    def seeded(self) -> Script:
        """Seed torch before the first block that draws random inputs (`torch.randn`)."""
        for i, block in enumerate(self.blocks):
            if "torch.randn(" in block and "torch.manual_seed" not in "".join(self.blocks):
                self.blocks[i] = "torch.manual_seed(0)\n" + block
                break
        return self

    def text(self) -> str:
        plain = sorted(i for i in self.imports if i.startswith("import "))
        froms = sorted(i for i in self.imports if i.startswith("from "))
        head = "\n".join(plain + froms)
        if self.shim:
            # thunder is imported after the stubs are in place
            head = "\n".join(i for i in plain + froms if i != "import thunder")
            head += "\n\n" + self.shim.strip("\n") + "\nimport thunder"
        out = head
        for block in self.blocks:
            # two blank lines around a definition, one between statements (PEP 8)
            defines = block.lstrip().startswith(("def ", "class ", "@", "lib", "if not"))
            out += ("\n\n\n" if defines or out is head or _defines(out) else "\n\n") + block
        return out + "\n"


def _defines(text: str) -> bool:
    """Whether the last block of `text` is a definition (it ends indented code)."""
    last = text.rstrip("\n").split("\n\n")[-1]
    return last.lstrip().startswith(("def ", "class ", "@", "lib"))


def lines_of_code(text: str, shim: str = "") -> int:
    """Lines that hold code: not blank, not only a comment, not part of `shim`."""
    code_lines = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type not in (
                tokenize.COMMENT,
                tokenize.NL,
                tokenize.NEWLINE,
                tokenize.INDENT,
                tokenize.DEDENT,
                tokenize.ENDMARKER,
            ):
                code_lines.update(range(tok.start[0], tok.end[0] + 1))
    except tokenize.TokenError:
        return sum(1 for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#"))
    return len(code_lines) - (lines_of_code(shim) if shim and shim in text else 0)
