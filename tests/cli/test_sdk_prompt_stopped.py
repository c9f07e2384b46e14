"""A UserPromptSubmit hook's `continue: false`, over the wire with the real Claude Agent SDK,
as the bundled Claude Code CLI takes it on the same fake API: unlike a block, which drops the
prompt, it stops it: nothing is sent, the client is told "Operation stopped by hook: R"
(`stopped_by_hook`, the prompt kept), the result has no terminal reason, and the next request
carries the prompt with the hook's words after it."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import HookMatcher

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text

STOPPED = "Operation stopped by hook: not-now"
LEAD = "The text below is the output of a hook, not a message from the user."


async def stop_the_first(hook_input: Any, _tool_use_id: str | None, _context: Any) -> Any:
    if hook_input["prompt"] == "first":
        return {"continue": False, "stopReason": "not-now"}
    return {}


async def test_a_prompt_stopped_by_a_hook_is_kept_and_not_sent(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("answered")))
    hooks = {"UserPromptSubmit": [HookMatcher(hooks=[stop_the_first])]}  # pyright: ignore[reportArgumentType]
    client = sdk.client(model="claude-sonnet-4-5", permission_mode="bypassPermissions", hooks=hooks)
    await client.connect()
    try:
        for prompt in ("first", "second"):
            await client.query(prompt)
            async for _ in client.receive_response():
                pass
    finally:
        await client.disconnect()
    told = [
        {k: line[k] for k in ("content", "level", "prevent_continuation", "prompt_submit_outcome")}
        for line in sdk.lines()
        if line["type"] == "system" and line["subtype"] == "informational"
    ]
    # Before: told as a block ("UserPromptSubmit operation blocked by hook", the prompt
    # dropped), the result's terminal reason "completed", the prompt gone from the next request.
    assert told == [
        {
            "content": STOPPED,
            "level": "warning",
            "prevent_continuation": True,
            "prompt_submit_outcome": {
                "kind": "stopped_by_hook",
                "prompt_kept": True,
                "reason": "not-now",
            },
        }
    ]
    results = [line for line in sdk.lines() if line["type"] == "result"]
    fields = ("subtype", "is_error", "result", "num_turns", "terminal_reason")
    assert [{k: r[k] for k in fields} for r in results] == [
        {
            "subtype": "success",
            "is_error": False,
            "result": STOPPED,
            "num_turns": 0,
            "terminal_reason": None,
        },
        {
            "subtype": "success",
            "is_error": False,
            "result": "answered",
            "num_turns": 1,
            "terminal_reason": "completed",
        },
    ]
    [request] = fake_model.requests
    sent = request.messages()[0]["content"]
    assert [block["text"] for block in sent] == [
        "first",
        f"<system-reminder>\n{LEAD}\n{STOPPED}\n</system-reminder>",
        "second",
    ]
    sdk.assert_lines_parse()
