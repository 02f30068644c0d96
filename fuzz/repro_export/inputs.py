"""How a script binds a call's inputs: written out (`x = torch.tensor(...)`), or, where a
call cannot be written out (a view, a large random tensor), taken from the program's own
`calls()` seeded as replay seeds it (`torch.manual_seed(0)`, the same values).

A `Form` says which: `values` "rounded" (4 significant digits; what a reader wants),
"exact" (every digit; when rounding changes what happens) or "calls".
"""

from __future__ import annotations

import dataclasses

from fuzz.repro_export.subject import Subject
from fuzz.repro_export.values import call_source

FORMS = ("rounded", "exact", "calls")


@dataclasses.dataclass(frozen=True)
class Form:
    call: int | None  # the call the script checks; None: every checkable call, in a loop
    values: str = "rounded"
    warmup: tuple[int, ...] = ()  # Thunder: calls made first, to fill the cache
    raises: bool = False  # `call` is one eager refuses: the stack must refuse it too


class Inputs:
    """The input-binding lines of one script."""

    def __init__(self, subject: Subject, values: str):
        self.s, self.values = subject, values
        self.names = subject.names
        self.device = subject.device

    @property
    def args(self) -> str:
        """The arguments as the program is called with them."""
        return ", ".join(self.names) if self.names else "*args"

    @property
    def as_list(self) -> str:
        return "[" + ", ".join(self.names) + "]" if self.names else "list(args)"

    @property
    def as_tuple(self) -> str:
        if not self.names:
            return "args"
        return "(" + ", ".join(self.names) + ("," if len(self.names) == 1 else "") + ")"

    def writable(self, index: int) -> bool:
        if self.values == "calls":
            return True
        return (
            call_source(self.s.calls[index].args, self.device, self.values == "exact") is not None
        )

    def preamble(self) -> str:
        """What must come before any binding: the calls() function where it is used."""
        if self.values != "calls":
            return ""
        seed = "torch.manual_seed(0)"
        if self.s.code.uses_random:
            seed = "random.seed(0)\n" + seed
        return f"{self.s.code.calls_function}\n\n\n{seed}\ninputs = calls()"

    def bind(self, index: int, comment: str = "") -> str:
        """Lines that bind call `index`'s inputs to the program's parameter names."""
        tail = f"  # {comment}" if comment else ""
        if self.values == "calls":
            target = self.as_tuple if self.names else "args"
            return f"{target} = inputs[{index}]{tail}"
        sources = call_source(self.s.calls[index].args, self.device, self.values == "exact")
        assert sources is not None, "bind() of a call that cannot be written out"
        if not self.names:
            inner = ", ".join(sources) + ("," if len(sources) == 1 else "")
            return f"args = ({inner}){tail}"
        lines = [f"{n} = {src}" for n, src in zip(self.names, sources)]
        lines[0] += tail
        return "\n".join(lines)

    def fresh(self, index: int) -> str:
        """An expression giving a fresh copy of call `index`'s inputs (for programs that
        write to their inputs: eager and the compiled program each get their own)."""
        if self.values == "calls":
            return f"copy.deepcopy(inputs[{index}])"
        sources = call_source(self.s.calls[index].args, self.device, self.values == "exact")
        assert sources is not None
        return "(" + ", ".join(sources) + ("," if len(sources) == 1 else "") + ")"
