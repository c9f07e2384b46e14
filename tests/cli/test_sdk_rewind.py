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


async def test_rewind_files_reaches_a_prompt_made_before_a_resume(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    # Two processes: the first writes a.txt and changes doc.txt, the second resumes the
    # session and changes doc.txt again and writes b.txt. The second can rewind to either
    # prompt: the first's checkpoints are kept beside the session file.
    doc, a, b = workspace / "doc.txt", workspace / "a.txt", workspace / "b.txt"
    doc.write_text("v1\n")
    fake_model.script(
        reply(tool_use("Read", file_path=str(doc))),
        reply(
            tool_use("Write", file_path=str(a), content="a\n"),
            tool_use("Write", file_path=str(doc), content="v2\n"),
        ),
        reply(text("done")),
        reply(tool_use("Read", file_path=str(doc))),
        reply(
            tool_use("Write", file_path=str(doc), content="v3\n"),
            tool_use("Write", file_path=str(b), content="b\n"),
        ),
        reply(text("done again")),
    )
    options: dict[str, Any] = {
        "permission_mode": "acceptEdits",
        "enable_file_checkpointing": True,
        "extra_args": {"replay-user-messages": None},
    }
    async with sdk.client(**options) as client:
        first = await _turn(client, "p1")
    [p1] = [m.uuid for m in first if isinstance(m, UserMessage) and m.content == "p1"]
    [session_id] = {m.session_id for m in first if isinstance(m, ResultMessage)}
    assert (doc.read_text(), a.exists()) == ("v2\n", True)
    async with sdk.client(**options, resume=session_id) as client:
        second = await _turn(client, "p2")
        [p2] = [m.uuid for m in second if isinstance(m, UserMessage) and m.content == "p2"]
        assert (doc.read_text(), b.exists()) == ("v3\n", True)
        assert p1 is not None
        assert p2 is not None
        await client.rewind_files(p2)
        assert (doc.read_text(), a.exists(), b.exists()) == ("v2\n", True, False)
        await client.rewind_files(p1)
        assert (doc.read_text(), a.exists(), b.exists()) == ("v1\n", False, False)
        with pytest.raises(Exception, match="No file checkpoint found for this message"):
            await client.rewind_files("00000000-0000-0000-0000-000000000000")
