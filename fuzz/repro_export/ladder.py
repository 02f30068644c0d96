"""Finding the shortest script that shows a case's problem, and the component it belongs to.

Each candidate is written and run as the reader will run it. The search goes from the
cheapest pipeline prefix to the costliest (torch.export, run_decompositions, to_edge,
the ExecuTorch runtime; Thunder's default cache, then `cache="symbolic values"`) and
keeps the first stage that reproduces: that stage names the tracker. A stage is first
tried with the values replay runs (every call the program was given, from its own
`calls()`, seeded), so a stage is never blamed for what rounding changed; once a stage
reproduces, the script is cut down to the one call that goes wrong (on Thunder, with the
calls that fill the cache before it, only where they are needed) and its values written
out, rounded where that still reproduces.

Where nothing reproduces, the script is the fullest check the case's kinds call for (a
case that names no kinds: every check its lane makes), at the last stage; it says OK.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path

from fuzz.divergence import pattern_kinds
from fuzz.repro_export import exir as exir_scripts
from fuzz.repro_export import thunder as thunder_scripts
from fuzz.repro_export.inputs import Form, Inputs
from fuzz.repro_export.run import Run, run_script
from fuzz.repro_export.script import Script, lines_of_code
from fuzz.repro_export.subject import Subject, may_show

RESULT_KINDS = {
    "exir.crash",
    "exir.runtime-result",
    "exir.edge-result",
    "exir.under-allocation",
    "exir.overlap",
    "exir.aliasing",
    "xnnpack.crash",
    "xnnpack.runtime-result",
}


@dataclasses.dataclass
class Found:
    """The script kept for a case, and what running it gave."""

    stage: str
    tracker: str
    checks: tuple[str, ...]
    form: Form
    script: Script
    run: Run | None  # None: not run (no such device here, or --no-run)
    tries: int = 0
    subject: Subject | None = None

    @property
    def text(self) -> str:
        return self.script.text()

    @property
    def lines(self) -> int:
        return lines_of_code(self.text, self.script.shim)

    @property
    def outcome(self) -> str:
        return self.run.outcome if self.run is not None else "not run"


class Runner:
    """Writes each candidate as `folder/repro.py` and runs it (the reader's file name,
    so tracebacks name it as they will)."""

    def __init__(self, folder: Path, lane: str, execute: bool = True):
        self.folder, self.lane, self.execute, self.tries = folder, lane, execute, 0
        self.seen: dict[str, Run] = {}  # a text already run is not run again
        self.last: Run | None = None

    def __call__(self, script: Script) -> Run | None:
        text = script.text()
        path = self.folder / "repro.py"
        path.write_text(text)
        if not self.execute:
            return None
        if text not in self.seen:
            self.tries += 1
            self.seen[text] = run_script(path, self.lane)
        self.last = self.seen[text]
        return self.last


# ---- the candidates of one stage ---------------------------------------------------------


def _specialize(
    subject: Subject,
    probe: Form,
    run: Run,
    forms: Callable[[int], list[Form]],
) -> Iterator[Form]:
    """Shorter forms to try once `probe` reproduced: the failing call, its values written
    out (rounded first)."""
    k = probe.call
    if k is None:
        k = run.last_call if run.last_call is not None else subject.example
    for form in forms(k):
        if form != probe:
            yield form


def _try_stage(
    subject: Subject,
    runner: Runner,
    make: Callable[[Form], Script],
    probe: Form,
    forms: Callable[[int], list[Form]],
) -> tuple[Form, Script, Run] | None:
    first = runner(make(probe))
    if first is None or not first.reproduces:
        return None
    for form in _specialize(subject, probe, first, forms):
        try:
            script = make(form)
        except AssertionError:
            continue  # a value that cannot be written out
        run = runner(script)
        if run is not None and run.reproduces:
            return form, script, run
    return probe, make(probe), first


def _probe(subject: Subject, single_exact: bool = True) -> Form:
    """The first form of a stage: replay's values. One checkable call is bound directly
    (written out exactly where it can be); several are looped over from calls()."""
    checkable = subject.checkable
    if len(checkable) > 1:
        return Form(None, "calls")
    k = checkable[0].index if checkable else subject.example
    exact = Inputs(subject, "exact")
    writable = exact.writable(k) and exact.writable(subject.example)
    return Form(k, "exact" if writable and single_exact else "calls")


def _exact_or_calls(subject: Subject, k: int) -> str:
    exact = Inputs(subject, "exact")
    return "exact" if exact.writable(k) and exact.writable(subject.example) else "calls"


def _written(subject: Subject, k: int, warmups: list[tuple[int, ...]]) -> list[Form]:
    out = []
    for values in ("rounded", "exact"):
        inputs = Inputs(subject, values)
        needed = {k, subject.example, *(j for w in warmups for j in w)}
        if all(inputs.writable(j) for j in needed):
            out += [Form(k, values, w) for w in warmups]
    out += [Form(k, "calls", w) for w in warmups]
    return out


# ---- EXIR ----------------------------------------------------------------------------


def exir_checks(subject: Subject) -> dict[str, tuple[str, ...]]:
    """{family: its checks} that the case's kinds call for (all, where it names none)."""
    kinds = set(subject.kinds)
    every = not kinds
    out: dict[str, tuple[str, ...]] = {}
    if every or kinds & RESULT_KINDS:
        out["values"] = ("values",)
    if subject.lane == "xnnpack":  # the lane checks values only (fuzz/backends/xnnpack)
        return out
    if every or "exir.unchecked-contract" in kinds:
        out["contract"] = ("contract",)
    plan = []
    if (every or kinds & {"exir.bound-loss", "exir.spec-meta"}) and any(
        b is not None for b in subject.output_bounds
    ):
        plan.append("bounds")
    if every or "exir.under-allocation" in kinds:
        plan.append("sizes")
    if every or "exir.overlap" in kinds:
        plan.append("overlap")
    if plan:
        out["plan"] = tuple(plan)
    if every or "exir.pipeline-variance" in kinds:
        out["variance"] = ("variance",)
    return out


