"""Where `tether mcp list` and `get` say a server and the decision about it come from, as
`claude mcp get`'s Scope line says it, naming the file: Claude Code's `~/.claude.json` (its
user and local scopes, and its `/mcp` decisions) as well as tether's files and settings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from tether.mcp.servers import ServerConfig


def where_from(server: ServerConfig, workspace: Path) -> str:
    """`user: ~/.claude.json`, `local: ~/.claude.json, this project's entry`,
    `project: .mcp.json`: the server's scope and the file that configures it."""
    shown = shown_path(server.source, workspace)
    if server.scope == "local" and server.source.name == ".claude.json":
        shown += ", this project's entry"  # Claude Code's local scope, kept per project
    return f"{server.scope}: {shown}"


def why_off(
    key: str, name: str, holders: Mapping[tuple[str, str], Sequence[Path]], workspace: Path
) -> str:
    """`disabledMcpServers in ~/.claude.json`: the key that turns server `name` off, and the
    files that hold it (`mcp_decisions.kept_off_elsewhere`)."""
    files = ", ".join(shown_path(path, workspace) for path in holders.get((key, name), ()))
    return f"{key} in {files}" if files else key


def shown_path(path: Path, workspace: Path) -> str:
    """A path as the user reads it best: from the workspace inside it, from `~` under the
    home directory, whole elsewhere."""
    for base, prefix in ((workspace, ""), (Path.home(), "~/")):
        try:
            return prefix + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)
