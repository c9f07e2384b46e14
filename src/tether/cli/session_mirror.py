"""`--session-mirror`: each entry of the session file, as it is written, sent to the client as
Claude Code's `transcript_mirror` line, which the Agent SDK hands to its session store
(`session_store=`), so that the store holds the session as the file does and a session can be
resumed from it on another machine.

The SDK files a frame under the key its `filePath` gives relative to its projects directory
(`$CLAUDE_CONFIG_DIR/projects`, `~/.claude/projects` by default). tether keeps its files there
when `CLAUDE_CONFIG_DIR` is set (`config.settings.sessions_home`); otherwise in
`$TETHER_HOME/projects`, and the frame names the file as it would be kept in the SDK's place:
same project slug, same session id, so the store's key is the same either way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tether.config.settings import sessions_home
from tether.core.recording import SessionRecorder


def claude_projects_dir(env: Mapping[str, str]) -> Path:
    """Where Claude Code (and the SDK's session helpers) keep session files."""
    configured = env.get("CLAUDE_CONFIG_DIR")
    base = Path(configured) if configured else Path(env.get("HOME") or Path.home()) / ".claude"
    return base.expanduser() / "projects"


def mirror_session(
    recorder: SessionRecorder, write: Callable[[dict[str, Any]], None], env: Mapping[str, str]
) -> None:
    """Write a `transcript_mirror` line for each entry the session file gets from now on."""
    kept = sessions_home(env) / "projects"
    projects = claude_projects_dir(env)

    def mirror(path: Path, entry: dict[str, Any]) -> None:
        shown = projects / path.relative_to(kept) if path.is_relative_to(kept) else path
        write({"type": "transcript_mirror", "filePath": str(shown), "entries": [entry]})

    recorder.watchers.append(mirror)
