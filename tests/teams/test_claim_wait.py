"""`team up` waits for each teammate's claim on the store's word, not by reading the roster
every 20 ms: on a Redis server of the test's own, the roster reads `up` makes while its
teammate starts follow the roster's changes and the rechecks for an exit, a few (measured
before: one read of every member each 20 ms of the start, 40 to 150 under load)."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.testing import FakeModelServer
from tether.testing.redis_server import RedisServer
from tether.testing.teammates import mate_answers, polite

from .mates import new_team
from .workers import tether

READS_BESIDE_RECHECKS = 10
"""`up`'s own reads (its write of the started process's pid into the record among them),
its teammate's at its start, one per roster change."""
RECHECK_EVERY_S = 0.25
"""`up` rechecks for an exit once each quarter second of the start: a start slowed by a
loaded machine makes more of them (a fixed bound of 13 failed at 14 under load), while
reading every 20 ms, the fault this guards against, makes twelve times as many."""


@pytest.fixture
def own_redis(redis_url: str) -> Iterator[RedisServer]:
    """A Redis server of the test's own (`redis_url`: skipped, saying why, where there is
    none), its command counts the test's alone."""
    server = RedisServer.start()
    yield server
    server.stop()


def test_up_waits_for_the_claim_on_the_stores_word(
    repo: Path, model_env: FakeModelServer, own_redis: RedisServer
) -> None:
    import redis

    model_env.responder = mate_answers(polite)
    team = new_team()
    stats = redis.Redis.from_url(own_redis.url, decode_responses=True)
    try:
        stats.config_resetstat()
        began = time.monotonic()
        tether(repo, "team", "up", team, "--member", "alice", "--store", own_redis.url)
        took_s = time.monotonic() - began
        counts = stats.info("commandstats")
    finally:
        tether(repo, "team", "down", team, "--wait", "5", "--store", own_redis.url)
        stats.close()
    assert counts["cmdstat_subscribe"]["calls"] >= 1
    reads = counts["cmdstat_hgetall"]["calls"]
    assert reads <= READS_BESIDE_RECHECKS + math.ceil(took_s / RECHECK_EVERY_S), (reads, took_s)
