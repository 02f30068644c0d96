"""The legacy lane's tests are chosen in one place, .ci/legacy-tests (one path a line, read by
pytest's @FILE), which both runners of that lane (bash .ci/legacy and tox -e legacy) pass."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SELECTION = ".ci/legacy-tests"


def test_the_legacy_selection_names_existing_tests_one_a_line():
    lines = (ROOT / SELECTION).read_text().split("\n")
    assert lines[-1] == "", "end the file with a newline"
    paths = lines[:-1]
    # pytest reads each line as one argument: a blank one would select the whole suite.
    assert paths and all(p.strip() == p and p for p in paths), paths
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, missing


def test_both_legacy_runners_read_the_selection_and_name_no_test_themselves():
    for runner in (".ci/legacy", "tox.ini"):
        text = (ROOT / runner).read_text()
        commands = [line for line in text.splitlines() if "-m pytest" in line]
        assert any(f"@{SELECTION}" in line for line in commands), (runner, commands)
        # tox's main env runs the whole suite; no pytest command lists test paths itself.
        assert not any(re.search(r"\btests/", line) for line in commands), (runner, commands)
