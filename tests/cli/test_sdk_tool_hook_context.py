"""A PostToolUse (or PostToolUseFailure) hook's context, through the real Claude Agent SDK,
where Claude Code puts it (measured with its CLI against the same fake model): at the end of
the tool result's text in the request; beside the result in the session file (an attachment
entry naming the hook and the call), so that the SDK's session helpers read the tool's output
alone; back at the end of the result's text when the session is resumed, by tether and by
Claude Code alike. The client's line of the result shows the tool's output alone."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import HookMatcher, get_session_messages

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use


def _context(event: str) -> Any:
    async def hook(given: Any, _id: str | None, _ctx: Any) -> dict[str, Any]:
        said = f"{event}-{given['tool_input']['command']}"
        return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": said}}

    return hook


def _told(event: str, said: str) -> str:
    return (
        f"\n\n<system-reminder>\n{event}:Bash hook additional context: {said}\n</system-reminder>"
    )


async def test_the_context_ends_the_result_and_is_kept_beside_it(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", os.environ["TETHER_HOME"])
    hooks = {
        event: [HookMatcher(hooks=[_context(event)])]
        for event in ("PostToolUse", "PostToolUseFailure")
    }
    fake_model.script(
        reply(text("look"), tool_use("Bash", command="echo hi"), tool_use("Bash", command="false")),
        reply(text("done")),
        reply(text("again")),
    )
    first = result_of(
        await sdk.query(
            "go",
            hooks=hooks,  # pyright: ignore[reportArgumentType]
            permission_mode="bypassPermissions",
        )
    )
    answered = fake_model.requests[1].messages()[-1]["content"]
    assert [(b["type"], b["tool_use_id"], b["content"]) for b in answered] == [
        ("tool_result", "toolu_1", "hi" + _told("PostToolUse", "PostToolUse-echo hi")),
        (
            "tool_result",
            "toolu_2",
            "Exit code 1" + _told("PostToolUseFailure", "PostToolUseFailure-false"),
        ),
    ]
    # The client is shown each tool's output alone, as Claude Code shows it.
    shown = [
        b for line in sdk.lines() if line["type"] == "user" for b in line["message"]["content"]
    ]
    assert [(b["tool_use_id"], b["content"], b["is_error"]) for b in shown] == [
        ("toolu_1", "hi", False),
        ("toolu_2", "Exit code 1", True),
    ]

    messages = get_session_messages(first.session_id, directory=str(workspace))
    assert "hook additional context" not in json.dumps([m.message for m in messages])
    [file] = Path(os.environ["TETHER_HOME"]).rglob(f"{first.session_id}.jsonl")
    entries = [json.loads(line) for line in file.read_text().splitlines()]
    results = {
        e["uuid"]: e["message"]["content"][0]
        for e in entries
        if e["type"] == "user" and isinstance(e["message"]["content"], list)
    }
    attached = [
        (results[e["parentUuid"]]["content"], e["attachment"], e["rendered"], e["renderedRole"])
        for e in entries
        if e["type"] == "attachment"
    ]
    assert attached == [
        (
            "hi",
            {
                "type": "hook_additional_context",
                "content": ["PostToolUse-echo hi"],
                "hookName": "PostToolUse:Bash",
                "toolUseID": "toolu_1",
                "hookEvent": "PostToolUse",
            },
            [{"content": _told("PostToolUse", "PostToolUse-echo hi").lstrip("\n")}],
            "system",
        ),
        (
            "Exit code 1",
            {
                "type": "hook_additional_context",
                "content": ["PostToolUseFailure-false"],
                "hookName": "PostToolUseFailure:Bash",
                "toolUseID": "toolu_2",
                "hookEvent": "PostToolUseFailure",
            },
            [{"content": _told("PostToolUseFailure", "PostToolUseFailure-false").lstrip("\n")}],
            "system",
        ),
    ]

    # Resumed (without the hooks), the results carry the context they were sent with.
    result_of(await sdk.query("more", resume=first.session_id))
    resumed = fake_model.requests[2].messages()[2]["content"]
    assert _without_cache(resumed) == _without_cache(answered)


def _without_cache(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in b.items() if k != "cache_control"} for b in blocks]
