"""A teammate killed inside its own SendMessage, before the message is stored or after it
is stored but before its result is kept: started again, it runs the call again (tether's own
tool, whose message ids derive from the call's), and the lead gets the message exactly once.
The kill comes while a hook of the call (PreToolUse, PostToolUse) blocks on a FIFO: the test
waits on the hook's mark, never on time."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tether.store.mailbox import Message, TeamStore
from tether.testing import FakeModelServer
from tether.testing.teammates import mate_answers, member_of, polite

from .mates import lead_reads_until, lead_store, new_team, wait_state
from .test_team_resume import kill
from .workers import tether, wait_for


def hold_send_message(repo: Path, when: str, gate: Path) -> None:
    """The member's first SendMessage held in its `when` hook until the test opens `gate`'s
    FIFO; the hook marks `gate/reached` once it holds the call."""
    from tether.config.settings import tether_home
    from tether.config.trust import record_trust

    assert record_trust(repo, True, tether_home=tether_home(), user_home=Path.home())
    gate.mkdir()
    os.mkfifo(gate / "fifo")
    (gate / "armed").touch()
    script = gate / "hold.sh"
    script.write_text(
        "#!/bin/sh\ncat >/dev/null\n"
        f'if [ -e "{gate}/armed" ]; then rm "{gate}/armed"; touch "{gate}/reached"; '
        f'cat "{gate}/fifo" >/dev/null; fi\nexit 0\n'
    )
    script.chmod(0o755)
    hook = {"matcher": "SendMessage", "hooks": [{"type": "command", "command": str(script)}]}
    (repo / ".tether").mkdir(exist_ok=True)
    (repo / ".tether" / "settings.json").write_text(json.dumps({"hooks": {when: [hook]}}))


def release(gate: Path) -> None:
    """The held hook's read ends (its writer opens and closes the FIFO): nothing is left."""
    os.close(os.open(gate / "fifo", os.O_WRONLY | os.O_NONBLOCK))


def lead_mail_after(lead: TeamStore, first: str) -> list[Message]:
    """Every message to the lead up to the one starting `first`, then all the rest stored."""
    got = lead_reads_until(lead, first)
    rest = lead.receive("team-lead", "test-lead", block_s=0.0)
    lead.ack("team-lead", [d.receipt for d in rest])
    return [*got, *(d.message for d in rest)]


@pytest.mark.parametrize(
    ("when", "kind"),
    [
        ("PreToolUse", "message"),  # killed before the message is stored: it was lost
        ("PostToolUse", "message"),  # stored, its result not kept: the rerun must not double it
        ("PreToolUse", "request"),
        ("PostToolUse", "request"),  # the reply stored with alice's state: the rerun is done
    ],
)
def test_a_teammate_killed_inside_its_send_message_delivers_it_once_when_started_again(
    repo: Path,
    model_env: FakeModelServer,
    store: list[str],
    tmp_path: Path,
    when: str,
    kind: str,
) -> None:
    gate = tmp_path / "gate"
    hold_send_message(repo, when, gate)
    model_env.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", "--trust-workspace", *store)
    lead = lead_store(repo, team, store[1] if store else None)
    try:
        asked = lead.send(Message(sender="team-lead", recipient="alice", kind=kind, text="k1"))
        wait_for(lambda: (gate / "reached").exists(), f"alice's SendMessage in its {when} hook")
        kill(repo, team, "alice", *store)
        release(gate)
        tether(repo, "team", "up", team, *store)
        said = "alice answers: k1" if kind == "request" else "alice got: k1"
        first = lead_mail_after(lead, said)
        alice = wait_state(repo, team, "alice", "idle", *store)
        mail = [*first, *lead_mail_after_idle(lead)]
        answers = [(m.kind, m.reply_to, m.text) for m in mail if m.text == said]
        expected = ("reply", asked.id, said) if kind == "request" else ("message", None, said)
        assert answers == [expected]
        assert (alice["running"], alice["unread"], alice["requests_owed"]) == (True, 0, [])
        results = [
            result
            for r in model_env.requests
            if member_of(r) == "alice"
            for result in r.tool_results()
        ]
        # The call's own result, from its rerun (before: "its outcome is unknown").
        ran = f"reply to {asked.id} sent" if kind == "request" else "Message sent to team-lead"
        assert [result.startswith(ran) for result in results] == [True], results
    finally:
        lead.close()
        tether(repo, "team", "down", team, *store)


def lead_mail_after_idle(lead: TeamStore) -> list[Message]:
    """What else the lead's mailbox holds once alice's turn is done."""
    rest = lead.receive("team-lead", "test-lead", block_s=0.0)
    lead.ack("team-lead", [d.receipt for d in rest])
    return [d.message for d in rest]
