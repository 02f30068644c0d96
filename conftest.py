"""pytest setup for the whole repository: the harness's pytest plugin, fuzz/pytest_plugin.py
(the `--fixes` option, Hypothesis profiles, every case file under corpus/ as test items;
its docstring says how they are judged).

A root conftest.py because pytest reads `pytest_plugins` only there, and because a run
that names a folder outside the repository (a test's own corpus folder) loads this file
with `-p conftest` (tests.helpers.pytest_corpus).
"""

pytest_plugins = ["fuzz.pytest_plugin"]
