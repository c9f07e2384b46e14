"""`StreamOptions`: the command line's choices for the stream-json front end (a module of its
own, so that reading the options does not load the front end)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StreamOptions:
    """The command line's choices for this front end."""

    include_partial: bool = False
    include_hook_events: bool = False
    permission_prompt_tool: str | None = None
    """`stdio`: questions go to the client as `can_use_tool` requests; an MCP tool's name:
    that tool answers them; None: an ask is a denial."""
    mode_name: str | None = None
    """The permission mode as the client named it (`auto` is reported as such)."""
    replay_user_messages: bool = False
    session_mirror: bool = False
    """`--session-mirror`: the session file's entries as `transcript_mirror` lines."""
    bypass_allowed: bool = False
    """Whether the client may switch to bypassPermissions: the session started in it, or
    with `--allow-dangerously-skip-permissions` (as in Claude Code)."""
