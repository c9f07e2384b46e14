"""Faults a running team meets: a mailbox entry that is not a message, and the Redis server
restarted under it (with its data, and empty)."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.store.mailbox_stores import store_raw
from tether.store.mailbox import MailboxesLost
from tether.teams.processes import pid_runs
from tether.testing import FakeModelServer
from tether.testing.cli_runner import run_cli_process
from tether.testing.recorded import content_text
from tether.testing.redis_server import RedisServer, RedisUnavailable
from tether.testing.teammates import letters_in, mate_answers, member_of, polite

from .mates import lead_reads_until, lead_store, member, new_team, status, wait_state
from .workers import tether, wait_for


def test_a_mailbox_entry_that_is_not_json_is_told_precisely_and_nothing_else_is_lost(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    model_env.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", *store)
    lead = lead_store(repo, team, store[1] if store else None)
    try:
        tether(repo, "team", "send", team, "alice", "before", *store)
        lead_reads_until(lead, "alice done")
        store_raw(store[1] if store else lead.url, team, "alice", '{"sender": "bob", "te')
        tether(repo, "team", "send", team, "alice", "after", *store)
        got = lead_reads_until(lead, "alice got: after")
        assert [m.text for m in got if m.kind == "message"] == ["alice got: after"]
        alice = wait_state(repo, team, "alice", "idle", *store)
        assert (alice["running"], alice["unread"]) == (True, 0)
        assert alice["current_task"] is None
        seen = [
            letter
            for r in model_env.requests
            if member_of(r) == "alice"
            for m in r.messages()
            for letter in letters_in(content_text(m.get("content")))
        ]
        broken = [x for x in seen if x.kind == "invalid"]
        assert len({x.id for x in broken}) == 1
        assert "mailbox is not valid JSON (EOF while parsing a string" in broken[0].body
        assert '{"sender": "bob", "te' in broken[0].body
        log = (repo / ".tether" / "teams" / team / "alice.log").read_text()
        assert f"{broken[0].id}: stored entry" in log
        assert "is not valid JSON" in log
    finally:
        lead.close()
        tether(repo, "team", "down", team, *store)


@pytest.mark.parametrize("keeps_data", [True, False], ids=["with-its-data", "empty"])
def test_redis_restarted_mid_conversation(
    repo: Path, model_env: FakeModelServer, keeps_data: bool
) -> None:
    """The server stops while alice runs: a send says precisely why it cannot; alice waits for
    it and goes on. Back with its data, a message sent before the stop is still delivered;
    back empty, alice says what was lost and writes her roster record again."""
    server = _own_redis()
    model_env.responder = mate_answers(polite)
    team = new_team()
    store = ["--store", server.url]
    lead = None
    try:
        tether(repo, "team", "up", team, "--member", "alice", *store)
        lead = lead_store(repo, team, server.url)
        tether(repo, "team", "send", team, "alice", "one", *store)
        lead_reads_until(lead, "alice got: one")
        wait_state(repo, team, "alice", "idle", *store)
        alice = member(status(repo, team, *store), "alice")
        server.kill()
        refused = run_cli_process(
            ["team", "send", team, "alice", "lost?", *store], env=dict(os.environ), cwd=repo
        )
        assert refused.exit_code == 2
        assert f"cannot reach the mailbox store at {server.url}" in refused.stderr
        log = repo / ".tether" / "teams" / team / "alice.log"
        wait_for(lambda: "trying again until it answers" in log.read_text(), "alice to notice")
        if keeps_data:
            server = RedisServer.start(port=server.port, workdir=server.workdir, persist=True)
        else:
            server.stop()
            server = RedisServer.start(port=server.port)
        wait_for(lambda: "answers again" in log.read_text(), "alice to reconnect")
        if not keeps_data:
            wait_for(lambda: "record written again" in log.read_text(), "alice's record")
            assert "the server no longer has the data of team" in log.read_text()
            with pytest.raises(MailboxesLost, match=r"'team-lead' not yet received .* are gone"):
                lead.receive("team-lead", "test-lead", block_s=0.1)
        tether(repo, "team", "send", team, "alice", "two", *store)
        got = lead_reads_until(lead, "alice got: two")
        assert [m.text for m in got if m.kind == "message"] == ["alice got: two"]
        after = wait_state(repo, team, "alice", "idle", *store)
        assert (after["running"], after["pid"], after["session_id"]) == (
            True,
            alice["pid"],
            alice["session_id"],
        )
    finally:
        if lead is not None:
            lead.close()
        run_cli_process(["team", "down", team, *store], env=dict(os.environ), cwd=repo)
        server.stop()
        _end_left_teammates(repo / ".tether" / "teams" / team)


async def test_a_lead_says_its_store_is_unreachable_and_reads_on_once_it_is_back(
    tmp_path: Path,
) -> None:
    """The lead's session reads its mailbox in the background: Redis stopping under it is
    said (once), and a message sent before the stop reaches the session once it is back."""
    import asyncio

    from tether.store.mailbox import Message, open_team_store
    from tether.teams.lead import LeadTeams

    server = _own_redis()
    steered: list[str] = []
    warned: list[str] = []
    changed = asyncio.Event()

    def kept(into: list[str]) -> Callable[[str], None]:
        def keep(text: str) -> None:
            into.append(text)
            changed.set()

        return keep

    lead = LeadTeams(project=tmp_path, store_url=server.url, steer=kept(steered))
    lead.warnings.append(kept(warned))

    async def until(done: Callable[[], bool]) -> None:
        async with asyncio.timeout(60):
            while not done():
                await changed.wait()
                changed.clear()

    try:
        team = new_team()
        await lead.create(team, "")
        server.kill()
        await until(lambda: bool(warned))
        assert warned[0].startswith(f"team {team}: mailbox store {server.url}: ")
        assert warned[0].endswith("Connection refused: trying again until it answers")
        server = RedisServer.start(port=server.port, workdir=server.workdir, persist=True)
        sender = open_team_store(server.url, project=tmp_path, team=team)
        sender.send(Message(sender="alice", recipient="team-lead", text="still there?"))
        sender.close()
        await until(lambda: any("still there?" in s for s in steered))
        assert warned[1:] == [f"team {team}: mailbox store {server.url} answers again"]
    finally:
        await lead.close()
        server.stop()


def _end_left_teammates(team_dir: Path) -> None:
    """A test that failed with its store down cannot ask its teammates to stop through it:
    every `team run` process started for this team (named in its logs' folder) ends here."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"team" in args and b"run" in args and team_dir.name.encode() in args:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(proc.name), signal.SIGKILL)


def test_a_teammate_whose_store_stays_unreachable_stops_once_its_patience_runs_out(
    repo: Path, model_env: FakeModelServer
) -> None:
    """With no store a teammate can neither receive nor be stopped by `team down`: after
    `--store-patience` seconds it stops by itself, its session saved, and starts again with
    `team up` once the store is back."""
    server = _own_redis()
    model_env.responder = mate_answers(polite)
    team = new_team()
    store = ["--store", server.url]
    lead = None
    try:
        tether(repo, "team", "up", team, "--member", "alice", "--store-patience", "1", *store)
        alice = member(status(repo, team, *store), "alice")
        server.kill()
        wait_for(lambda: not pid_runs(alice["pid"]), "alice to stop")
        log = (repo / ".tether" / "teams" / team / "alice.log").read_text()
        assert "trying again until it answers (for 1 s at most)" in log
        assert (
            f"mailbox store {server.url} has not answered for 1 s: stopping once its turn is done"
            in log
        )
        server = RedisServer.start(port=server.port, workdir=server.workdir, persist=True)
        tether(repo, "team", "up", team, *store)
        lead = lead_store(repo, team, server.url)
        tether(repo, "team", "send", team, "alice", "back", *store)
        lead_reads_until(lead, "alice got: back")
        again = wait_state(repo, team, "alice", "idle", *store)
        assert again["session_id"] == alice["session_id"]
    finally:
        if lead is not None:
            lead.close()
        run_cli_process(["team", "down", team, *store], env=dict(os.environ), cwd=repo)
        server.stop()
        _end_left_teammates(repo / ".tether" / "teams" / team)


def _own_redis() -> RedisServer:
    """A Redis server of the test's own, kept on disk (so it can come back with its data),
    which the test stops and restarts; skipped where no redis-server runs."""
    try:
        return RedisServer.start(persist=True)
    except RedisUnavailable as e:
        pytest.skip(str(e))
