"""The SDK client's `rewind_files` request, answered as Claude Code answers it: the files the
session's Write and Edit calls changed, put back, when the client enabled file checkpointing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether.cli.control import Refused

if TYPE_CHECKING:
    from tether.cli.stream_json import StreamJsonFrontEnd


async def rewind_files(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    """The files the session's Write and Edit calls changed, put back as they were when the
    turn of the prompt `user_message_id` began (as Claude Code's checkpoints; changes made
    through Bash are not known). `dry_run`: only which files would change."""
    if not _truthy(os.environ.get(CHECKPOINTING_ENV)):
        raise Refused("File rewinding is not enabled.")  # as Claude Code: the SDK's option
    mark = front.checkpoints.get(str(body.get("user_message_id")))
    if mark is None or not front.built:
        raise Refused("No file checkpoint found for this message.")
    snapshots = (await front.session()).session.agent.tool_context.files.snapshots
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
