"""Finding subagent definitions: tether's own, then `<dir>/agents/*.md` of the user and project."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from tether.agents.builtin import BUILTIN_AGENTS
from tether.agents.definitions import (
    NAME_RULE,
    TASK_TOOL_NAME,
    AgentCatalog,
    AgentDefinition,
    UnusableAgent,
    is_valid_agent_name,
    offered_tools,
)
from tether.hooks.spec import HookSpec
from tether.protocol import ConfigError
from tether.skills.frontmatter import FrontMatterError, parse_document
from tether.slotted import replaced
from tether.text_files import UnreadableFile, cut_instructions, read_text_file, real_path

USER_AGENT_DIRS = (".claude/agents",)
"""Relative to the user's home."""
PROJECT_AGENT_DIRS = (".claude/agents", ".tether/agents")
"""Relative to the workspace; a later directory wins over an earlier one for the same name."""

TOOL_ALIASES = {"Agent": TASK_TOOL_NAME}
"""Claude Code's newer name for the Task tool."""
_COMMA_OUTSIDE_PARENTHESES = re.compile(r",(?![^(]*\))")


class _Unusable(Exception):
    """One agent file cannot be offered; the message is the reason."""


def discover_agents(
    workspace: Path,
    *,
    home: Path,
    admits: Callable[[Path], bool] | None = None,
    plugins: Sequence[tuple[str, Path]] = (),
) -> AgentCatalog:
    """The built-in agents, then the user's (`~/.claude/agents/*.md`), then the project's
    (`.claude/agents/*.md`, `.tether/agents/*.md`): a later definition replaces an earlier one
    of the same name. A file that cannot be used is listed with the reason, never raised.
    `admits` says whether a directory is of a source the session reads (`--setting-sources`);
    the built-in agents are always there. `plugins`: each plugin's name and a directory of
    its agent files (or one file); they are called `plugin:name`, as in Claude Code."""
    chosen: dict[str, AgentDefinition] = {agent.name: agent for agent in BUILTIN_AGENTS}
    unusable: list[UnusableAgent] = []
    directories: list[tuple[str, Path]] = [("", home / d) for d in USER_AGENT_DIRS] + [
        ("", workspace / d) for d in PROJECT_AGENT_DIRS
    ]
    if admits is not None:
        directories = [(ns, directory) for ns, directory in directories if admits(directory)]
    directories = [*plugins, *directories]
    seen: set[Path] = set()
    for namespace, directory in directories:
        try:
            files = [directory] if directory.is_file() else _agent_files(directory)
        except OSError as exc:
            unusable.append(UnusableAgent(directory, f"cannot list the directory: {exc}"))
            continue
        in_directory: dict[str, Path] = {}
        for path in files:
            # A workspace that is the home directory lists its agents twice; read them once.
            identity = real_path(path)
            if identity in seen:
                continue
            seen.add(identity)
            try:
                agent = read_agent(path)
            except _Unusable as exc:
                unusable.append(UnusableAgent(path, str(exc)))
                continue
            if namespace:
                agent = replaced(agent, name=f"{namespace}:{agent.name}")
            if (twin := in_directory.get(agent.name)) is not None:
                unusable.append(UnusableAgent(twin, f"{path.name} defines {agent.name!r} too"))
            in_directory[agent.name] = path
            chosen[agent.name] = agent
    agents = tuple(sorted(chosen.values(), key=lambda agent: agent.name.lower()))
    return AgentCatalog(agents, tuple(unusable))


