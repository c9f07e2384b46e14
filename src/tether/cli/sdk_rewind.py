"""The SDK client's `rewind_files` request, answered as Claude Code answers it: the files the
session's Write and Edit calls changed, put back, when the client enabled file checkpointing."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether.cli.control import Refused
from tether.cli.file_history import FileHistory, file_history_dir

if TYPE_CHECKING:
    from tether.cli.stream_json import StreamJsonFrontEnd
    from tether.core.session import Session


async def rewind_files(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    """The files the session's Write and Edit calls changed, put back as they were when the
    turn of the prompt `user_message_id` began (as Claude Code's checkpoints; changes made
    through Bash are not known). `dry_run`: only which files would change."""
    if not _truthy(os.environ.get(CHECKPOINTING_ENV)):
        raise Refused("File rewinding is not enabled.")  # as Claude Code: the SDK's option
    uuid = str(body.get("user_message_id"))
    mark = front.checkpoints.get(uuid)
    if not front.built:
        raise Refused("No file checkpoint found for this message.")
    session = (await front.session()).session
    snapshots = session.agent.tool_context.files.snapshots
    if mark is None:
        return _rewind_kept(session, uuid, dry_run=bool(body.get("dry_run")))
    try:
        if body.get("dry_run"):
            changed = sorted(str(path) for path in snapshots.changed_since(mark))
            return {"canRewind": True, "filesChanged": changed}
        restored = snapshots.rewind(mark)
    except LookupError as e:
        raise Refused(f"Failed to rewind: {e}") from None
    for path, content in restored.items():
        _put_back(path, content)
    return {"canRewind": True, "filesChanged": sorted(str(path) for path in restored)}


def keep_checkpoint(session: Session, uuid: str, mark: Mapping[Path, int]) -> None:
    """After the turn of the prompt `uuid`, what the files it changed held when it began,
    kept beside the session file (`file_history`): a later process that resumes the session
    can rewind to this prompt. Only when the client enabled checkpointing; a disk that
    refuses costs the checkpoint, not the turn (a rewind to it is then refused)."""
    path = session.recorder.path if session.recorder is not None else None
    if path is None or not _truthy(os.environ.get(CHECKPOINTING_ENV)):
        return
    with contextlib.suppress(OSError, LookupError):
        before = session.agent.tool_context.files.snapshots.held_at(mark)
        FileHistory(file_history_dir(path)).record(uuid, before)


def _rewind_kept(session: Session, uuid: str, *, dry_run: bool) -> dict[str, Any]:
    """A rewind to a prompt of an earlier process of this session, from the kept history."""
    path = session.recorder.path if session.recorder is not None else None
    try:
        state = FileHistory(file_history_dir(path)).state_at(uuid) if path else None
    except OSError as e:
        raise Refused(f"Failed to rewind: {e.strerror or e}") from None
    if state is None:
        raise Refused("No file checkpoint found for this message.")
    changed = sorted(str(p) for p in state)
    if dry_run:
        return {"canRewind": True, "filesChanged": changed}
    for file, content in state.items():
        _put_back(file, content)
    # This process's snapshots are all of changes made after that prompt: undone now.
    with contextlib.suppress(OSError, LookupError):
        session.agent.tool_context.files.snapshots.rewind({})
    return {"canRewind": True, "filesChanged": changed}


CHECKPOINTING_ENV = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING"
"""Set by the SDKs for `enable_file_checkpointing` (`enableFileCheckpointing`)."""


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _put_back(path: Path, content: bytes | None) -> None:
    try:
        if content is None:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(content)
    except OSError as e:
        raise Refused(f"Failed to rewind: {path}: {e.strerror or e}") from None
