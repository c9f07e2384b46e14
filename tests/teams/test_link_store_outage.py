"""A member's notices (its idle notification) and state writes are not dropped when its Redis
is briefly down: kept, and stored once the server answers again, the notice once, under its
id. Measured before: "no idle notification to team-lead: ... Connection refused" and "state
not recorded in the roster", both lost."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.store.mailbox import Member, Message, TeamRecord, TeamStore, open_team_store
from tether.teams.link import TeamLink
from tether.teams.protocol import MemberProtocol
from tether.testing.redis_server import RedisServer, RedisUnavailable

WAIT_S = 60.0


async def _until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        assert time.monotonic() < deadline, f"waited {WAIT_S:g} s for {what}"
        await asyncio.sleep(0.05)


async def test_an_idle_notification_and_a_state_change_while_redis_is_down_are_stored_later(
    tmp_path: Path,
) -> None:
    try:
        server = RedisServer.start(persist=True)
    except RedisUnavailable as e:
        pytest.skip(str(e))
    stores: list[TeamStore] = []
    try:
        store = open_team_store(server.url, project=tmp_path, team="t")
        stores.append(store)
        store.create_team(TeamRecord(name="t", lead="team-lead"))
        store.put_member(Member(name="team-lead", state="idle"))
        store.put_member(Member(name="alice", state="idle"))
        said: list[str] = []
        link = TeamLink(
            team="t",
            member="alice",
            store=store,
            protocol=MemberProtocol(name="alice", lead="team-lead"),
            warn=said.append,
        )
        await link.refresh_members()

        server.kill()
        notice = await link.notify("team-lead", "idle_notification", "alice done")
        asked = Message(sender="team-lead", recipient="alice", kind="request", text="q?")
        link.protocol.incoming(asked, time.time())  # alice now owes a reply: responding
        await asyncio.sleep(0)
        assert any("kept, and written once it answers" in s for s in said), said

        server = RedisServer.start(port=server.port, workdir=server.workdir, persist=True)
        lead = open_team_store(server.url, project=tmp_path, team="t")
        stores.append(lead)
        got: list[Message] = []

        def arrived() -> bool:
            batch = lead.receive("team-lead", "test", block_s=0.0)
            lead.ack("team-lead", [d.receipt for d in batch])
            got.extend(d.message for d in batch)
            alice = next(m for m in lead.members() if m.name == "alice")
            return bool(got) and alice.state == "responding"

        await _until(arrived, "the notice and alice's state to be stored")
        assert [(m.id, m.kind, m.text) for m in got] == [
            (notice.id, "idle_notification", "alice done")
        ]
        await link.close()
    finally:
        for each in stores:
            each.close()
        server.stop()
