"""Stores: sessions as append-only JSONL files.

Reading a session file back (`reader`: its records, the branch to resume) is loaded on first
use: a new session only writes its file, and every start-up would otherwise pay for it."""

from typing import TYPE_CHECKING, Any

from tether.store.fork import fork_session
from tether.store.reply_entries import ReplyEntries, new_message_id
from tether.store.session_lock import SessionInUse
from tether.store.sessions import (
    SessionInfo,
    SessionNotFound,
    SessionOpen,
    find_session,
    latest_session,
    list_sessions,
    project_dir,
    project_slug,
    remove_session,
    subagent_transcript_path,
)
from tether.store.writer import EntryWatcher, SessionWriter

if TYPE_CHECKING:
    from tether.store.reader import (
        AssistantRecord,
        CompactionRecord,
        EstimateRecord,
        LoadedSession,
        Record,
        SpendRecord,
        UserRecord,
        WindowRecord,
        load_session,
    )

_FROM_READER = frozenset(
    {
        "AssistantRecord",
        "CompactionRecord",
        "EstimateRecord",
        "LoadedSession",
        "Record",
        "SpendRecord",
        "UserRecord",
        "WindowRecord",
        "load_session",
    }
)


def __getattr__(name: str) -> Any:
    if name in _FROM_READER:
        from tether.store import reader

        return getattr(reader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AssistantRecord",
    "CompactionRecord",
    "EntryWatcher",
    "EstimateRecord",
    "LoadedSession",
    "Record",
    "ReplyEntries",
    "SessionInUse",
    "SessionInfo",
    "SessionNotFound",
    "SessionOpen",
    "SessionWriter",
    "SpendRecord",
    "UserRecord",
    "WindowRecord",
    "find_session",
    "fork_session",
    "latest_session",
    "list_sessions",
    "load_session",
    "new_message_id",
    "project_dir",
    "project_slug",
    "remove_session",
    "subagent_transcript_path",
]
