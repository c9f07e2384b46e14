"""Stores: sessions as append-only JSONL files."""

from tether.store.reader import (
    AssistantRecord,
    CompactionRecord,
    LoadedSession,
    Record,
    SessionNotFound,
    SpendRecord,
    UserRecord,
    WindowRecord,
    load_session,
)
from tether.store.sessions import (
    SessionInfo,
    SessionOpen,
    find_session,
    latest_session,
    list_sessions,
    project_dir,
    project_slug,
    remove_session,
    subagent_transcript_path,
)
from tether.store.writer import EntryWatcher, SessionInUse, SessionWriter, fork_session

__all__ = [
    "AssistantRecord",
    "CompactionRecord",
    "EntryWatcher",
    "LoadedSession",
    "Record",
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
    "project_dir",
    "project_slug",
    "remove_session",
    "subagent_transcript_path",
]
