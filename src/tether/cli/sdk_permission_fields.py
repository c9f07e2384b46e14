"""What a `can_use_tool` request says of the call beside its input, as Claude Code says it
(measured with its CLI): the tool's display name; a description (a command's own, else the
command; a file tool's path, relative to the working directory inside it; WebFetch's URL);
for a command, the file it would change first (`blocked_path`), else that it needs approval
(for a compound command neither, unless only its writes are asked about);
for a file tool's path outside the allowed directories, that reason. Claude Code leaves
out the reason where it has none to give (a write inside the workspace)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tether.permissions.blocked_path import blocked_path
from tether.permissions.command_prefix import is_compound, only_writes_asked
from tether.permissions.context import PermissionContext
from tether.permissions.engine import PATH_FIELDS, expand_home
from tether.permissions.paths import normalize
from tether.protocol.tool_names import claude_code_name

FILE_TOOLS = frozenset({"Read", "Write", "Edit", "MultiEdit", "NotebookEdit"})
"""The tools that name one file, described by it."""

OUTSIDE = "Path is outside allowed working directories"
NEEDS_APPROVAL = "This command requires approval"


def call_fields(
    tool: str, tool_input: dict[str, Any], ctx: PermissionContext, cwd: Path
) -> dict[str, Any]:
    """`display_name`, `description`, `blocked_path` and `decision_reason` (with its type)
    for a call of `tool` asked about; `cwd`: where a command would run."""
    name = claude_code_name(tool)
    fields: dict[str, Any] = {"display_name": name}
    if name == "Bash":
        command = tool_input.get("command")
        said = tool_input.get("description")
        if isinstance(said, str) and said:
            fields["description"] = said
        elif isinstance(command, str):
            fields["description"] = command
        blocked = blocked_path(command, cwd, ctx.home) if isinstance(command, str) else None
        compound = isinstance(command, str) and is_compound(command)
        if isinstance(command, str) and compound and not only_writes_asked(command, ctx, cwd):
            blocked = None  # asked for its parts: Claude Code names no file and no reason
        if blocked is not None:
            fields["blocked_path"] = blocked
        elif not compound:
            fields |= {"decision_reason": NEEDS_APPROVAL, "decision_reason_type": "other"}
    elif name == "WebFetch" and isinstance(tool_input.get("url"), str):
        fields["description"] = tool_input["url"]
    elif name in FILE_TOOLS:
        value = next((tool_input[f] for f in PATH_FIELDS if isinstance(tool_input.get(f), str)), "")
        if value:
            path = normalize(ctx.cwd / expand_home(value, ctx.home))
            inside = path.is_relative_to(ctx.cwd)
            fields["description"] = str(path.relative_to(ctx.cwd)) if inside else value
            allowed = (ctx.workspace, *ctx.additional_dirs)
            if not any(path.is_relative_to(d) for d in allowed):
                fields |= {"decision_reason": OUTSIDE, "decision_reason_type": "workingDir"}
    return fields
