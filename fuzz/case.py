"""A case: one program plus the calls that exercise it, loaded from Python source.

Generated programs and hand-written corpus files share this one format, so what the
harness runs is always exactly the source it reports. A case file defines

    program           the function (or torch.nn.Module instance) under test
    calls()           a list of argument tuples, called in order on one compiled object
    LANES, DEVICES    optional: restrict where the case runs
    DIMS              optional: {input name: {dim: (min, max)}} dynamic ranges for export
    EXPECT, UPSTREAM  optional: divergence kinds of a known upstream bug, and its link
    MATCHES           optional: "kind@stage" patterns of a known bug that shows on *any*
                      program (e.g. "exir.unchecked-contract@contract"); the nightly job
                      counts such findings as known instead of filing each program
    FOUND             optional: "kind@stage-kind" entries the case was filed for (used by
                      fuzz.signature to recognise the finding again; not read by the loader)
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fuzz.errors import error_text

_counter = itertools.count()


class CaseError(Exception):
    """A case file that cannot be used; the message names the file and the problem."""


@dataclasses.dataclass
class Case:
    name: str
    source: str
    program: Callable[..., Any]
    calls: Callable[[], list[tuple]]
    path: Path | None = None
    lanes: tuple[str, ...] | None = None
    devices: tuple[str, ...] | None = None
    dims: dict[str, dict[int, tuple[int, int]]] | None = None
    expect: tuple[str, ...] = ()
    upstream: str | None = None
    doc: str = ""
    module: types.ModuleType | None = dataclasses.field(default=None, repr=False)

    @property
    def where(self) -> str:
        return str(self.path) if self.path else f"<case {self.name}>"

    def input_names(self) -> list[str]:
        """Parameter names of the program (of `forward` for an nn.Module instance)."""
        return list(inspect.signature(getattr(self.program, "forward", self.program)).parameters)

    def checked_calls(self) -> list[tuple]:
        """`calls()`, checked: a non-empty list of argument tuples (else CaseError)."""
        try:
            calls = self.calls()
        except Exception as e:
            raise CaseError(f"{self.where}: calls() raised {error_text(e, None)}") from e
        if not isinstance(calls, (list, tuple)) or not all(isinstance(c, tuple) for c in calls):
            raise CaseError(f"{self.where}: calls() must return a list of argument tuples")
        if not calls:
            raise CaseError(f"{self.where}: calls() returned no calls")
        return list(calls)

    def runs_on(self, lane: str, device: str) -> bool:
        return (self.lanes is None or lane in self.lanes) and (
            self.devices is None or device in self.devices
        )


def case_from_source(source: str, name: str, path: Path | None = None) -> Case:
    where = str(path) if path else f"<case {name}>"
    # Registered in sys.modules because torch.cond (even eagerly) compiles its branches
    # with dynamo, which looks the defining module up by name.
    module = types.ModuleType(f"fuzz_case_{name}_{next(_counter)}")
    module.__file__ = where
    sys.modules[module.__name__] = module
    try:
        code = compile(source, where, "exec")
        exec(code, module.__dict__)
    except SyntaxError as e:
        raise CaseError(f"{where}: syntax error at line {e.lineno}: {e.msg}") from e
    except Exception as e:
        raise CaseError(f"{where}: importing the case raised {error_text(e, None)}") from e
    ns = module.__dict__
    for required in ("program", "calls"):
        if required not in ns:
            raise CaseError(f"{where}: missing `{required}`")
    if not callable(ns["program"]) or not callable(ns["calls"]):
        raise CaseError(f"{where}: `program` and `calls` must be callable")

    def tuple_of_str(key):
        value = ns.get(key)
        if value is None:
            return None
        if isinstance(value, str) or not all(isinstance(v, str) for v in value):
            raise CaseError(f"{where}: {key} must be a tuple of strings, got {value!r}")
        return tuple(value)

    return Case(
        name=name,
        source=source,
        program=ns["program"],
        calls=ns["calls"],
        path=path,
        lanes=tuple_of_str("LANES"),
        devices=tuple_of_str("DEVICES"),
        dims=ns.get("DIMS"),
        expect=tuple_of_str("EXPECT") or (),
        upstream=ns.get("UPSTREAM"),
        doc=(ns.get("__doc__") or "").strip(),
        module=module,
    )


def load_case(path: str | Path) -> Case:
    path = Path(path)
    try:
        source = path.read_text()
    except OSError as e:
        raise CaseError(f"{path}: cannot read: {e}") from e
    return case_from_source(source, path.stem, path)
