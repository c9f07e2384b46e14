"""What a teammate says about how it runs and stops: a TeammateIdle hook's `continue: false`
reaches the log, the event log and the lead with its `stopReason`; an untrusted project's
skipped hooks are said in its log; a start that finds it in another state than its last
event is an event."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.teammates import Letter, mate_answers, polite

from .mates import lead_reads_until, lead_store, member, new_team, status
from .workers import tether, wait_for


def _hooks(repo: Path, settings: dict[str, object]) -> None:
    (repo / ".tether").mkdir(exist_ok=True)
    (repo / ".tether" / "settings.json").write_text(json.dumps(settings))


def _trust(repo: Path) -> None:
    from tether.config.settings import tether_home
    from tether.config.trust import record_trust

    assert record_trust(repo, True, tether_home=tether_home(), user_home=Path.home())


def _log(repo: Path, team: str, name: str) -> str:
    return (repo / ".tether" / "teams" / team / f"{name}.log").read_text()


def test_a_teammate_idle_hook_that_stops_a_teammate_tells_its_reason(
    repo: Path, model_env: FakeModelServer
) -> None:
    _trust(repo)
    stop = json.dumps({"continue": False, "stopReason": "enough work today"})
    hook = {"type": "command", "command": f"cat >/dev/null; echo '{stop}'"}
    _hooks(repo, {"hooks": {"TeammateIdle": [{"hooks": [hook]}]}})
    model_env.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    lead = lead_store(repo, team)
    try:
        tether(repo, "team", "send", team, "alice", "hi")
        got = lead_reads_until(lead, "stopped by a TeammateIdle hook")
        assert (got[-1].kind, got[-1].data) == (
            "idle_notification",
            {"reason": "enough work today"},
        )
        wait_for(lambda: not member(status(repo, team), "alice")["running"], "alice to stop")
        assert "alice: stopped (a TeammateIdle hook stopped it: enough work today)" in _log(
            repo, team, "alice"
        )
        last = member(status(repo, team), "alice")["events"][-1]
        assert (last["after"], last["cause"]) == (
            "stopped",
            "a TeammateIdle hook stopped it: enough work today",
        )
    finally:
        lead.close()
        tether(repo, "team", "down", team)


def test_a_teammate_in_an_untrusted_project_says_which_hooks_it_skipped(
    repo: Path, model_env: FakeModelServer
) -> None:
    hook = {"type": "command", "command": "exit 2"}
    _hooks(repo, {"hooks": {"TeammateIdle": [{"hooks": [hook]}]}})
    model_env.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    try:
        # `team up` returns once alice has claimed her member, before her session is built
        said: list[str] = []
        for _ in range(600):
            said = [ln for ln in _log(repo, team, "alice").splitlines() if "not trusted" in ln]
            if said:
                break
            time.sleep(0.05)
        assert len(said) == 1
        assert said[0].startswith("alice: ")
        assert "hook" in said[0]
    finally:
        tether(repo, "team", "down", team)


def test_a_teammate_started_again_in_another_state_than_its_last_event_says_so(
    repo: Path, model_env: FakeModelServer
) -> None:
    _trust(repo)
    _hooks(repo, {"permissions": {"allow": ["Bash(sleep:*)"]}})

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].body.startswith("work long"):
            return tool_use("Bash", command="sleep 120")
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer, after_tools=lambda m, r: text(f"{m} done"))
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    try:
        tether(repo, "team", "send", team, "alice", "work long")
        wait_for(lambda: _sleeping(repo), "alice's sleep 120 to run")
        # Asked to shut down mid-command: responding; down's SIGTERM stops it before it answers.
        tether(repo, "team", "down", team, "--wait", "1")
        stopped = member(status(repo, team), "alice")
        assert stopped["events"][-1]["after"] == "responding"
        tether(repo, "team", "up", team)
        alice = member(status(repo, team), "alice")
        last = alice["events"][-1]
        assert (alice["state"], last["before"], last["after"]) == ("idle", "responding", "idle")
        assert last["cause"].startswith("started again (pid ")
    finally:
        tether(repo, "team", "down", team)


def _sleeping(repo: Path) -> bool:
    """Whether a `sleep 120` of the test's teammate runs (its Bash call is under way)."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            cwd = (proc / "cwd").resolve()
        except OSError:
            continue
        if b"sleep" in argv[:1] and b"120" in argv and cwd == repo:
            return True
    return False


def test_a_teammate_in_plan_mode_is_told_how_to_leave_it(
    repo: Path, model_env: FakeModelServer
) -> None:
    from tether.testing.teammates import member_of

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].kind == "message":
            return tool_use("Write", file_path=str(repo / "c.txt"), content="c\n")
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", "--plan")
    lead = lead_store(repo, team)
    try:
        tether(repo, "team", "send", team, "alice", "write c.txt")
        lead_reads_until(lead, "alice done")
        denied = next(r for r in model_env.requests if member_of(r) == "alice" and r.tool_results())
        how = (
            'To leave plan mode, send your plan to the lead: SendMessage(to="team-lead", '
            'message={"type": "plan_approval_request", "plan": "..."}); you may write once '
            "the lead approves it"
        )
        assert denied.tool_results()[0].endswith(how)
        assert "You are in plan mode" in denied.system()
        assert not (repo / "c.txt").exists()
    finally:
        lead.close()
        tether(repo, "team", "down", team)


def test_sighup_stops_a_teammate_mid_command_as_sigterm_does(
    repo: Path, model_env: FakeModelServer
) -> None:
    """SIGHUP (the terminal `team up` ran in closed, a `kill -HUP`) mid-command: the command
    ends, the session is saved (valid, the call answered), one line in the log says why, and
    `team down` has nothing left to stop."""
    from tether.core.resume import restore
    from tether.store import load_session

    _trust(repo)
    _hooks(repo, {"permissions": {"allow": ["Bash(sleep:*)"]}})

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].body.startswith("work long"):
            return tool_use("Bash", command="sleep 120")
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer, after_tools=lambda m, r: text(f"{m} done"))
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    try:
        tether(repo, "team", "send", team, "alice", "work long")
        wait_for(lambda: _sleeping(repo), "alice's sleep 120 to run")
        pid = member(status(repo, team), "alice")["pid"]
        os.kill(pid, signal.SIGHUP)
        wait_for(lambda: not Path(f"/proc/{pid}").exists(), "alice to stop")
        assert not _sleeping(repo)
        log = _log(repo, team, "alice")
        assert log.count("alice: stopped (stopped by SIGHUP)") == 1, log
        assert "Traceback" not in log
        alice = member(status(repo, team), "alice")
        assert alice["running"] is False
        [session] = Path(os.environ["TETHER_HOME"]).rglob(f"{alice['session_id']}.jsonl")
        restored = restore(load_session(session))
        assert restored.damage == ()
        assert restored.history.messages[-1].role == "user"  # the call answered
        assert "SIGTERM" not in tether(repo, "team", "down", team)
    finally:
        tether(repo, "team", "down", team)
