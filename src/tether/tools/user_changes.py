"""What a tool's result says when the user changed the call's input before allowing it (a
permission answer with an updated input), in Claude Code's words, so the model knows the file
holds what the user chose rather than what it proposed."""

from __future__ import annotations

from typing import Any, cast

from tether.slotted import replaced
from tether.tools.registry import ToolOutcome

USER_MODIFIED = {
    "Write": "The user modified your proposed content before accepting it.",
    "Edit": "The user modified your proposed changes before accepting them.",
    "MultiEdit": "The user modified your proposed changes before accepting them.",
    "NotebookEdit": "The user modified your proposed changes before accepting them.",
}
"""The sentence each file tool's result gains; other tools' results (a changed Bash command's
output) speak for themselves, as in Claude Code."""


def told_user_modified(tool: str, outcome: ToolOutcome) -> ToolOutcome:
    """`outcome` with the sentence for `tool` added and its structured result's
    `userModified` set; unchanged for an error or a tool without such a sentence."""
    note = USER_MODIFIED.get(tool)
    if note is None or outcome.is_error:
        return outcome
    structured = outcome.structured
    if isinstance(structured, dict) and "userModified" in structured:
        structured = {**cast(dict[str, Any], structured), "userModified": True}
    return replaced(outcome, content=f"{outcome.content} {note}", structured=structured)
