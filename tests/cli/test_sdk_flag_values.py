"""Each option's value arrives whole through the real Claude Agent SDK, which passes every
option as one `--flag=value` argument (`--tools=` for none): values that begin with '-', and
empty ones, mean what the SDK's caller gave, not another flag or a missing value."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text


async def test_values_that_begin_with_a_dash_or_are_empty(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    (workspace / "-d").mkdir()
    # A project setting that `--setting-sources=` (none) must leave unread.
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Read"]}, "model": "claude-haiku-4-5"})
    )
    fake_model.script(reply(text("answered")))
    messages = await sdk.query(
        "hi",
        system_prompt="-starts like a flag",
        tools=[],
        add_dirs=["-d"],
        setting_sources=[],
        permission_mode="acceptEdits",
        max_turns=3,
    )
    assert result_of(messages).result == "answered"
    [request] = fake_model.requests
    assert (request.system().startswith("-starts like a flag\n"), request.tool_names()) == (
        True,
        [],
    )
    [init] = [line for line in sdk.lines() if line.get("subtype") == "init"]
    assert request.body["model"] != "claude-haiku-4-5"  # the unread project setting's
    assert {k: init[k] for k in ("permissionMode", "tools", "additional_directories")} == {
        "permissionMode": "acceptEdits",
        "tools": [],
        "additional_directories": [str(workspace / "-d")],
    }
    assert not [said for said in sdk.stderr if "unknown option" in said or "error" in said]


async def test_an_empty_system_prompt_is_one(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("answered")))
    messages = await sdk.query("hi", system_prompt="", tools=["Read"])
    assert result_of(messages).result == "answered"
    [request] = fake_model.requests
    assert request.tool_names() == ["Read"]
    # `--system-prompt=` replaces the base prompt with nothing: the environment's facts alone.
    assert request.system().startswith("Environment:\n")
