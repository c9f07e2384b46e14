"""The files MCP servers are configured in: where each scope's file is, reading one (a broken
file is a `ConfigError` naming the spot), and adding or removing one server in tether's own
files. Claude Code's `~/.claude.json` is only ever read."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, cast

from tether import bounded_json
from tether.claude_state_file import read_claude_state
from tether.protocol import ConfigError
from tether.text_files import DEFAULT_LIMIT_BYTES, UnreadableFile, read_text_file

WritableScope = Literal["local", "project", "user"]
"""The scopes `tether mcp add` and `remove` write: each has one file of tether's own."""

WRITABLE_SCOPES: tuple[WritableScope, ...] = ("local", "project", "user")


def scope_file(scope: WritableScope, workspace: Path, *, tether_home: Path) -> Path:
    """The file a scope's servers are written to, as `{"mcpServers": {...}}`."""
    if scope == "project":
        return workspace / ".mcp.json"  # Claude Code's, shared with the repository
    if scope == "user":
        return tether_home / "mcp.json"
    return workspace / ".tether" / "mcp.local.json"


def claude_file(home: Path, env: Mapping[str, str]) -> Path:
    """Claude Code's own state file, which holds its user and local scope servers."""
    config_dir = env.get("CLAUDE_CONFIG_DIR")
    return (Path(config_dir) if config_dir else home) / ".claude.json"


def seed_file(workspace: Path) -> Path:
    return workspace / "config" / "mcp_config.yaml"


def read_json_file(path: Path) -> dict[str, Any] | None:
    """The object a JSON file holds; None when there is no such file; an empty file is `{}`.
    Claude Code's `~/.claude.json` is read once per change and shared: what it holds refuses
    to change (`tether.claude_state_file`)."""
    try:
        data = _parsed(path)
    except bounded_json.NestedTooDeep as e:  # nested too deep to be configuration
        raise ConfigError(f"{path} is not usable: it is {e}") from None
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path} is not valid JSON: {bounded_json.error_text(e)}") from None
    except UnreadableFile as e:
        if _is_placeholder(path):
            return None
        raise ConfigError(f"cannot read {e.path}: it {e.reason}") from None
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object, not {kind_of(data)}")
    return cast(dict[str, Any], data)


def _parsed(path: Path) -> object | None:
    if path.name == ".claude.json":
        return read_claude_state(path)
    text = read_text_file(path, limit_bytes=DEFAULT_LIMIT_BYTES)
    if text is None:
        return None
    return bounded_json.loads(text) if text.strip() else {}


def read_yaml_file(path: Path) -> object:
    """What a YAML file holds; None when there is no such file (or it is empty)."""
    text = _read_text(path)
    if text is None:
        return None
    import yaml  # only when such a file exists: most sessions have none

    try:
        return yaml.safe_load(text)
    except RecursionError:  # the YAML composer recurses once per level of nesting
        raise ConfigError(f"{path} nests too deeply to be read") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None) or str(e)
        if isinstance(mark, yaml.Mark):
            problem = f"{problem} at line {mark.line + 1}, column {mark.column + 1}"
        raise ConfigError(f"{path} is not valid YAML: {problem}") from None


def server_entries(path: Path, *, project: str | None = None) -> dict[str, Any]:
    """The `mcpServers` of a JSON file, as written (empty when there is no such file).
    With `project`: Claude Code's local scope, `projects[project].mcpServers` of its file."""
    if project is None:
        data = read_json_file(path)
        return {} if data is None else server_table(data, str(path))
    entry = project_entry(path, project)
    return server_table(entry, f"{path} (projects[{project!r}])") if entry else {}


def project_entry(path: Path, project: str) -> dict[str, Any]:
    """Claude Code's entry for `project` in its file's `projects` (empty when absent)."""
    data = read_json_file(path)
    projects = data.get("projects") if data is not None else None
    entry = projects.get(project) if isinstance(projects, dict) else None
    return cast(dict[str, Any], entry) if isinstance(entry, dict) else {}


def server_table(data: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The `mcpServers` object of a file's content (empty when absent)."""
    table = data.get("mcpServers", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: mcpServers must be an object, not {kind_of(table)}")
    return cast(dict[str, Any], table)


def add_server(path: Path, name: str, entry: Mapping[str, Any]) -> None:
    """Add one server to a file of tether's, keeping everything else the file holds."""
    data = read_json_file(path) or {}
    table = server_table(data, str(path))
    if name in table:
        raise ConfigError(f"server {name!r} already exists in {path}; remove it first")
    data["mcpServers"] = {**table, name: dict(entry)}
    write_json(path, data)


def remove_server(path: Path, name: str) -> bool:
    """Remove one server from a file of tether's; False when the file does not have it."""
    data = read_json_file(path)
    if data is None:
        return False
    table = server_table(data, str(path))
    if name not in table:
        return False
    data["mcpServers"] = {k: v for k, v in table.items() if k != name}
    write_json(path, data)
    return True


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """Replace the file in one step, so that a reader never sees half of it. A new file is
    readable by its owner only: it may hold keys given with `--env` or `--header`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        if path.exists():
            os.chmod(temp, path.stat().st_mode & 0o7777)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def kind_of(value: object) -> str:
    """A JSON name for a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _read_text(path: Path) -> str | None:
    try:
        return read_text_file(path, limit_bytes=DEFAULT_LIMIT_BYTES)
    except UnreadableFile as e:
        if _is_placeholder(path):
            return None
        raise ConfigError(f"cannot read {e.path}: it {e.reason}") from None


def _is_placeholder(path: Path) -> bool:
    """An empty directory: the sandbox's placeholder for a missing file while a command runs."""
    try:
        return path.is_dir() and not path.is_symlink() and not any(path.iterdir())
    except OSError:
        return False
