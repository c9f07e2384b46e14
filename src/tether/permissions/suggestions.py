"""What a permission question offers the client (Claude Code's `permission_suggestions`), as
Claude Code offers it: beside the "always allow" rule (`permission_updates`), a Bash command
that the acceptEdits mode would let run (`mkdir`, `touch`... in the workspace) also offers
the directory it works in and that mode, for the session; an edit outside the workspace and
the added directories offers the acceptEdits mode (from the default mode) and its directory,
for the session."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from tether.permissions.command_prefix import rule_updates
from tether.permissions.context import PermissionContext
from tether.permissions.engine import PATH_FIELDS, decide, expand_home
from tether.permissions.paths import normalize
from tether.permissions.rules import EDIT_TOOLS, TOOL_ALIASES, permission_updates


def permission_suggestions(
    tool: str, tool_input: Mapping[str, Any], ctx: PermissionContext, rule: str | None
) -> list[dict[str, Any]]:
    """The permission updates a question about this call offers; `rule` is the one an
    "always allow" answer saves (`suggest_rule`)."""
    tool = TOOL_ALIASES.get(tool, tool)
    command = tool_input.get("command")
    prefixed = rule_updates(command, ctx) if tool == "Bash" and isinstance(command, str) else None
    updates = prefixed if prefixed is not None else permission_updates(rule)
    if (
        tool == "Bash"
        and ctx.mode == "default"
        and not any(u["type"] == "setMode" for u in updates)
    ):
        if decide(tool, tool_input, replace(ctx, mode="acceptEdits")).behavior == "allow":
            updates.append(
                {"type": "addDirectories", "directories": [str(ctx.cwd)], "destination": "session"}
            )
            updates.append({"type": "setMode", "mode": "acceptEdits", "destination": "session"})
    elif tool in EDIT_TOOLS and not updates:
        directory = _outside_directory(tool_input, ctx)
        if directory is not None:
            if ctx.mode == "default":  # as Claude Code: the mode first, then the directory
                updates.append({"type": "setMode", "mode": "acceptEdits", "destination": "session"})
            updates.append(
                {"type": "addDirectories", "directories": [directory], "destination": "session"}
            )
    return updates


def _outside_directory(tool_input: Mapping[str, Any], ctx: PermissionContext) -> str | None:
    """The directory of the file an edit names, when it is outside the workspace and every
    added directory."""
    value = next((tool_input[f] for f in PATH_FIELDS if isinstance(tool_input.get(f), str)), None)
    if not isinstance(value, str) or not value:
        return None
    path = normalize(ctx.cwd / expand_home(value, ctx.home))
    if any(path.is_relative_to(d) for d in (ctx.workspace, *ctx.additional_dirs)):
        return None
    return str(path.parent)
