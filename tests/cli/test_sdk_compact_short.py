"""`/compact` on a conversation of one exchange compacts it, as Claude Code does (its
`compact_boundary` line, the summary carried into the next request), and the hooks around a
compaction fire in Claude Code's order: PreCompact, SessionStart with source "compact",
PostCompact. The real SDK over the wire, with callback hooks."""

from __future__ import annotations

import json
from typing import Any

from claude_agent_sdk import AssistantMessage, HookMatcher, ResultMessage, SystemMessage, TextBlock

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text


async def test_compact_after_one_exchange_compacts(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("A1")), reply(text("SUMMARY-OF-CONV")), reply(text("A2")))
    fired: list[tuple[str, Any]] = []

    def hook(event: str) -> Any:
        async def record(hook_input: Any, tool_use_id: str | None, context: Any) -> Any:
            fired.append((event, hook_input.get("source") or hook_input.get("trigger")))
            if event == "SessionStart" and hook_input.get("source") == "compact":
                return {
                    "hookSpecificOutput": {
                        "hookEventName": "SessionStart",
                        "additionalContext": "AFTER-COMPACT-CONTEXT",
                    }
                }
            return {}

        return record

    events = ("SessionStart", "PreCompact", "PostCompact")
    seen: list[Any] = []
    async with sdk.client(hooks={e: [HookMatcher(hooks=[hook(e)])] for e in events}) as client:
        for prompt in ("one", "/compact", "two"):
            await client.query(prompt)
            seen.extend([m async for m in client.receive_response()])
    results = [m for m in seen if isinstance(m, ResultMessage)]
    assert [(r.is_error, r.result) for r in results][::2] == [(False, "A1"), (False, "A2")]
    assert not results[1].is_error
    [boundary] = [
        m for m in seen if isinstance(m, SystemMessage) and m.subtype == "compact_boundary"
    ]
    assert boundary.data["compact_metadata"]["trigger"] == "manual"
    last = json.dumps(fake_model.requests[-1].body["messages"])
    assert "SUMMARY-OF-CONV" in last
    assert "AFTER-COMPACT-CONTEXT" in last
    assert '"one"' not in last  # summarised; the newest reply stays verbatim
    assert fake_model.requests[-1].last_user_text().endswith("two")
    assert fired == [
        ("SessionStart", "startup"),
        ("PreCompact", "manual"),
        ("SessionStart", "compact"),
        ("PostCompact", "manual"),
    ]
    sdk.assert_lines_parse()


async def test_a_session_start_callback_hook_alone_lets_the_prompt_run(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    # The env file SessionStart command hooks get was read though no hook had been given it
    # (its directory missing): the turn ended with an internal error.
    fake_model.script(reply(text("answered")))

    async def started(hook_input: Any, tool_use_id: str | None, context: Any) -> Any:
        return {}

    messages = await sdk.query("hi", hooks={"SessionStart": [HookMatcher(hooks=[started])]})
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert (result.is_error, result.result) == (False, "answered")


async def test_compact_with_nothing_said_answers_as_claude_code(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    """Claude Code's bundled CLI on the same prompt: a reply of model `<synthetic>` saying
    "Error: No messages to compact", then a result that is no error, with no model call."""
    messages = await sdk.query("/compact")
    [said] = [m for m in messages if isinstance(m, AssistantMessage)]
    assert (said.model, said.content) == (
        "<synthetic>",
        [TextBlock(text="Error: No messages to compact")],
    )
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert (result.subtype, result.is_error, result.result, result.num_turns) == (
        "success",
        False,
        "",
        0,
    )
    assert fake_model.requests == []
    sdk.assert_lines_parse()