def _result_stages(subject: Subject) -> tuple[str, ...]:
    kinds = set(subject.kinds)
    if subject.lane == "xnnpack":  # lowering and running are one script: the runtime's
        return ("runtime",)
    if kinds and kinds & RESULT_KINDS <= {"exir.edge-result"}:
        return exir_scripts.RESULT_STAGES[:3]  # the runtime had no kernel: the edge program
    return exir_scripts.RESULT_STAGES


def search_exir(subject: Subject, runner: Runner) -> Found:
    w = exir_scripts.ExirScripts(subject)
    families = exir_checks(subject)
    no_runtime = False
    if subject.ep is None:  # export itself fails: the script that shows it
        got = _try_stage(
            subject,
            runner,
            lambda f: w.script("export", (), f),
            _probe(subject),
            lambda k: _written(subject, k, [()]),
        )
        if got:
            return Found("export", exir_scripts.PYTORCH, (), *got, runner.tries)
        form = _probe(subject)
        script = w.script("export", (), form)
        return Found("export", exir_scripts.PYTORCH, (), form, script, runner(script), runner.tries)
    if "values" in families:
        values = ("values",) if subject.checkable else ()
        for stage in _result_stages(subject):
            if stage != "runtime" and not may_show(subject, stage):
                continue  # screened in-process: nothing shows at this stage
            got = _try_stage(
                subject,
                runner,
                lambda f, stage=stage: w.script(stage, values, f),
                _probe(subject),
                lambda k: _written(subject, k, [()]),
            )
            if got:
                return Found(stage, exir_scripts.tracker(stage), values, *got, runner.tries)
            if stage == "runtime" and runner.last is not None:
                # the runtime cannot run the program (no kernel for one of its operators):
                # what it would show is checked on the edge program instead
                no_runtime = runner.last.outcome == "unsupported"
            for call in subject.eager_raises:  # the stage must refuse what eager refuses
                got = _try_stage(
                    subject,
                    runner,
                    lambda f, stage=stage: w.script(stage, ("values",), f),
                    Form(call.index, _exact_or_calls(subject, call.index), raises=True),
                    lambda k: [
                        dataclasses.replace(f, raises=True) for f in _written(subject, k, [()])
                    ],
                )
                if got:
                    return Found(
                        stage, exir_scripts.tracker(stage), ("refuses",), *got, runner.tries
                    )
    if "contract" in families and not no_runtime:
        for i in range(len(subject.probes)):
            got = _try_stage(
                subject,
                runner,
                lambda f, i=i: w.script("runtime", ("contract",), f, probe=i),
                _probe(subject),
                lambda k: _written(subject, k, [()]),
            )
            if got:
                return Found("contract", exir_scripts.EXECUTORCH, ("contract",), *got, runner.tries)
    for family in ("plan", "variance"):
        if family in families:
            checks = families[family]
            probe = _probe(subject)
            if probe.call is None:  # the plan is one: the example binds the program
                probe = Form(subject.checkable[0].index if subject.checkable else 0, "calls")
            got = _try_stage(
                subject,
                runner,
                lambda f, checks=checks: w.script("runtime", checks, f),
                probe,
                lambda k: _written(subject, k, [()]),
            )
            if got:
                return Found(family, exir_scripts.EXECUTORCH, checks, *got, runner.tries)
    # Nothing reproduces: every check the case calls for, at the last stage.
    checks = tuple(c for family in families.values() for c in family)
    if "values" in checks and not subject.checkable:
        checks = tuple(c for c in checks if c != "values")
    if no_runtime:
        checks = tuple(c for c in checks if c != "contract")
    stage = _result_stages(subject)[-1] if "values" in families else "plan"
    if no_runtime and stage == "runtime":
        stage = "to_edge"
    form = _probe(subject)
    if form.call is None and set(checks) - {"values"}:
        form = Form(None, "calls")
    script = w.script(stage if "values" in checks else "runtime", checks, form)
    return Found(stage, exir_scripts.EXECUTORCH, checks, form, script, runner(script), runner.tries)


