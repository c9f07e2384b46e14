"""A UserPromptSubmit hook's context, through the real Claude Agent SDK, where Claude Code puts
it (measured with its CLI against the same fake model, on a model that takes no system
messages in the conversation): ahead of the prompt in the request, said whose it is; beside
the prompt in the session file (an attachment entry), so that the SDK's session helpers read
the user's words alone; back in the conversation when the session is resumed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import HookMatcher, get_session_messages

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text

TOLD = (
    "<system-reminder>\nUserPromptSubmit hook additional context: EXTRA-CONTEXT-42\n"
    "</system-reminder>"
)


async def _add_context(_input: Any, _id: str | None, _ctx: Any) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": "EXTRA-CONTEXT-42",
        }
    }


async def test_the_context_goes_ahead_of_the_prompt_and_beside_it_in_the_file(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", os.environ["TETHER_HOME"])
    hooks = {"UserPromptSubmit": [HookMatcher(hooks=[_add_context])]}  # pyright: ignore[reportArgumentType]
    fake_model.script(reply(text("one")), reply(text("two")))
    first = result_of(await sdk.query("do it", model="claude-sonnet-4-5", hooks=hooks))
    sent = fake_model.requests[0].messages()[0]["content"]
    assert [b["text"] for b in sent[-2:]] == [TOLD, "do it"]

    [prompt, *_] = get_session_messages(first.session_id, directory=str(workspace))
    assert prompt.message == {"role": "user", "content": "do it"}
    [file] = Path(os.environ["TETHER_HOME"]).rglob(f"{first.session_id}.jsonl")
    entries = [json.loads(line) for line in file.read_text().splitlines()]
    [attached] = [e for e in entries if e["type"] == "attachment"]
    [user] = [e for e in entries if e["type"] == "user"]
    assert attached["parentUuid"] == user["uuid"]
    assert {k: v for k, v in attached["attachment"].items() if k != "toolUseID"} == {
        "type": "hook_additional_context",
        "content": ["EXTRA-CONTEXT-42"],
        "hookName": "UserPromptSubmit",
        "hookEvent": "UserPromptSubmit",
    }

    # Resumed or forked (without the hook), the first prompt still carries the context it was
    # sent with, once.
    fake_model.script(reply(text("three")))
    result_of(await sdk.query("again", model="claude-sonnet-4-5", resume=first.session_id))
    forked = await sdk.query(
        "other", model="claude-sonnet-4-5", resume=first.session_id, fork_session=True
    )
    assert result_of(forked).session_id != first.session_id
    for later in fake_model.requests[1:]:
        resumed = later.messages()
        assert [b["text"] for b in resumed[0]["content"] if b["text"] == TOLD] == [TOLD]
        assert "EXTRA-CONTEXT-42" not in json.dumps(resumed[1:])
