"""The harness's pytest plugin: the fixes switch, Hypothesis profiles, and the corpus as test
items. The repository's root conftest.py loads it (`pytest_plugins`); a pytest run over a
corpus folder elsewhere loads it with `-p conftest` (tests.helpers.pytest_corpus) or
`-p fuzz.pytest_plugin`.

* `--fixes on|off|NAME,...` (default: $FUZZ_FIXES, else "on") is applied in
  `pytest_configure`, so every xdist worker applies it too. Tests that compare stock and
  fixed behaviour (tests/stacks/fixes/) switch in-process with `fixes.applied(...)`,
  which restores this state afterwards.
* The Hypothesis profile is `--hypothesis-profile` when given, else $HYPOTHESIS_PROFILE,
  else "ci" when $CI is set, else "dev" (profiles: fuzz/settings.py).
* Every case file under corpus/ becomes one item per (lane, device) it allows:
  `corpus/<case>.py::<lane>[<device>]`. It runs through the engine like `python -m fuzz
  replay` does and fails on a divergence, with the divergences as the message. cuda items
  are skipped cleanly without a GPU, and lanes that cannot run here are skipped with the
  reason. With every fix on, a case whose EXPECT names kinds of that lane is a strict xfail
  (reason: its UPSTREAM link): it must diverge with exactly those kinds, each divergence
  must match one of the case's MATCHES patterns (when it has any) and no pattern of another
  registered bug (another UPSTREAM; a cross-match: the registry is the repository's corpus/,
  beside this package; the divergences of the other registered bugs it names in ALSO
  are theirs and set aside), and passing fails the run (the upstream bug may be fixed: drop
  EXPECT). Such an item never passes as a skip either: a lane that skips it (unsupported,
  unavailable, ...) fails with the reason, as the registered bug no longer shows; only a
  missing device stays a skip. On another stack than its VERSIONS (another executorch, torch
  or Thunder) the case reports what it does there instead: xfail "reproduces on ...", or
  skip "not reproduced on ...". A case with ISOLATE (it kills its process) runs in a fresh
  process. A case file that cannot be loaded is one failing item naming the problem; the
  other cases still run.

Corpus files are never imported as test modules: they are not test_*.py, and when one is
named on the command line, the python plugin's module for it is replaced by an empty one.
The pattern variants under corpus/variants/ (fuzz.corpus.pattern_variants) are data that
tests/stacks/core/test_pattern_variants.py reads: neither corpus items nor test modules.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from hypothesis import settings

import fixes
import fuzz.settings
from fuzz.backends.registry import DEVICES, LANE_NAMES
from fuzz.case import CaseError, bug_patterns, case_metadata, load_case, set_aside
from fuzz.corpus import VARIANTS_DIR, is_case_file
from fuzz.defaults import EXAMPLE_TIMEOUT_S
from fuzz.errors import FuzzError
from fuzz.known import BugPattern
from fuzz.outcome import expected_for, run_lane, run_lane_isolated
from fuzz.prepare import all_fixes_on, fixes_switch
from fuzz.replay import format_outcome

ROOT = Path(__file__).resolve().parents[1]  # the checkout this package lives in
CORPUS_DIR = ROOT / "corpus"


def pytest_addoption(parser):
    parser.addoption(
        "--fixes",
        action="store",
        default=None,
        help='fixes to apply in this test session: "on" (all), "off", or names a,b '
        "(default: $FUZZ_FIXES, else on)",
    )


def _switch(config) -> str:
    return fixes_switch(config.getoption("fixes"))


def pytest_configure(config):
    try:
        fixes.apply(_switch(config))
    except fixes.FixError as e:
        raise pytest.UsageError(f"--fixes: {e}") from e
    if not config.getoption("hypothesis_profile", default=None):
        default = "ci" if os.environ.get("CI") else "dev"
        fuzz.settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or default)


def pytest_report_header(config):
    active = ", ".join(f"{k} ({v})" for k, v in fixes.active().items()) or "none"
    versions = ", ".join(f"{k} {v}" for k, v in fixes.package_versions().items())
    return [
        f"fixes: {_switch(config)} -> {active}",
        f"hypothesis profile: {getattr(settings, '_current_profile', '?')}; {versions}",
    ]


def _is_corpus_case(path: Path) -> bool:
    """Case files directly in corpus/ (or in another folder named corpus, e.g. a test's)."""

    return path.parent.name == CORPUS_DIR.name and is_case_file(path)


def _is_variant(path: Path) -> bool:
    """corpus/variants/ itself or anything in it (pattern variants: data, not tests)."""
    return any(
        p.name == VARIANTS_DIR and p.parent.name == CORPUS_DIR.name for p in [path, *path.parents]
    )


def pytest_ignore_collect(collection_path: Path, config):
    return True if _is_variant(Path(collection_path)) else None


def pytest_collect_file(file_path: Path, parent):
    if _is_corpus_case(Path(file_path)):
        return CorpusFile.from_parent(parent, path=Path(file_path))
    return None


def pytest_pycollect_makemodule(module_path: Path, parent):
    # A corpus file named on the command line would otherwise be imported as a test module.
    if _is_corpus_case(Path(module_path)) or _is_variant(Path(module_path)):
        return _NotAModule.from_parent(parent, path=Path(module_path))
    return None


class _NotAModule(pytest.File):
    def collect(self):
        return []


class CorpusFailure(FuzzError):
    """A corpus item failed: the message says why (no traceback is shown)."""


class UnexpectedDivergence(CorpusFailure):
    pass


class ExpectedDivergence(CorpusFailure):
    """The lane diverged with exactly the case's EXPECT kinds (a known upstream bug)."""


class CorpusFile(pytest.File):
    def collect(self):
        try:
            case = load_case(self.path)
        except CaseError as e:
            yield CorpusItem.from_parent(
                self, name="load", case=None, lane=None, device=None, problem=str(e)
            )
            return
        fixes_on = all_fixes_on()
        for device in DEVICES:
            for lane in LANE_NAMES:
                if not case.runs_on(lane, device):
                    continue
                item = CorpusItem.from_parent(
                    self, name=f"{lane}[{device}]", case=case, lane=lane, device=device
                )
                if device == "cuda":
                    item.add_marker(pytest.mark.cuda)
                expected = expected_for(case, lane)
                if expected and fixes_on and case.version_drift() is None:
                    item.add_marker(
                        pytest.mark.xfail(
                            strict=True,
                            raises=ExpectedDivergence,
                            reason=f"known upstream bug {sorted(expected)}: "
                            f"{case.upstream or 'no UPSTREAM link'}",
                        )
                    )
                yield item


_REGISTRY: list[tuple[BugPattern, str, str]] = []


def registry() -> list[tuple[BugPattern, str, str]]:
    """Every corpus pattern with its case name and the bug it registers (UPSTREAM, or
    the case itself when it has none)."""
    if not _REGISTRY:
        for path in sorted(p for p in CORPUS_DIR.iterdir() if is_case_file(p)):
            meta = case_metadata(path.read_text())
            bug = meta.get("UPSTREAM") or path.stem
            _REGISTRY.extend((p, path.stem, bug) for p in bug_patterns(meta))
    return _REGISTRY


def foreign_matches(case, divergences) -> list[str]:
    """Patterns of *other* registered bugs that recognise this case's divergences: a
    cross-match means one of them would file the other's bug as its own."""
    own = case.upstream or case.name
    return [
        f"{d['kind']} at {d['stage']} by {name}: {p}"
        for d in divergences
        for p, name, bug in registry()
        if bug != own and name != case.name and p.matches(d, case.source)
    ]


class CorpusItem(pytest.Item):
    def __init__(self, *, case, lane, device, problem: str | None = None, **kw):
        super().__init__(**kw)
        self.case, self.lane, self.device, self.problem = case, lane, device, problem

    def runtest(self):
        if self.problem is not None:
            raise CorpusFailure(f"bad case file: {self.problem}")
        if self.device == "cuda":
            if not torch.cuda.is_available():
                pytest.skip("no CUDA device")

        if self.case.isolate:  # it kills its process: a fresh one, with this session's fixes
            outcome = run_lane_isolated(
                self.case,
                self.lane,
                self.device,
                0,
                switch=_switch(self.config),
                plugins=(),
                timeout=EXAMPLE_TIMEOUT_S,
            )
        else:
            outcome = run_lane(self.case, self.lane, self.device)
        if outcome.status == "skip":
            self._skip(outcome.reason)
        text = format_outcome(outcome)
        if outcome.status == "error":
            raise CorpusFailure(text)
        self._on_another_stack(outcome)
        if outcome.status == "expected":
            # The registered bug must recognise itself: each divergence matches one of the
            # case's MATCHES patterns (what the nightly job uses on other programs), but
            # those of the other registered bugs it names in ALSO, which are theirs.
            aside = set_aside(self.case, outcome.divergences)
            own = [d for d in outcome.divergences if not any(d is a for a in aside)]
            unmatched = [
                d
                for d in own
                if self.case.matches
                and not any(p.matches(d, self.case.source) for p in self.case.matches)
            ]
            if unmatched:
                raise UnexpectedDivergence(
                    f"{text}\n    MATCHES of this case do not recognise: "
                    + "; ".join(f"{d['kind']} at {d['stage']}" for d in unmatched)
                )
            if foreign := foreign_matches(self.case, own):
                raise UnexpectedDivergence(
                    f"{text}\n    patterns of other bugs recognise this case: " + "; ".join(foreign)
                )
            raise ExpectedDivergence(text)
        if outcome.status == "divergence":
            raise UnexpectedDivergence(text)

    def _on_another_stack(self, outcome) -> None:
        """A case registered on other versions (VERSIONS) than the installed ones reports
        what it shows here instead of failing: the bug may be fixed, or look different."""
        drift = self.case.version_drift()
        expected = expected_for(self.case, self.lane)
        if drift is None or not expected or not all_fixes_on():
            return
        kinds = sorted({d["kind"] for d in outcome.divergences})
        if outcome.status == "expected":
            pytest.xfail(f"reproduces on {drift}")
        if outcome.status == "divergence":
            pytest.xfail(f"on {drift}: shows {kinds} instead of EXPECT {sorted(expected)}")
        pytest.skip(f"not reproduced on {drift}")

    def _skip(self, reason: str) -> None:
        """Skip, unless this lane must show a registered bug (EXPECT, every fix on: the
        strict xfail): a skip there would pass CI with the bug unseen, so it fails. A
        missing device, or a lane/device the case excludes (LANES/DEVICES), still skips."""
        expected = expected_for(self.case, self.lane)
        legitimate = (self.device == "cuda" and not torch.cuda.is_available()) or (
            reason.startswith("the case does not run")
        )
        legitimate = legitimate or self.case.version_drift() is not None
        if not expected or not all_fixes_on() or legitimate:
            pytest.skip(reason)
        raise CorpusFailure(
            f"{self.path.name} on {self.lane}/{self.device}: EXPECT {sorted(expected)} "
            f"registers a bug that must show here, but the lane skipped: {reason.strip()}"
        )

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CorpusFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        where = f"{self.lane}/{self.device}" if self.lane else "load"
        return self.path, None, f"corpus case {self.path.name} on {where}"
