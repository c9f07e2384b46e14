"""`rewind_files` and the echoed prompt it names, with the real Claude Agent SDK over the wire:
the files Write and Edit changed go back to how they were when the prompt's turn began, an
unknown message id is an error (as Claude Code answers), and the echoed prompt carries the
session's id and its session file entry's uuid."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import ResultMessage, UserMessage

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use


async def _turn(client: Any, prompt: str) -> list[Any]:
    await client.query(prompt)
    return [m async for m in client.receive_response()]


async def test_rewind_files_puts_back_the_files_as_they_were_at_a_prompt(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    doc, new = workspace / "doc.txt", workspace / "new.txt"
    doc.write_text("original\n")
    fake_model.script(
        reply(tool_use("Read", file_path=str(doc))),
        reply(tool_use("Write", file_path=str(doc), content="changed\n")),
        reply(text("done")),
        reply(tool_use("Write", file_path=str(new), content="new\n")),
        reply(text("done again")),
    )
    options: dict[str, Any] = {
        "permission_mode": "acceptEdits",
        "enable_file_checkpointing": True,
        "extra_args": {"replay-user-messages": None},
    }
    async with sdk.client(**options) as client:
        first = await _turn(client, "change it")
        await _turn(client, "make another")
        assert (doc.read_text(), new.exists()) == ("changed\n", True)
        with pytest.raises(Exception, match="No file checkpoint found for this message"):
            await client.rewind_files("00000000-0000-0000-0000-000000000000")
        assert (doc.read_text(), new.exists()) == ("changed\n", True)
        [echoed] = [m for m in first if isinstance(m, UserMessage) and m.content == "change it"]
        assert echoed.uuid is not None
        await client.rewind_files(echoed.uuid)
        assert (doc.read_text(), new.exists()) == ("original\n", False)
    [session_id] = {m.session_id for m in first if isinstance(m, ResultMessage)}
    echoes = [line for line in sdk.lines() if line.get("isReplay")]
    assert [(e["session_id"], e["message"]["content"]) for e in echoes] == [
        (session_id, "change it"),
        (session_id, "make another"),
    ]
    [transcript] = tmp_path.rglob(f"{session_id}.jsonl")
    entries = [json.loads(line) for line in transcript.read_text().splitlines()]
    prompts = [
        e["uuid"]
        for e in entries
        if e["type"] == "user" and "change it" in json.dumps(e["message"])
    ]
    assert prompts == [echoed.uuid]


async def test_rewind_files_is_refused_without_file_checkpointing(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    # As Claude Code: the program did not ask for checkpoints (`enable_file_checkpointing`),
    # so no rewind, and the file the turn wrote stays.
    new = workspace / "new.txt"
    fake_model.script(
        reply(tool_use("Write", file_path=str(new), content="new\n")), reply(text("done"))
    )
    options: dict[str, Any] = {
        "permission_mode": "acceptEdits",
        "extra_args": {"replay-user-messages": None},
    }
    async with sdk.client(**options) as client:
        first = await _turn(client, "make it")
        [echoed] = [m for m in first if isinstance(m, UserMessage) and m.content == "make it"]
        assert echoed.uuid is not None
        with pytest.raises(Exception, match="File rewinding is not enabled"):
            await client.rewind_files(echoed.uuid)
    assert new.read_text() == "new\n"
