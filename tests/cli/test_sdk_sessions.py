"""The Claude Agent SDK's session helpers and session store on tether's sessions, over the wire:
`--session-mirror` fills a store with the session file's entries, a session resumes from the
store where no file of it exists, and with `CLAUDE_CONFIG_DIR` set (the one setting they need,
as for Claude Code) `list_sessions` and `get_session_messages` read tether's files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import (
    InMemorySessionStore,
    ResultError,
    fork_session,
    get_session_messages,
    list_sessions,
    query,
    rename_session,
    tag_session,
)
from claude_agent_sdk._internal.session_store import project_key_for_directory

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_the_store_mirrors_the_file_and_resumes_where_it_is_absent(
    sdk: SdkRun,
    fake_model: FakeModelServer,
    workspace: Path,
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The SDK and tether agree on the home directory, nothing else is set: the default case.
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    fake_model.script(reply(text("ok PINEAPPLE")), reply(text("PINEAPPLE")))
    store = InMemorySessionStore()
    first = result_of(await sdk.query("remember PINEAPPLE", session_store=store))
    key = project_key_for_directory(str(workspace))
    assert [s["session_id"] for s in await store.list_sessions(key)] == [first.session_id]
    [kept] = (tmp_path / "home" / "projects").glob(f"*/{first.session_id}.jsonl")  # TETHER_HOME
    stored = store.get_entries({"project_key": key, "session_id": first.session_id})
    assert stored == _lines(kept)  # every entry of the file, as written

    # Another machine: a home of its own, no file of the session; the store has it.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("TETHER_HOME", str(elsewhere))
    # (The SDK's own transport: it points the CLI at the session it materialized.)
    options = sdk.options(session_store=store, resume=first.session_id)
    second = result_of([m async for m in query(prompt="what word?", options=options)])
    assert (second.session_id, second.result) == (first.session_id, "PINEAPPLE")
    assert [m["role"] for m in fake_model.requests[1].messages()] == ["user", "assistant", "user"]
    assert "remember PINEAPPLE" in json.dumps(fake_model.requests[1].messages()[0])
    later = store.get_entries({"project_key": key, "session_id": first.session_id})
    assert len(later) > len(stored)  # the resumed turn was mirrored too


async def test_the_session_helpers_read_tethers_sessions_with_claude_config_dir(
    sdk: SdkRun,
    fake_model: FakeModelServer,
    workspace: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))  # the program's and tether's
    fake_model.script(reply(text("hello there")), reply(text("again")))
    first = result_of(await sdk.query("greet me"))
    result_of(await sdk.query("once more", resume=first.session_id))
    [listed] = list_sessions(directory=str(workspace))
    assert listed.session_id == first.session_id
    assert listed.first_prompt == "greet me"
    assert listed.summary == "once more"  # as Claude Code's: what was asked last
    messages = get_session_messages(first.session_id, directory=str(workspace))
    assert messages[0].message["content"] == "greet me"  # a string, as Claude Code writes it
    said = [(m.type, _text(m.message["content"])) for m in messages]
    assert said == [
        ("user", "greet me"),
        ("assistant", "hello there"),
        ("user", "once more"),
        ("assistant", "again"),
    ]
    assert list((config / "projects").glob(f"*/{first.session_id}.jsonl"))


async def test_a_session_the_sdk_renamed_tagged_or_forked_resumes_without_a_warning(
    sdk: SdkRun,
    fake_model: FakeModelServer,
    workspace: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The SDK's helpers write title, tag and content lines with no parent (the fork's with a
    # uuid): lines about the session, not damage.
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    fake_model.script(reply(text("noted MANGO")), reply(text("MANGO")), reply(text("MANGO")))
    first = result_of(await sdk.query("remember MANGO"))
    rename_session(first.session_id, "fruit", directory=str(workspace))
    tag_session(first.session_id, "kept", directory=str(workspace))
    forked = fork_session(first.session_id, directory=str(workspace)).session_id
    for session_id in (first.session_id, forked):
        result = result_of(await sdk.query("what word?", resume=session_id))
        assert (result.session_id, result.result) == (session_id, "MANGO")
    assert [m["role"] for m in fake_model.requests[-1].messages()] == ["user", "assistant", "user"]
    assert not [line for line in sdk.stderr if "session file" in line], sdk.stderr


async def test_no_session_persistence_writes_no_session_file(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("kept")), reply(text("not kept")))
    homes = (sdk.home, Path(os.environ["TETHER_HOME"]))

    def written() -> set[Path]:
        return {path for home in homes for path in home.rglob("*.jsonl")}

    await sdk.query("hi")
    saved = written()
    assert saved  # the control: a session is saved by default
    await sdk.query("hi again", extra_args={"no-session-persistence": None})
    assert written() == saved


async def test_resuming_a_missing_session_ends_with_a_result_error(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    missing = "11111111-2222-3333-4444-555555555555"

    async def read() -> None:
        async for _ in sdk.stream("again", resume=missing):
            pass

    # As Claude Code: a result line with the error (the SDK raises its result error), not a
    # failed initialize.
    with pytest.raises(ResultError, match=f"No conversation found with session ID: {missing}"):
        await read()
    [line] = sdk.lines()
    assert (line["type"], line["is_error"], line["session_id"]) == ("result", True, missing)
    assert not fake_model.requests
    sdk.assert_lines_parse()


def _text(content: str | list[dict[str, str]]) -> str:
    """A message's text: a prompt of one text is kept as a string, as Claude Code keeps it."""
    if isinstance(content, str):
        return content
    return "".join(block["text"] for block in content if block["type"] == "text")
