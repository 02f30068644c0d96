"""The nightly's op focus (fuzz/campaign/focus.py): which ops it picks, when it moves
(between rounds), that the generator draws its ops more often, that a saved example
replays as the same program under another focus, and that the switch is recorded."""

from __future__ import annotations

import random
import types
from collections import Counter

import pytest
from hypothesis import Phase, given, seed, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from fuzz import ops as op_catalogue
from fuzz.campaign.focus import FOCUS_SIZE, Focus, least_drawn
from fuzz.program import Genome, decode
from fuzz.strategies import FocusOps, cases
from tests.helpers import run_nightly


def test_least_drawn_takes_the_fewest_drawn_and_breaks_ties_by_seed():
    names = [f"op{i}" for i in range(20)]
    drawn = Counter({n: 5 for n in names[:15]})  # op15..op19 never drawn
    assert least_drawn(names, drawn, seed=1, size=5) == frozenset(names[15:])
    drawn = Counter({n: 1 for n in names})
    picks = {least_drawn(names, drawn, seed=s, size=3) for s in range(10)}
    assert len(picks) > 1  # ties are broken by the seed, not always alphabetically
    assert least_drawn(names, drawn, seed=4, size=3) == least_drawn(names, drawn, 4, 3)


def test_the_focus_moves_past_drawn_ops_between_rounds_per_lane():
    focus = Focus(("thunder", "exir"), seed=3)
    first = focus.for_lane("thunder")
    assert len(first) == FOCUS_SIZE and len(focus.for_lane("exir")) == FOCUS_SIZE
    for _ in range(5):  # programs that draw no focus op leave it where it is
        focus.explored_program(["add"], "thunder")
        focus.move_if_due()
    assert focus.for_lane("thunder") == first
    drawn = sorted(first)[0]
    focus.explored_program([drawn], "thunder")
    # Not before the next round: Hypothesis needs one distribution per run.
    assert focus.for_lane("thunder") == first and focus.due
    focus.move_if_due()  # the next round starts
    assert drawn not in focus.for_lane("thunder")
    assert len(focus.for_lane("thunder") & first) == FOCUS_SIZE - 1
    # Draws are counted per lane: an op drawn on Thunder is still undrawn on EXIR.
    exir_focus = focus.for_lane("exir")
    focus.explored_program(sorted(exir_focus), "thunder")
    focus.move_if_due()
    assert focus.for_lane("exir") == exir_focus
    focus.explored_program(sorted(exir_focus), "exir")
    focus.move_if_due()
    assert not focus.for_lane("exir") & exir_focus
    assert Focus(("thunder",), seed=3, on=False).for_lane("thunder") == frozenset()


def _genomes(n: int, rng: random.Random):
    def gene():
        return tuple(rng.randrange(256) for _ in range(rng.randint(1, 6)))

    for _ in range(n):
        yield Genome(
            tuple(gene() for _ in range(rng.randint(1, 3))),
            tuple(gene() for _ in range(rng.randint(1, 8))),
            tuple(gene() for _ in range(rng.randint(0, 2))),
        )


def test_the_generator_draws_the_focus_ops_more_often():
    ops = op_catalogue.for_lanes(("thunder",))
    focus = least_drawn([op.name for op in ops], Counter(), seed=5)
    uses = {}
    for name, chosen in (("plain", frozenset()), ("focused", focus)):
        counts: Counter = Counter()
        for genome in _genomes(300, random.Random(0)):
            counts.update(node.op for node in decode(genome, ops, chosen).nodes)
        uses[name] = sum(counts[op] for op in focus)
    # Measured 102 -> 409 uses in 400 genomes: at least twice as often.
    assert uses["focused"] >= 2 * uses["plain"], uses


def _failing_case(focus, wanted, database, phases):
    """The source of the first case a run with `focus` finds holding one of the ops
    `wanted` (it fails there, so Hypothesis saves it to `database`)."""
    seen = []

    @settings(database=database, phases=phases, deadline=None, max_examples=200)
    @seed(11)
    @given(cases(lanes=("thunder",), focus=focus))
    def run(generated):
        if {n.op for n in generated.program.nodes} & wanted:
            seen.append(generated.source)
            raise AssertionError("save me")

    with pytest.raises(AssertionError):
        run()
    return seen[-1]


def test_a_saved_example_replays_as_the_same_program_under_another_focus(tmp_path):
    """Before 2026-12-03 the focus was read when genes were decoded, and this failed: the
    saved program, which holds an op of the first focus, replayed as another program."""
    names = sorted(op.name for op in op_catalogue.for_lanes(("thunder",)))
    wanted = frozenset(names[100:108])
    first = types.SimpleNamespace(for_lane=lambda lane: wanted)
    other = types.SimpleNamespace(for_lane=lambda lane: frozenset(names[:8]))
    db = DirectoryBasedExampleDatabase(str(tmp_path / "db"))
    saved = _failing_case(first, wanted, db, [Phase.generate])
    assert _failing_case(other, wanted, db, [Phase.reuse]) == saved
    # ...while a focus does change what is generated (the test above is not vacuous):
    drawn = Counter()

    @settings(database=None, phases=[Phase.generate], deadline=None, max_examples=60)
    @seed(5)
    @given(FocusOps(names, frozenset(names[:8])))
    def sample(chosen):
        drawn.update(chosen)

    sample()
    preferred = sum(drawn[n] for n in names[:8])
    # 0.9 of each draw lands on the 8 preferred ops (plus their uniform share).
    assert preferred >= 0.75 * sum(drawn.values()), drawn


def test_the_switch_is_recorded_in_report_json_and_the_rerun_line(tmp_path):
    proc, doc = run_nightly(
        tmp_path / "on",
        "--max-examples",
        "12",
        "--hypothesis-seed",
        "3",
        "--budget",
        "60",
        "--database",
        "none",
        "--op-focus",
        "on",
    )
    assert doc is not None, proc.stderr[-3000:]
    assert doc["op_focus"] is True
    assert "--op-focus on" in (tmp_path / "on" / "report.md").read_text()
