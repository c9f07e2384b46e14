"""`tether team down` racing a start. Measured before: a second `team up` that added a member
while a down ran started it once the down had returned (the down had read the roster before
the member was in it), so the team ran on "down"; and a `team up` during a down said each
member was "running already" (the down then stopped them all)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from tether.store.mailbox import Member, StartClaim, TeamRecord, open_team_store
from tether.teams.claims import claim_start, pid_runs, process_start
from tether.teams.down_fence import team_stopping
from tether.teams.processes import ended
from tether.testing import FakeModelServer
from tether.testing.teammates import mate_answers, polite

from .mates import member, new_team, status
from .workers import WAIT_S, tether, wait_for


def _store_url(store: list[str]) -> str | None:
    return store[1] if store else None


def test_a_down_waits_for_a_start_claimed_before_it_began(repo: Path, store: list[str]) -> None:
    """The start claimed its member before the down's mark (so it saw none), and gives the
    claim up when it checks the mark before forking, as `start_members` does."""
    team, url = new_team(), _store_url(store)
    roster = open_team_store(url, project=repo, team=team)
    down: subprocess.Popen[str] | None = None
    try:
        roster.create_team(TeamRecord(name=team))
        roster.put_member(Member(name="team-lead", state="idle"))
        roster.put_member(Member(name="late", state="stopped"))
        assert claim_start(roster, "late", within_s=600, plan=False) is None  # a 2nd `up`
        down = subprocess.Popen(
            [sys.executable, "-m", "tether", "team", "down", team, *store],
            cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

        def marked() -> bool:
            lead = next(m for m in roster.members() if m.name == "team-lead")
            return lead.team_down is not None and lead.team_down.pid == down.pid

        wait_for(marked, "the down's mark on the team")
        assert team_stopping(roster) is not None
        assert down.poll() is None  # the claim holds it
        assert ended(roster, "late", 0, started=False)  # the start saw the mark: nothing forked
        out, err = down.communicate(timeout=WAIT_S)
        assert (down.returncode, out, err) == (0, f"nothing of team {team} was running\n", "")
        after = next(m for m in roster.members() if m.name == "late")
        assert (after.state, after.pid, after.start_claim) == ("did_not_start", None, None)
        lead = next(m for m in roster.members() if m.name == "team-lead")
        assert lead.team_down is None  # lifted as the down returned
    finally:
        if down is not None and down.poll() is None:
            down.kill()
            down.communicate()
        roster.close()


def test_an_up_during_a_down_waits_for_it_then_starts_the_team(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    model_env.responder = mate_answers(polite)
    team, url = new_team(), _store_url(store)
    roster = open_team_store(url, project=repo, team=team)
    # A down under way: its mark held by a live process (this one stands in for its work).
    downer = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    up: subprocess.Popen[str] | None = None
    try:
        roster.create_team(TeamRecord(name=team))
        roster.put_member(Member(name="team-lead", state="idle"))
        host = socket.gethostname()
        mark = StartClaim(
            pid=downer.pid, pid_started=process_start(downer.pid), host=host,
            until=time.time() + 600,
        )  # fmt: skip
        roster.update_member("team-lead", {"team_down": mark.model_dump()})
        up = subprocess.Popen(
            [sys.executable, "-m", "tether", "team", "up", team, "--member", "quick", *store],
            cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=os.environ,
        )  # fmt: skip
        assert up.stderr is not None
        first = up.stderr.readline()
        assert first == (
            f"waiting for `tether team down` (pid {downer.pid} on {host}) to finish first\n"
        )
        assert downer.stdin is not None
        downer.stdin.close()  # the down ends
        downer.wait()
        out, err = up.communicate(timeout=WAIT_S)
        quick = member(status(repo, team, *store), "quick")
        assert (up.returncode, out) == (
            0,
            f"quick: started (pid {quick['pid']}), 0 unread message(s)\n",
        ), err
        assert pid_runs(quick["pid"])
    finally:
        if downer.poll() is None:
            downer.kill()
            downer.wait()
        if up is not None and up.poll() is None:
            up.kill()
            up.communicate()
        roster.close()
        tether(repo, "team", "down", team, *store)
