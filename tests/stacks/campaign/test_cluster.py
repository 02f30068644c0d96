"""The nightly campaign beyond one machine, with real parts (no mocks): a two-node Ray
cluster on this machine (`ray.cluster_utils.Cluster`, one CPU per node) and a real
`redis-server` on a free loopback port.

The test lane of tests/crash_ops.py stands in for Thunder (fast, `--fixes off`, no Thunder
import): it aborts or hangs its process on inputs with a chosen dim, or reports a wrong
result on programs using torch.sin.

Ray and this cluster stay on loopback: Ray reads RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER when it
is imported, so it is set before the import below (and inherited by the nightly process).
"""

from __future__ import annotations

import os

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

import shutil  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

# The cluster extra is a test dependency; where it is missing (a bare GPU image) these tests
# skip, counted, unless FUZZ_REQUIRE_SERVERS (set by .ci/run) demands them.
if not os.environ.get("FUZZ_REQUIRE_SERVERS"):
    pytest.importorskip("ray", reason="ray is not installed (pip install '.[cluster]')")
    pytest.importorskip("redis", reason="redis is not installed (pip install '.[cluster]')")

import redis  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from tests.helpers import run_nightly as nightly  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ray_address():
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    try:
        yield cluster.address
    finally:
        cluster.shutdown()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_url():
    server = shutil.which("redis-server")
    if server is None:
        if os.environ.get("FUZZ_REQUIRE_SERVERS"):
            pytest.fail("redis-server is not installed (.ci/run installs it)")
        pytest.skip("redis-server is not installed (apt-get install -y redis-server)")
    port = _free_port()
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    client = redis.Redis(host="127.0.0.1", port=port)
    try:
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_ray_campaign_explores_on_both_nodes_and_survives_a_crash(tmp_path, ray_address):
    proc, doc = nightly(
        tmp_path / "out",
        "--engine",
        "ray",
        "--ray-address",
        ray_address,
        "--workers",
        "2",
        "--max-examples",
        "60",
        "--hypothesis-seed",
        "7",
        # A cap, not the test's length: 60 programs end the campaign (about 100 s
        # alone); two ray nodes next to another test worker on 2 cores need more.
        "--budget",
        "400",
        "--database",
        "none",
        lane_mode="crash",
    )
    assert doc is not None, proc.stderr[-3000:]
    assert doc["engine"] == "ray" and doc["workers"] == 2
    assert len(doc["nodes"]) == 2, doc["nodes"]  # both nodes explored
    assert all(n["thunder/cpu"] > 0 for n in doc["nodes"].values())
    assert doc["crashes"] >= 1 and doc["worker_restarts"] >= 1, doc["events"]
    crash = [f for f in doc["findings"] if f["item"][0] == "thunder.crash"]
    assert crash and crash[0]["status"] == "new", doc["findings"]
    assert crash[0]["confirmation"].startswith("reproduced"), crash[0]
    assert doc["programs"]["explored"] >= 60 and not doc["errors"], doc["errors"]
    assert proc.returncode == 1
    case = Path(crash[0]["path"]).read_text()
    assert "FOUND = ('thunder.crash@process',)" in case


def test_ray_campaign_kills_a_hanging_worker_and_goes_on(tmp_path, ray_address):
    proc, doc = nightly(
        tmp_path / "out",
        "--engine",
        "ray",
        "--ray-address",
        ray_address,
        "--workers",
        "2",
        "--max-examples",
        "12",
        "--hypothesis-seed",
        "7",
        "--budget",
        "120",
        "--database",
        "none",
        "--example-timeout",
        "3",
        lane_mode="hang",
        crash_dim=3,
    )
    assert doc is not None, proc.stderr[-3000:]
    assert doc["hangs"] >= 1 and doc["worker_restarts"] >= 1, doc["events"]
    hang = [f for f in doc["findings"] if f["item"] == ["thunder.crash", "process", "hang"]]
    assert hang and hang[0]["confirmation"].startswith("reproduced"), doc["findings"]
    assert doc["programs"]["explored"] >= 12


def test_ray_and_local_engines_file_the_same_findings(tmp_path, ray_address):
    args = (
        "--workers",
        "1",
        "--max-examples",
        "60",
        "--hypothesis-seed",
        "11",
        # A cap: 60 programs end each run. A run cut short by the budget on a
        # loaded machine explores other programs and files other findings.
        "--budget",
        "400",
        "--database",
        "none",
        "--corpus",
        str(tmp_path / "empty"),
    )
    local, doc_local = nightly(tmp_path / "local", *args, lane_mode="diverge")
    ray, doc_ray = nightly(
        tmp_path / "ray",
        "--engine",
        "ray",
        "--ray-address",
        ray_address,
        *args,
        lane_mode="diverge",
    )
    assert doc_local is not None and doc_ray is not None, (local.stderr[-2000:], ray.stderr[-2000:])
    digests = [
        {s["digest"] for f in d["findings"] for s in f["signatures"]} for d in (doc_local, doc_ray)
    ]
    assert digests[0] == digests[1] != set()
    texts = [
        sorted(Path(p).read_text().replace(str(tmp_path / name), "OUT") for p in d["new_cases"])
        for d, name in ((doc_local, "local"), (doc_ray, "ray"))
    ]
    assert texts[0] == texts[1]
    assert local.returncode == ray.returncode == 1


def test_a_shared_redis_database_replays_a_failing_example_in_the_next_campaign(
    tmp_path, redis_url
):
    empty = str(tmp_path / "empty")
    first_args = (
        "--max-examples",
        "60",
        "--hypothesis-seed",
        "11",
        "--budget",
        "150",
        "--workers",
        "1",
        "--corpus",
        empty,
    )
    proc1, doc1 = nightly(
        tmp_path / "one", *first_args, "--database", redis_url, lane_mode="diverge"
    )
    assert doc1 is not None and doc1["new_cases"], proc1.stderr[-3000:]
    assert doc1["database"] == redis_url
    client = redis.Redis.from_url(redis_url)
    assert client.keys("hypothesis-example:*"), "the campaign saved no example"
    # One program only, with a seed that by itself does not find the bug ...
    later = (
        "--max-examples",
        "1",
        "--hypothesis-seed",
        "3",
        "--budget",
        "120",
        "--workers",
        "1",
        "--corpus",
        empty,
    )
    _, control = nightly(tmp_path / "control", *later, "--database", "none", lane_mode="diverge")
    assert control is not None and not control["findings"], control["findings"]
    # ... but with the shared database, the saved failing example is replayed first.
    proc2, doc2 = nightly(tmp_path / "two", *later, "--database", redis_url, lane_mode="diverge")
    assert doc2 is not None, proc2.stderr[-3000:]
    assert doc2["programs"]["explored"] == 1
    found = {s["digest"] for f in doc2["findings"] for s in f["signatures"]}
    assert found & {s["digest"] for f in doc1["findings"] for s in f["signatures"]}


def test_an_unreachable_database_fails_fast_with_a_clear_message(tmp_path):
    start = time.time()
    proc, doc = nightly(
        tmp_path / "out",
        "--database",
        f"redis://127.0.0.1:{_free_port()}/0",
        "--max-examples",
        "5",
        timeout=60,
    )
    assert proc.returncode == 2 and doc is None
    assert "cannot reach the Redis server" in proc.stderr, proc.stderr[-2000:]
    assert time.time() - start < 30
