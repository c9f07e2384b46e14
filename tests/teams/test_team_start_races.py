"""One process per member whatever races: concurrent `tether team up`s start one teammate, a
second teammate process of a member stops at once, and `tether team down` ends every process
of the team it finds."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from tether.store.mailbox import Member, MemberBusy, open_team_store
from tether.teams.claims import team_processes
from tether.testing import FakeModelServer
from tether.testing.teammates import mate_answers, polite

from .mates import member, new_team, status
from .workers import WAIT_S, tether


def store_url(store: list[str]) -> str | None:
    return store[1] if store else None


def test_a_claim_on_a_member_is_taken_once_by_racing_writers(repo: Path, store: list[str]) -> None:
    team = new_team()
    first = open_team_store(store_url(store), project=repo, team=team)
    first.put_member(Member(name="ra"))
    won: list[int] = []
    refused: list[str] = []
    barrier = threading.Barrier(6)

    def claim(i: int) -> None:
        mine = open_team_store(store_url(store), project=repo, team=team)
        try:
            barrier.wait()
            mine.update_member(
                "ra", {"pid": i}, unless=lambda m: f"held by {m.pid}" if m.pid else None
            )
            won.append(i)
        except MemberBusy as e:
            refused.append(str(e))
        finally:
            mine.close()

    threads = [threading.Thread(target=claim, args=(i + 1,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1
    assert len(refused) == 5
    assert set(refused) == {f"held by {won[0]}"}
    assert next(m for m in first.members() if m.name == "ra").pid == won[0]
    first.close()


def test_concurrent_team_ups_start_one_process_and_down_ends_every_one(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    model_env.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "ra", *store)
    tether(repo, "team", "down", team, *store)
    ups = [
        subprocess.Popen(
            [sys.executable, "-m", "tether", "team", "up", team, *store],
            cwd=repo,
            env=dict(os.environ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outs = [up.communicate(timeout=WAIT_S) for up in ups]
    assert [up.returncode for up in ups] == [0, 0, 0], outs
    said = sorted(out.strip().split(" (")[0] for out, _ in outs)
    assert said.count("ra: started") == 1, said
    roster = open_team_store(store_url(store), project=repo, team=team)
    try:
        running = team_processes(roster)
        ra = member(status(repo, team, *store), "ra")
        assert [p.pid for p in running] == [ra["pid"]]
        tether(repo, "team", "down", team, *store)
        assert team_processes(roster) == []
    finally:
        roster.close()


def test_a_second_process_of_a_running_member_stops_at_once(
    repo: Path, model_env: FakeModelServer
) -> None:
    model_env.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "ra")
    ra = member(status(repo, team), "ra")
    second = subprocess.run(
        [sys.executable, "-m", "tether", "team", "run", team, "ra"],
        cwd=repo,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert second.returncode == 1
    assert f"ra: ra runs already as pid {ra['pid']}" in second.stderr
    assert member(status(repo, team), "ra")["pid"] == ra["pid"]  # the roster still names it
    tether(repo, "team", "down", team)
