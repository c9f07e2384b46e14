"""Slash commands an SDK program sends as its prompt run as Claude Code runs them headless, the
same as `-p` runs them: a project command, a plugin's command and a skill reach the model as
their message, and `/compact` compacts (a `compact_boundary` line, then the result). The real
SDK, over the wire."""

from __future__ import annotations

import json
from pathlib import Path

from claude_agent_sdk import ResultMessage, SystemMessage

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text


def _write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")


async def test_project_and_plugin_commands_and_skills_are_expanded(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    _write(
        workspace / ".claude/commands/hello.md",
        "---\ndescription: hi\n---\nSay PROJECT-CMD-31 to $ARGUMENTS",
    )
    _write(
        workspace / ".claude/skills/tidy-up/SKILL.md",
        "---\ndescription: Tidies.\n---\nTidy SKILL-BODY-5 for $ARGUMENTS.\n",
    )
    plugin = tmp_path / "plug"
    _write(plugin / ".claude-plugin/plugin.json", json.dumps({"name": "myplug", "version": "1"}))
    _write(
        plugin / "commands/greet.md", "---\ndescription: greet\n---\nSay PLUGIN-77 to $ARGUMENTS"
    )
    fake_model.script(*[reply(text("ok"))] * 5)
    options = {"setting_sources": ["project"], "plugins": [{"type": "local", "path": str(plugin)}]}
    prompts = (
        "/hello alice",
        "/myplug:greet bob",
        "/tidy-up the desk",
        "/nowhere at all",
        "/greet cy",
    )
    for prompt in prompts:
        messages = await sdk.query(prompt, **options)
        assert not result_of(messages).is_error
    sent = [r.last_user_text() for r in fake_model.requests]
    assert "Say PROJECT-CMD-31 to alice" in sent[0]
    assert "Say PLUGIN-77 to bob" in sent[1]
    assert "Tidy SKILL-BODY-5 for the desk." in sent[2]
    # Names no command: the prompt as it is, with Claude Code's note that nothing ran.
    assert sent[3].startswith("/nowhere at all\n<system-reminder>\nThe user's message starts")
    # A plugin's command is only ever `/plugin:name`, as in Claude Code: a bare name is a prompt.
    assert sent[4].startswith("/greet cy\n<system-reminder>\n")
    assert "/myplug:greet" in sent[4]
    [init] = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init"]
    assert {"hello", "myplug:greet", "tidy-up", "compact"} <= set(init.data["slash_commands"])
    sdk.assert_lines_parse()


async def test_compact_sent_by_an_sdk_program_compacts(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(
        reply(text("A1")),
        reply(text("A2")),
        reply(text("A3")),
        reply(text("SUMMARY-OF-CONV")),
        reply(text("A4")),
    )
    seen: list[object] = []
    async with sdk.client() as client:
        for prompt in ("one", "two", "three", "/compact keep the names", "four"):
            await client.query(prompt)
            async for message in client.receive_response():
                seen.append(message)
    [boundary] = [
        m for m in seen if isinstance(m, SystemMessage) and m.subtype == "compact_boundary"
    ]
    assert boundary.data["compact_metadata"]["trigger"] == "manual"
    assert boundary.data["compact_metadata"]["pre_tokens"] > 0
    results = [m for m in seen if isinstance(m, ResultMessage)]
    assert [r.is_error for r in results] == [False] * 5
    summary_request, last = fake_model.requests[3], fake_model.requests[4]
    assert "/compact" not in json.dumps(summary_request.body)
    assert "keep the names" in json.dumps(summary_request.body)  # the focus
    assert "SUMMARY-OF-CONV" in json.dumps(last.body)
    assert last.last_user_text().endswith("four")
    sdk.assert_lines_parse()
