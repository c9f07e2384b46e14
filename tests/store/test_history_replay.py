"""A History journaled to a session file is rebuilt exactly by replaying what was loaded (a
reply's entries, one per block as Claude Code writes them, joined again as resuming joins them)."""

from __future__ import annotations

from pathlib import Path

from tether.core.history import History
from tether.protocol import Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage
from tether.store import (
    AssistantRecord,
    CompactionRecord,
    LoadedSession,
    Record,
    SessionWriter,
    UserRecord,
    load_session,
)


def replay(loaded: LoadedSession) -> History:
    history = History()
    for record in _joined(loaded):
        match record:
            case UserRecord(blocks):
                history.replay_user(blocks)
            case AssistantRecord(message, _usage):
                history.replay_assistant(message)
            case CompactionRecord(summary, kept):
                history.replay_compaction(summary, kept)
    return history


def _joined(loaded: LoadedSession) -> list[Record]:
    """The file's records, a reply's entries (one per block, sharing its message id) as one."""
    out: list[Record] = []
    for record in loaded.records():
        last = out[-1] if out else None
        if (
            isinstance(record, AssistantRecord)
            and isinstance(last, AssistantRecord)
            and record.message_id is not None
            and record.message_id == last.message_id
        ):
            content = (*last.message.content, *record.message.content)
            joined = Message(role="assistant", content=content)
            out[-1] = AssistantRecord(joined, record.usage, record.message_id)
        else:
            out.append(record)
    return out


def assistant(*blocks: TextBlock | ToolUseBlock) -> Message:
    return Message(role="assistant", content=blocks)


def converse(history: History, turn: int) -> None:
    history.add_user([TextBlock(text=f"turn {turn}: read the files")])
    history.add_assistant(
        assistant(
            TextBlock(text=""),  # dropped before it is kept: the file must not have it either
            ToolUseBlock(id=f"a{turn}", name="Read", input={"file_path": "a.py"}),
            ToolUseBlock(id=f"b{turn}", name="Read", input={"file_path": "b.py", "limit": None}),
        ),
        Usage(input_tokens=100 * turn, output_tokens=20),
    )
    # a prompt typed while tools ran, then the results: merged, results first
    history.add_user([TextBlock(text="also check c.py")])
    history.add_user([ToolResultBlock(tool_use_id=f"a{turn}", content="print('a')\n")])
    history.answer_unanswered("interrupted")
    history.add_assistant(assistant(TextBlock(text=f"done {turn}")), None)
    history.add_assistant(assistant(TextBlock(text="")), Usage(output_tokens=1))  # kept nowhere


def compact(history: History, turn: int) -> None:
    before = history.view()
    history.compact_to(before, (Message.user_text(f"Summary up to turn {turn}"), *before[-2:]))


def test_replaying_the_file_rebuilds_the_history_and_its_view(tmp_path: Path) -> None:
    writer = SessionWriter.create(tmp_path, "s1", cwd=tmp_path, model="m-1")
    history = History(journal=writer)
    converse(history, 1)
    converse(history, 2)
    compact(history, 2)
    converse(history, 3)
    writer.close()

    loaded = load_session(writer.path)
    rebuilt = replay(loaded)
    assert (rebuilt.messages, rebuilt.view()) == (history.messages, history.view())
    assert rebuilt.view() != rebuilt.messages  # the compaction took effect

    # resume: continue the rebuilt history into the same file, then rebuild it again
    with SessionWriter.reopen(writer.path, cwd=tmp_path, last_uuid=loaded.last_uuid) as resumed:
        rebuilt.journal = resumed
        compact(rebuilt, 3)
        converse(rebuilt, 4)

    again = replay(load_session(writer.path))
    assert (again.messages, again.view()) == (rebuilt.messages, rebuilt.view())
    assert load_session(writer.path).warnings == ()