def _agent_files(directory: Path) -> list[Path]:
    """The `*.md` files of `directory`, sorted by name; none if it is absent."""
    try:
        entries = sorted(directory.iterdir(), key=lambda entry: entry.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [
        entry
        for entry in entries
        # Whatever has the name is read: a directory, a link to nothing or a FIFO is reported.
        if entry.suffix == ".md" and not entry.name.startswith(".")
    ]


def read_agent(path: Path) -> AgentDefinition:
    """One agent file: YAML front matter (`name`, `description`, `tools`, `disallowedTools`,
    `model`, `maxTurns`, `permissionMode`, `hooks`), then the system prompt. Raises
    `_Unusable`."""
    try:
        text = read_text_file(path) or ""
    except UnreadableFile as exc:
        raise _Unusable(f"cannot read the file: it {exc.reason}") from None
    try:
        document = parse_document(text)
    except FrontMatterError as exc:
        raise _Unusable(str(exc)) from None
    metadata = document.metadata
    body = document.body.strip()  # may be empty: Claude Code loads such an agent too
    return AgentDefinition(
        name=_name(metadata),
        description=_required_text(metadata, "description"),
        # Cut as instruction files are, the note in it: it is the whole of a request's prompt.
        system_prompt=cut_instructions(body, str(path))[0] + "\n",
        tools=_offered(_tool_names(metadata, "tools")),
        disallowed_tools=_tool_names(metadata, "disallowedTools") or (),
        model=_model(metadata),
        max_turns=_max_turns(metadata),
        # Only the mode that takes power away is honoured: a file in a cloned repository must
        # not give its agent more than the session has.
        read_only=metadata.get("permissionMode") == "plan",
        path=path,
        hooks=_hooks(path, metadata),
    )


def _hooks(path: Path, metadata: dict[str, Any]) -> tuple[HookSpec, ...]:
    """The front matter's `hooks`, read as a settings file's `hooks` block is. A `Stop` hook
    fires when the agent ends, as SubagentStop (Claude Code's rule). A broken block makes the
    agent unusable: its hooks may be its policy, and it must not run without them."""
    block = metadata.get("hooks")
    if block is None:
        return ()
    from tether.hooks.config import read_hooks

    try:
        config = read_hooks([(path, {"hooks": block})])
    except ConfigError as exc:
        raise _Unusable(f"its hooks cannot be read: {exc}") from None
    return tuple(
        replace(spec, event="SubagentStop") if spec.event == "Stop" else spec
        for spec in config.specs
    )


def _name(metadata: dict[str, Any]) -> str:
    name = _required_text(metadata, "name")
    if not is_valid_agent_name(name):
        raise _Unusable(f"the name {name!r} is not a valid agent name ({NAME_RULE})")
    return name


def _required_text(metadata: dict[str, Any], key: str) -> str:
    value = metadata.get(key)
    if value is None:
        raise _Unusable(f"'{key}' is missing")
    if not isinstance(value, str) or not value.strip():
        raise _Unusable(f"'{key}' must be a non-empty string")
    return value.strip()


def _tool_names(metadata: dict[str, Any], key: str) -> tuple[str, ...] | None:
    """A comma-separated string or a YAML list; `Bash(git *)` and `Task(Explore)` name their
    tool (the specifier is not enforced here: permission rules do that)."""
    value = metadata.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        items: list[object] = list(_COMMA_OUTSIDE_PARENTHESES.split(value))
    elif isinstance(value, list):
        items = list(value)  # pyright: ignore[reportUnknownArgumentType]
    else:
        raise _Unusable(f"'{key}' must be a comma-separated string or a list of tool names")
    names: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise _Unusable(f"'{key}' must list tool names as strings")
        tool = item.split("(", 1)[0].strip()
        if tool:
            names.append(TOOL_ALIASES.get(tool, tool))
    return tuple(dict.fromkeys(names))


def _offered(names: tuple[str, ...] | None) -> tuple[str, ...] | None:
    return None if names is None else offered_tools(names)


def _model(metadata: dict[str, Any]) -> str | None:
    value = metadata.get("model")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _Unusable("'model' must be a model name or alias, or 'inherit'")
    return None if value.strip() == "inherit" else value.strip()


def _max_turns(metadata: dict[str, Any]) -> int | None:
    value = metadata.get("maxTurns")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _Unusable("'maxTurns' must be a positive whole number")
    return value
