"""The Hypothesis example database of a campaign: a local folder (the default) or a Redis
server shared by every worker and every night (`--database redis://HOST:PORT/DB`).

Hypothesis replays the examples it saved (failing ones first) before generating new ones,
so a bug found last night, or on another machine, is tried again first. Stored examples
replay only under the same Hypothesis version and strategies: the supervisor refuses
workers whose harness stamp differs (fuzz.campaign.protocol.harness_stamp).

Failing examples are never dropped (`KeepFailures`): a worker stops raising for a bug it
has already shrunk, so to Hypothesis yesterday's failure looks fixed when a later round
replays it, and Hypothesis would delete it from the database, for every other worker and
night too. Redis entries expire on their own (Hypothesis's default: eight days).

`check_database(spec)` is called once at the start of a campaign: a database that cannot
be reached is a clear error then, never a campaign that silently runs without one.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from fuzz.errors import FuzzError

REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
CONNECT_TIMEOUT_S = 5.0


class DatabaseError(FuzzError, RuntimeError):
    """The example database named by a campaign cannot be used; the message says why."""


class KeepFailures(ExampleDatabase):
    """A database wrapper that saves and fetches, but never deletes: `move` (Hypothesis
    demoting an example that no longer fails) saves a copy under the new key instead."""

    def __init__(self, db: ExampleDatabase):
        super().__init__()
        self.wrapped = db

    def __repr__(self) -> str:
        return f"KeepFailures({self.wrapped!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeepFailures) and self.wrapped == other.wrapped

    def fetch(self, key: bytes) -> Iterable[bytes]:
        yield from self.wrapped.fetch(key)

    def save(self, key: bytes, value: bytes) -> None:
        self.wrapped.save(key, value)

    def delete(self, key: bytes, value: bytes) -> None:
        pass

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.wrapped.save(dest, value)

    def _start_listening(self) -> None:
        pass  # change events are the wrapped database's business

    def _stop_listening(self) -> None:
        pass


def is_redis(spec: str | None) -> bool:
    return bool(spec) and spec.startswith(REDIS_SCHEMES)


def _redis_client(spec: str):
    # `redis` is an optional dependency (the `cluster` extra): imported only for a redis URL.
    try:
        import redis
    except ImportError as e:
        raise DatabaseError(
            f"--database {spec}: the redis client is not installed (pip install '.[cluster]')"
        ) from e
    client = redis.Redis.from_url(
        spec, socket_connect_timeout=CONNECT_TIMEOUT_S, socket_timeout=CONNECT_TIMEOUT_S
    )
    try:
        client.ping()
    except redis.RedisError as e:
        raise DatabaseError(f"--database {spec}: cannot reach the Redis server: {e}") from e
    return client


def open_database(spec: str | None) -> ExampleDatabase | None:
    """The database named by `spec`: None (no database), a redis:// URL, or a folder."""
    if not spec:
        return None
    if is_redis(spec):
        from hypothesis.extra.redis import RedisExampleDatabase  # needs the redis client

        return KeepFailures(RedisExampleDatabase(_redis_client(spec)))
    return KeepFailures(DirectoryBasedExampleDatabase(str(Path(spec))))


def check_database(spec: str | None) -> None:
    """Raise DatabaseError when `spec` names a database that cannot be used."""
    if is_redis(spec):
        _redis_client(spec).close()
    elif spec:
        path = Path(spec)
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise DatabaseError(f"--database {spec}: cannot create the folder: {e}") from e