# ---- Thunder ---------------------------------------------------------------------------


def thunder_checks(subject: Subject) -> tuple[str, ...]:
    kinds = set(subject.kinds)
    if not kinds:
        return thunder_scripts.CHECKS
    out = []
    # Another lane's kinds as the Thunder lane's they share bugs with (same_bugs_as)
    kinds = {pattern_kinds(k)[-1] for k in kinds}
    if "thunderfx.unsound-hit" in kinds:  # wrong values at a reused graph
        kinds = (kinds - {"thunderfx.unsound-hit"}) | {"thunder.wrong-result"}
    if kinds & {"thunder.crash", "thunder.wrong-result", "thunder.aliasing"}:
        out.append("values")
    if "thunder.aliasing" in kinds:
        out.append("sharing")
    if "thunder.unsound-hit" in kinds:
        out.append("hit")
    return tuple(out)


def search_thunder(subject: Subject, runner: Runner) -> Found:
    w = thunder_scripts.ThunderScripts(subject)
    checks = thunder_checks(subject)
    probe = _probe(subject)
    if probe.call is not None and subject.checkable and probe.values != "calls":
        probe = Form(probe.call, "exact")
    stages = thunder_scripts.STAGES_OF[subject.lane]
    for stage in stages:

        def forms(k: int, stage: str = stage) -> list[Form]:
            before = tuple(c.index for c in subject.checkable if c.index < k)
            order = [(), before] if stage == "default" or "hit" not in checks else [before]
            if stage == "thunderfx":  # an unsound hit needs the calls that compiled its graph
                order = [before] if "thunderfx.unsound-hit" in subject.kinds else [(), before]
            if stage == "symbolic" and before:
                order = [before, ()] if "hit" not in checks else [before]
            return _written(subject, k, list(dict.fromkeys(order)))[:4]

        got = _try_stage(
            subject,
            runner,
            lambda f, stage=stage: w.script(stage, checks, f),
            probe,
            forms,
        )
        if got:
            return Found(stage, thunder_scripts.TRACKER, checks, *got, runner.tries)
        for call in subject.eager_raises:  # Thunder must refuse what eager refuses
            before = tuple(c.index for c in subject.checkable if c.index < call.index)
            got = _try_stage(
                subject,
                runner,
                lambda f, stage=stage: w.script(stage, checks, f),
                Form(call.index, "calls", before, raises=True),
                lambda k, before=before: [
                    dataclasses.replace(f, raises=True)
                    for f in _written(subject, k, list(dict.fromkeys([(), before])))
                ],
            )
            if got:
                return Found(stage, thunder_scripts.TRACKER, ("refuses",), *got, runner.tries)
    script = w.script(stages[-1], checks, probe)
    return Found(
        stages[-1], thunder_scripts.TRACKER, checks, probe, script, runner(script), runner.tries
    )
