"""Built-in policy that applies with no settings at all, as data."""

from __future__ import annotations

from pathlib import Path

from tether.permissions.paths import relative_below

SESSION_TOOLS = frozenset({"TodoWrite", "Skill", "BashOutput", "KillShell", "Task", "ExitPlanMode"})
"""Tools that only touch the session's own state (or, for Task, start a subagent whose calls
are checked one by one): allowed without asking, in plan mode too."""

READABLE_DEVICES = frozenset(
    {"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/tty"}
)
WRITABLE_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
DEVICE_DIRS = ("/dev/fd/", "/proc/self/fd/")
"""Streams, not files: reading or writing them is not a file access."""

PROTECTED_DIRS = frozenset({".git", ".claude", ".tether", ".vscode", ".idea"})
"""Directories whose files are asked before writing in every mode, bypassPermissions included:
repository internals (hooks run code) and the settings that grant permissions."""
PROTECTED_EXCEPTIONS = frozenset({"commands", "agents", "skills"})
"""`.claude/skills/...` and the like are written routinely when creating skills and agents."""
PROTECTED_FILES = frozenset({".mcp.json"})
"""MCP server definitions start programs."""


def is_device(path: str, *, write: bool) -> bool:
    allowed = WRITABLE_DEVICES if write else READABLE_DEVICES
    return path in allowed or path.startswith(DEVICE_DIRS)


def is_protected(path: Path, roots: tuple[Path, ...]) -> bool:
    """Whether writing `path` must be asked whatever the mode (judged below the workspace root
    holding it, so that a workspace inside some `.tether` directory is not all protected)."""
    text = path.as_posix()
    below = next((b for r in roots if (b := relative_below(text, r.as_posix())) is not None), None)
    parts = tuple(below.split("/")) if below is not None else path.parts
    if parts and parts[-1] in PROTECTED_FILES:
        return True
    for i, part in enumerate(parts):
        if part in PROTECTED_DIRS:
            below = parts[i + 1 : i + 2]
            if part in (".claude", ".tether") and below and below[0] in PROTECTED_EXCEPTIONS:
                continue
            return True
    return False
