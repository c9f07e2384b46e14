"""A teammate's SendMessage while its Redis is down is not dropped: it is tried again under
its id until the store answers, and stored once (before, the first try's error was the tool's
result, and the message was lost unless the model sent it again, under another id); a store
that does not answer within the member's patience is said in words the model can act on."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from tether.store.mailbox import Member, TeamRecord, open_team_store
from tether.teams.link import TeamLink
from tether.teams.patience import Patience
from tether.teams.protocol import MemberProtocol
from tether.teams.receiving import StorePatienceOut
from tether.testing.redis_server import RedisServer, RedisUnavailable

WAIT_S = 60.0


def started(**options: object) -> RedisServer:
    try:
        return RedisServer.start(**options)  # pyright: ignore[reportArgumentType]
    except RedisUnavailable as e:
        pytest.skip(str(e))


def alice_link(server: RedisServer, tmp_path: Path, said: list[str], patience_s: float) -> TeamLink:
    store = open_team_store(server.url, project=tmp_path, team="t")
    store.create_team(TeamRecord(name="t", lead="team-lead"))
    store.put_member(Member(name="team-lead", state="idle"))
    store.put_member(Member(name="alice", state="idle"))
    return TeamLink(
        team="t",
        member="alice",
        store=store,
        protocol=MemberProtocol(name="alice", lead="team-lead"),
        warn=said.append,
        session="s-1",
        patience=Patience(server.url, patience_s, said.append),
    )


async def test_a_send_while_redis_is_down_is_stored_once_when_it_answers(
    tmp_path: Path,
) -> None:
    server = started(persist=True)
    said: list[str] = []
    link = alice_link(server, tmp_path, said, WAIT_S)
    try:
        await link.refresh_members()
        server.kill()
        sending = asyncio.create_task(
            link.send("team-lead", "message", "p1 done", call_id="call_1")
        )
        deadline = time.monotonic() + WAIT_S
        while not any("trying again until it answers" in s for s in said):
            assert not sending.done(), sending.result()  # it waits: no error result
            assert time.monotonic() < deadline, said
            await asyncio.sleep(0.05)
        server = RedisServer.start(port=server.port, workdir=server.workdir, persist=True)
        async with asyncio.timeout(WAIT_S):
            sent = await sending
        lead = open_team_store(server.url, project=tmp_path, team="t")
        try:
            got = lead.receive("team-lead", "test", max_count=10)
            assert [d.message for d in got] == sent
            assert [(m.sender, m.text) for m in sent] == [("alice", "p1 done")]
            assert said[-1] == f"mailbox store {server.url} answers again"
        finally:
            lead.close()
    finally:
        await link.close()
        link.store.close()
        server.stop()


async def test_a_send_the_store_never_answers_is_said_not_stored(tmp_path: Path) -> None:
    server = started()
    said: list[str] = []
    link = alice_link(server, tmp_path, said, 0.5)
    try:
        await link.refresh_members()
        server.kill()
        with pytest.raises(StorePatienceOut) as raised:
            await link.send("team-lead", "message", "p1 done", call_id="call_1")
        assert str(raised.value) == f"mailbox store {server.url} has not answered for 0.5 s"
        assert link.protocol.state == "idle"
    finally:
        await link.close()
        link.store.close()
        server.stop()


async def test_a_store_that_takes_a_try_and_never_answers_is_waited_for_its_patience(
    tmp_path: Path,
) -> None:
    """A paused Redis (a dropped network alike) holds a try until the client's 30 s socket
    timeout: each try is bounded by what the patience has left, counted from the first try
    (a 1 s patience waited some 60 s: a try, then its error started the clock, then a
    try). The bound below is only what the old wait could never meet."""
    server = started()
    said: list[str] = []
    link = alice_link(server, tmp_path, said, 1.0)
    pid = server._proc.pid  # pyright: ignore[reportPrivateUsage]
    try:
        await link.refresh_members()
        os.killpg(pid, signal.SIGSTOP)
        with pytest.raises(StorePatienceOut) as raised:
            async with asyncio.timeout(20):
                await link.send("team-lead", "message", "p1 done", call_id="call_1")
        assert (str(raised.value), link.protocol.state) == (
            f"mailbox store {server.url} has not answered for 1 s",
            "idle",
        )
    finally:
        os.killpg(pid, signal.SIGCONT)
        await link.close()
        link.store.close()
        server.stop()
