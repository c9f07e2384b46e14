"""A prompt taken back (refused as too long before it was sent) is left out by every reader of
the session file: resume, fork, resuming at a message, and the chain of messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.chains import entries_of, message_chain_problem
from tether.protocol import Message, TextBlock, Usage
from tether.store import (
    AssistantRecord,
    SessionNotFound,
    SessionWriter,
    SpendRecord,
    UserRecord,
    fork_session,
    load_session,
)

USAGE = Usage(input_tokens=10, output_tokens=5)


def _reply(text: str) -> Message:
    return Message(role="assistant", content=(TextBlock(text=text),))


def _said(path: Path) -> list[str]:
    return [
        block.text
        for record in load_session(path).records()
        if isinstance(record, UserRecord)
        for block in record.blocks
        if isinstance(block, TextBlock)
    ]


def test_a_withdrawn_prompt_is_not_replayed_and_what_hung_off_it_is_kept(tmp_path: Path) -> None:
    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as writer:
        writer.user([TextBlock(text="first")])
        writer.assistant(_reply("one"), USAGE)
        writer.user([TextBlock(text="too long")], entry_uuid="refused")
        writer.spent(USAGE, 0.5)  # a compaction's summary, paid for before the refusal
        writer.withdraw()
        writer.withdraw()  # nothing more to take back: nothing written
        writer.user([TextBlock(text="second")])
        writer.assistant(_reply("two"), USAGE)
    path = tmp_path / "s1.jsonl"
    assert [e["type"] for e in entries_of(path)].count("withdrawn") == 1
    assert message_chain_problem(entries_of(path)) is None
    loaded = load_session(path)
    assert not loaded.warnings
    assert _said(path) == ["first", "second"]
    assert [r.cost_usd for r in loaded.records() if isinstance(r, SpendRecord)] == [0.5]
    with pytest.raises(SessionNotFound):
        loaded.up_to("refused")
    fork = fork_session(loaded, tmp_path, "s2", cwd=tmp_path)
    fork.close()
    assert "too long" not in (tmp_path / "s2.jsonl").read_text()
    assert _said(tmp_path / "s2.jsonl") == ["first", "second"]


def test_after_a_withdrawal_the_conversation_ends_before_the_prompt(tmp_path: Path) -> None:
    """No message after it: the newest leaf is the reply before the prompt again, newer than
    an older branch of the same file (one another process started)."""
    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as writer:
        writer.user([TextBlock(text="an older start")])
        writer.assistant(_reply("older"), USAGE)
        writer.last_uuid = None  # a second branch, as a second process would write it
        writer.user([TextBlock(text="first")])
        writer.assistant(_reply("one"), USAGE)
        one = writer.last_uuid
        writer.user([TextBlock(text="too long")])
        writer.withdraw()
    loaded = load_session(tmp_path / "s1.jsonl")
    assert _said(tmp_path / "s1.jsonl") == ["first"]
    assert loaded.last_uuid == one


def test_a_withdrawal_naming_no_message_before_it_changes_nothing(tmp_path: Path) -> None:
    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as writer:
        writer.user([TextBlock(text="first")])
        writer.append("withdrawn", withdrawn="nobody")
        writer.assistant(_reply("one"), USAGE)
        writer.append("withdrawn", withdrawn=["not", "a", "uuid"])
    path = tmp_path / "s1.jsonl"
    assert _said(path) == ["first"]
    assert not load_session(path).warnings


def _replies(path: Path) -> list[str]:
    return [
        record.message.text()
        for record in load_session(path).records()
        if isinstance(record, AssistantRecord)
    ]


def test_a_damaged_withdrawal_naming_a_reply_or_an_answered_prompt_is_reported_not_obeyed(
    tmp_path: Path,
) -> None:
    """Only a prompt no reply followed can have been refused as too long: a `withdrawn` entry
    naming a reply, or a prompt a reply answered, takes nothing back and is told as damage."""
    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as writer:
        writer.user([TextBlock(text="first")], entry_uuid="asked")
        writer.assistant(_reply("one"), USAGE)
        reply = writer.last_uuid
        writer.append("withdrawn", withdrawn=reply)
        writer.append("withdrawn", withdrawn="asked")
        writer.user([TextBlock(text="second")])
        writer.assistant(_reply("two"), USAGE)
    path = tmp_path / "s1.jsonl"
    assert _said(path) == ["first", "second"]
    assert _replies(path) == ["one", "two"]
    [warning] = load_session(path).warnings
    assert "lines 3, 4 took back an entry that is not a prompt waiting for its reply" in warning
