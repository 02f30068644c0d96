"""One generated case through the lanes it is for, what a worker says about it, and the
reduction of a shrunk finding to a 1-minimal program (`reduce_finding`, fuzz.reduce).

`run_example` runs each (lane, device) through the engine, with the corpus index as the
engine's `known` callable while exploring (registered bugs are marked and cost nothing
more); it returns, per lane, the record an `Example` message carries (`lane_record`) and
the new divergences, each with its bucket (fuzz.buckets, computed with the generator's
`ProgramFacts`).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from fuzz.buckets import ProgramFacts, bucket_of, flips_of
from fuzz.case import CaseError
from fuzz.case_runner import run_case
from fuzz.corpus import CorpusIndex
from fuzz.errors import error_text
from fuzz.reduce import reduce_program
from fuzz.signature import signature
from fuzz.strategies import GeneratedCase, make_case, smallest_input_dims


def facts_of(generated: GeneratedCase) -> ProgramFacts:
    """The generator's facts about a case: ops, families, and per call the decision kinds
    that go a new way; a number input whose type (int or float) is new at a call counts as
    a "number-type" decision (Thunder 0.2.6 does not type-check number inputs)."""
    program = generated.program
    numbers = program.number_symbols()
    rows = [
        program.outcomes(dict(plan.sizes))
        + tuple(type(dict(plan.sizes).get(n)).__name__ for n in numbers)
        for plan in generated.plans
    ]
    kinds = [d.kind for d in program.decisions] + ["number-type"] * len(numbers)
    return ProgramFacts(
        ops=tuple(n.op for n in program.nodes),
        families=tuple(sorted(program.families)),
        flips=flips_of(rows, kinds),
    )


def program_coverage(generated: GeneratedCase) -> dict[str, Any]:
    """The generator's coverage of a case (GeneratedCase.coverage()) and, per call, the
    input classes that differ by call: {"calls": {"size0": [0|1 per call]}} (what a
    lane's "checked_calls" restrict coverage to: fuzz.campaign.stats)."""
    program = generated.program
    size0 = [int(0 in smallest_input_dims(program, p).values()) for p in generated.plans]
    return {**generated.coverage(), "calls": {"size0": size0}}


def lane_record(report, bucket_names: list[str]) -> dict[str, Any]:
    """What an `Example` says of one lane: kinds (confirmed), known (kinds of registered
    bugs) and known_as (their corpus cases), buckets (of the new divergences), counters,
    timings, skipped, and the indices of the calls it checked (details["checked_calls"],
    None when the lane does not list them)."""
    return {
        "checked_calls": report.details.get("checked_calls"),
        "kinds": sorted({d.kind for d in report.divergences}),
        "known": sorted({d.kind for d in report.divergences if d.data.get("known_as")}),
        "known_as": sorted({w for d in report.divergences for w in d.data.get("known_as", ())}),
        "buckets": bucket_names,
        "counters": dict(report.counters),
        "timings": {k: float(v) for k, v in report.timings.items()},
        "skipped": report.skipped,
    }


def run_example(
    generated: GeneratedCase,
    where: tuple[tuple[str, str], ...],
    *,
    index: CorpusIndex,
    exploring: bool,
    case_seed: int,
    unavailable: dict[str, str],
    on_lane: Callable[[str, str], None],
    on_error: Callable[[str], None],
) -> tuple[dict[str, dict], list[dict]]:
    """Run each (lane, device) of `where`; returns the lane records and the new (not known)
    divergences as dicts with their bucket.

    While shrinking (`exploring` False), registered bugs are returned too, each carrying
    its corpus cases as "known_as", and "registered_program" when the candidate is a
    corpus case's own program (the case's signature: kind, stage kind, normalized
    program). The shrink target (`shows`, for `leads` and `reduce_finding`) never counts a
    divergence that only a MATCHES pattern recognises: sliding onto a registered root
    cause met in a smaller program would lose the bucket's new bug (triage calls a finding
    that still ends that way "drifted"). A candidate that is a registered program still
    counts: the shrink rediscovered that very case (else it stops one step short of the
    case and files that step as new), and triage classifies it known."""
    case = generated.case
    facts = facts_of(generated)
    records: dict[str, dict] = {}
    new: list[dict] = []

    def known(d) -> list[str]:
        return index.known_as(d.to_json(), case.source)

    for lane, device in where:
        key = f"{lane}/{device}"
        if key in unavailable:
            records[key] = {"skipped": unavailable[key]}
            continue
        on_lane(lane, device)
        try:
            result = run_case(
                case, [lane], [device], seed=case_seed, known=known if exploring else None
            )
        except CaseError as e:
            records[key] = {"error": str(e)}
            on_error(f"generated case raised CaseError: {e}\n{case.source}")
            continue
        except Exception as e:
            records[key] = {"error": error_text(e)}
            on_error(f"{key} raised {error_text(e, None)}\n{traceback.format_exc(limit=-4)}")
            continue
        names: list[str] = []
        for report in result.reports:
            for d in report.divergences:
                if d.data.get("known_as"):
                    continue
                item = d.to_json()
                item["bucket"] = bucket_of(item, facts)
                if not exploring and (names_known := known(d)):
                    item["known_as"] = names_known
                    if index.known(signature(d.kind, d.stage, case.source)):
                        item["registered_program"] = True
                names.append(item["bucket"])
                new.append(item)
            records[key] = lane_record(report, sorted(set(names)))
        records[key]["flaky"] = sorted({d.kind for r in result.flaky for d in r.divergences})
    return records, new


def shows(d: dict, target: bool = False) -> bool:
    """Whether a divergence counts for its bucket: no registered bug accounts for it (no
    "known_as"); for the bucket being shrunk (`target`), also when the candidate is a
    registered case's own program ("registered_program", see `run_example`)."""
    return not d.get("known_as") or (target and bool(d.get("registered_program")))


def leads(divergences: list[dict], suppressed: set[str], primary: str | None) -> list[str]:
    """The buckets of an example worth raising for, in order: not yet shrunk, with a
    divergence that counts (`shows`). This is the shrink target's predicate too: the
    bucket being shrunk (`primary`) counts only while a divergence of it is unrecognised
    or the candidate is a registered case's program (so the shrink never drifts onto a
    registered bug a pattern recognises), and a known bug met on the way is not a new
    lead (shrinking it would be time spent on nothing new)."""
    buckets = list(dict.fromkeys(d["bucket"] for d in divergences))
    return [
        b
        for b in buckets
        if b not in suppressed
        and any(shows(d, b == primary) for d in divergences if d["bucket"] == b)
    ]


def reduce_finding(
    payload: dict,
    lane: str,
    run: Callable[[GeneratedCase], list[dict]],
    give_up: Callable[[], bool],
) -> tuple[dict, bool]:
    """Remove single ops and inputs from the finding's program while its divergence stays
    (fuzz.reduce); returns the payload of the smallest program that still diverges and
    whether it is 1-minimal. `run(candidate)` runs a candidate on the finding's lane and
    returns its new divergences. A divergence stays when one of the candidate's has the
    same bucket without the generator's facts (the decisions that go with a removed op do
    not count) and it counts for the bucket being shrunk (`shows`)."""
    target = next(d for d in payload["divergences"] if d["bucket"] == payload["bucket"])
    key, best = bucket_of(target), {"payload": payload}

    def still_diverges(program, plans) -> bool:
        candidate = make_case(program, plans, lane=lane)
        new = run(candidate)
        if not any(bucket_of(d) == key and shows(d, target=True) for d in new):
            return False
        ops = [n.op for n in program.nodes]
        best["payload"] = dict(
            payload, source=candidate.source, divergences=new, ops=ops, generated=candidate
        )
        return True

    generated = payload["generated"]
    _, _, minimal = reduce_program(
        generated.program, list(generated.plans), still_diverges, give_up
    )
    return best["payload"], minimal
