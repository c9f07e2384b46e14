"""The session file's entries as the Claude Agent SDK's programs see them: each assistant line's
uuid is its entry's (a reply written an entry per block, with the endpoint's message id and
request id, as Claude Code writes it), so a program can resume at one (`resume_session_at`);
and a resumed run with `--no-session-persistence` writes nothing. The real SDK, over the wire."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.sdk_harness import SdkRun, result_of
from tether.config.settings import tether_home
from tether.testing import FakeModelServer, reply, text, tool_use


def _entries(session_id: str) -> list[dict[str, Any]]:
    [path] = (tether_home() / "projects").glob(f"*/{session_id}.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_lines_name_their_entries_and_a_session_resumes_at_one(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("A\n")
    fake_model.script(
        reply(text("reading"), tool_use("Read", file_path="a.txt")),
        reply(text("ANSWER-ONE")),
        reply(text("ANSWER-TWO")),
        reply(text("AT-ONE")),
    )
    async with sdk.client(permission_mode="bypassPermissions") as client:
        await client.query("PROMPT-ONE")
        first = [m async for m in client.receive_response()]
        await client.query("PROMPT-TWO")
        [m async for m in client.receive_response()]
    session_id = result_of(first).session_id
    lines = [line for line in sdk.lines() if line["type"] == "assistant"]
    entries = {e["uuid"]: e for e in _entries(session_id) if e["type"] == "assistant"}
    # One entry per line, the same uuid, message id and request id, one block each.
    assert [line["uuid"] for line in lines] == list(entries)
    for line in lines:
        entry = entries[line["uuid"]]
        assert entry["message"]["id"] == line["message"]["id"]
        assert entry["requestId"] == line["request_id"]
        assert entry["message"]["content"] == line["message"]["content"]
    # A tool result's line names its entry too.
    [result] = [line for line in sdk.lines() if line.get("tool_use_result") is not None]
    [result_entry] = [e for e in _entries(session_id) if e.get("uuid") == result["uuid"]]
    assert result_entry["message"]["content"][0]["tool_use_id"] == "toolu_1"
    # The two blocks of the first reply are one message again when the session is read.
    assert lines[0]["message"]["id"] == lines[1]["message"]["id"]
    assert len({line["message"]["id"] for line in lines}) == 3

    answer_one = next(
        line["uuid"] for line in lines if line["message"]["content"][0].get("text") == "ANSWER-ONE"
    )
    resumed = await sdk.query("PROMPT-AT", resume=session_id, resume_session_at=answer_one)
    assert result_of(resumed).result == "AT-ONE"
    sent = json.dumps(fake_model.requests[3].messages())
    assert "ANSWER-ONE" in sent
    assert "PROMPT-TWO" not in sent
    assert "ANSWER-TWO" not in sent
    roles = [m["role"] for m in fake_model.requests[3].messages()]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    sdk.assert_lines_parse()


async def test_resume_at_a_message_the_session_lacks_is_said(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("one")))
    session_id = result_of(await sdk.query("hello")).session_id
    missing = "00000000-0000-4000-8000-000000000000"
    messages: list[Any] = []
    try:
        async for message in sdk.stream("again", resume=session_id, resume_session_at=missing):
            messages.append(message)
    except Exception as e:  # the SDK raises the run's error
        said = str(e) + "".join(sdk.stderr)
    else:
        said = json.dumps([getattr(m, "result", None) for m in messages]) + "".join(sdk.stderr)
    assert f"no message {missing}" in said
    assert len(fake_model.requests) == 1  # nothing sent for the bad resume


async def test_a_resume_without_persistence_writes_nothing(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("FIRST")), reply(text("SECOND")))
    session_id = result_of(await sdk.query("PROMPT-ONE")).session_id
    [path] = (tether_home() / "projects").glob(f"*/{session_id}.jsonl")
    before = path.read_bytes()
    resumed = await sdk.query(
        "PROMPT-TWO", resume=session_id, extra_args={"no-session-persistence": None}
    )
    assert result_of(resumed).result == "SECOND"
    assert result_of(resumed).session_id == session_id
    assert "FIRST" in json.dumps(fake_model.requests[1].messages())  # resumed
    assert path.read_bytes() == before  # and nothing written
    assert [p.name for p in path.parent.iterdir()] == [path.name]
