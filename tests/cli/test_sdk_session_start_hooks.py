"""SessionStart hooks as a client of the real Claude Agent SDK sees them, over the wire, as
the bundled Claude Code CLI writes them on the same fake API: their `hook_started` and
`hook_response` lines reach every client (not only one that asked for hook events), and
what they add reaches the model in Claude Code's words, with whose it is."""

from __future__ import annotations

import json
import shlex

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text

GIVEN = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "AS-JSON"}}


def reminder(told: str) -> dict[str, str]:
    return {"type": "text", "text": f"<system-reminder>\n{told}\n</system-reminder>"}


async def test_session_start_hooks_are_told_to_the_client_and_the_model(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    settings = sdk.workspace / ".claude" / "settings.json"
    settings.parent.mkdir()
    printed_json = f"echo {shlex.quote(json.dumps(GIVEN))}"
    hooks = [{"type": "command", "command": c} for c in (printed_json, "echo AS-TEXT")]
    settings.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": hooks}]}}))
    fake_model.script(reply(text("ok")))
    await sdk.query(
        "go",
        model="claude-sonnet-4-5",
        permission_mode="bypassPermissions",
        setting_sources=["project"],
    )
    # Before: the model read both bare ("AS-JSON", "AS-TEXT"), and the client no line.
    first = fake_model.requests[0].messages()[0]["content"]
    assert [{k: v for k, v in block.items() if k != "cache_control"} for block in first] == [
        reminder("SessionStart:startup hook success: AS-TEXT"),
        reminder("SessionStart hook additional context: AS-JSON"),
        {"type": "text", "text": "go"},
    ]
    told = sorted(
        (
            line["subtype"],
            line["hook_name"],
            line["hook_event"],
            line.get("stdout"),
            line.get("outcome"),
        )
        for line in sdk.lines()
        if line["type"] == "system" and line["subtype"] in ("hook_started", "hook_response")
    )
    assert told == [
        ("hook_response", "SessionStart:startup", "SessionStart", "AS-TEXT\n", "success"),
        (
            "hook_response",
            "SessionStart:startup",
            "SessionStart",
            f"{json.dumps(GIVEN)}\n",
            "success",
        ),
        ("hook_started", "SessionStart:startup", "SessionStart", None, None),
        ("hook_started", "SessionStart:startup", "SessionStart", None, None),
    ]
    sdk.assert_lines_parse()
