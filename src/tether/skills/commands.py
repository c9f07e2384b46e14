"""Custom slash commands: `.claude/commands/**/*.md` of the project and of the user.

A command is a prompt kept in a file: `/name args` sends its body, with `$ARGUMENTS`,
`$ARGUMENTS[N]` and `$N` filled in (`tether.skills.arguments`), as the user's message. As in
Claude Code, a subdirectory is a namespace: `frontend/component.md` is `/frontend:component`
only (no bare `/component`, which could shadow a skill or another command of that name). Its
front matter (optional) has `description`, `argument-hint`, `allowed-tools` (rules allowed
for the turn it starts) and `model`; a file that strict YAML rejects is read as `key: value` lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, Literal

from tether.skills.arguments import fill_arguments
from tether.skills.discovery import split_tool_rules
from tether.skills.errors import SkillError
from tether.skills.frontmatter import FrontMatterError, parse_optional
from tether.slotted import Slotted, replaced
from tether.text_files import UnreadableFile, read_text_file, real_path

CommandSource = Literal["project", "user", "plugin"]
COMMAND_DIR = ".claude/commands"
"""Relative to the workspace (project commands) and to the user's home (user commands)."""
_PLUGIN_ROOT = "${CLAUDE_PLUGIN_ROOT}"
_NAME = re.compile(r"[A-Za-z0-9][\w.-]*")


class SlashCommand(Slotted):
    """One custom command file."""

    __slots__ = (
        "allowed_tools",
        "argument_hint",
        "description",
        "model",
        "model_invocable",
        "name",
        "namespace",
        "path",
        "plugin",
        "plugin_root",
        "source",
    )
    name: Final[str]
    """What follows the `/`: the file's name without `.md`."""
    namespace: Final[str]
    """Its subdirectories joined by `:` (`frontend` for `frontend/component.md`), or ""."""
    path: Final[Path]
    source: Final[CommandSource]
    description: Final[str]
    argument_hint: Final[str]
    allowed_tools: Final[tuple[str, ...]]
    model: Final[str | None]
    plugin: Final[str]
    """The plugin it comes from: a plugin's commands are only `/plugin:name` (and
    `/plugin:sub:name`), never bare, as in Claude Code."""
    plugin_root: Final[Path | None]
    """The plugin's directory: `${CLAUDE_PLUGIN_ROOT}` in its body and `allowed-tools`."""
    model_invocable: Final[bool]
    """False for `disable-model-invocation: true`: the user runs it, the Skill tool does not."""

    def __init__(
        self,
        name: str,
        namespace: str,
        path: Path,
        source: CommandSource,
        description: str = "",
        argument_hint: str = "",
        allowed_tools: tuple[str, ...] = (),
        model: str | None = None,
        plugin: str = "",
        plugin_root: Path | None = None,
        model_invocable: bool = True,
    ) -> None:
        self.name = name
        self.namespace = namespace
        self.path = path
        self.source = source
        self.description = description
        self.argument_hint = argument_hint
        self.allowed_tools = allowed_tools
        self.model = model
        self.plugin = plugin
        self.plugin_root = plugin_root
        self.model_invocable = model_invocable

    @property
    def qualified_name(self) -> str:
        """`namespace:name`, or the name alone at the top of the directory."""
        return f"{self.namespace}:{self.name}" if self.namespace else self.name


class CommandCatalog(Slotted):
    """Every command found; the project's first, so that they win over the user's."""

    __slots__ = ("commands", "unusable")
    commands: Final[tuple[SlashCommand, ...]]
    unusable: Final[tuple[tuple[Path, str], ...]]

    def __init__(
        self, commands: tuple[SlashCommand, ...], unusable: tuple[tuple[Path, str], ...] = ()
    ) -> None:
        self.commands = commands
        self.unusable = unusable

    def by_invocation(self) -> dict[str, SlashCommand]:
        """`/name` (at the top of a commands directory) and `/namespace:name` to their
        command, as Claude Code names them; the first found wins a name (the project's over
        the user's)."""
        table: dict[str, SlashCommand] = {}
        for command in self.commands:
            table.setdefault(command.qualified_name, command)
        return table

    def offered_to_model(self) -> tuple[SlashCommand, ...]:
        """The commands the model may run with the Skill tool, as Claude Code offers them: those
        with a description and without `disable-model-invocation`, each name once."""
        table = self.by_invocation()
        return tuple(
            c
            for c in self.commands
            if c.description and c.model_invocable and table.get(c.qualified_name) is c
        )

    def notices(self) -> list[str]:
        return [f"command {path} is unusable: {reason}" for path, reason in self.unusable]


def discover_commands(
    workspace: Path,
    *,
    home: Path,
    admits: Callable[[Path], bool] | None = None,
    plugins: Sequence[tuple[str, Path, Path]] = (),
) -> CommandCatalog:
    """The project's commands, then the user's, then the plugins'; `admits` says whether a
    directory is of a source the session reads (`--setting-sources`). `plugins`: each
    plugin's name, its directory, and a directory of its commands or one command file."""
    roots: list[tuple[Path, CommandSource]] = [
        (workspace / COMMAND_DIR, "project"),
        (home / COMMAND_DIR, "user"),
    ]
    commands: list[SlashCommand] = []
    unusable: list[tuple[Path, str]] = []
    seen: set[Path] = set()
    for root, source in roots:
        if (admits is not None and not admits(root)) or not root.is_dir():
            continue
        for path in sorted(root.rglob("*.md")):
            if real_path(path) in seen or any(
                p.startswith(".") for p in path.relative_to(root).parts
            ):
                continue
            seen.add(real_path(path))
            try:
                commands.append(_read_command(path, root, source))
            except (SkillError, FrontMatterError) as exc:
                unusable.append((path, str(exc)))
    for plugin, plugin_root, root in plugins:
        files = [root] if root.is_file() else sorted(root.rglob("*.md"))
        base = root.parent if root.is_file() else root
        for path in files:
            if real_path(path) in seen or any(
                p.startswith(".") for p in path.relative_to(base).parts
            ):
                continue
            seen.add(real_path(path))
            try:
                command = _read_command(path, base, "plugin")
            except (SkillError, FrontMatterError) as exc:
                unusable.append((path, str(exc)))
                continue
            namespace = ":".join(filter(None, (plugin, command.namespace)))
            rules = tuple(
                rule.replace(_PLUGIN_ROOT, str(plugin_root)) for rule in command.allowed_tools
            )
            commands.append(
                replaced(
                    command,
                    namespace=namespace,
                    plugin=plugin,
                    plugin_root=plugin_root,
                    allowed_tools=rules,
                )
            )
    return CommandCatalog(tuple(commands), tuple(unusable))


def _read_command(path: Path, root: Path, source: CommandSource) -> SlashCommand:
    name = path.stem
    if _NAME.fullmatch(name) is None:
        raise SkillError(f"{name!r} cannot be typed as a command name")
    metadata = parse_optional(_text(path)).metadata
    namespace = ":".join(path.relative_to(root).parent.parts)
    return SlashCommand(
        name=name,
        namespace=namespace,
        path=path,
        source=source,
        description=_text_field(metadata, "description"),
        argument_hint=_text_field(metadata, "argument-hint"),
        allowed_tools=_rules(metadata.get("allowed-tools")),
        model=_text_field(metadata, "model") or None,
        model_invocable=metadata.get("disable-model-invocation") is not True,
    )


def expand_command(command: SlashCommand, args: str) -> str:
    """The message `/name args` sends: the file's body with `args` filled in as Claude Code
    fills them (`tether.skills.arguments`). Raises SkillError when the file can no longer be
    read."""
    body = _body(_text(command.path)).strip()
    if command.plugin_root is not None:
        body = body.replace(_PLUGIN_ROOT, str(command.plugin_root))
    return fill_arguments(body, args) + "\n"


def _text(path: Path) -> str:
    try:
        text = read_text_file(path)
    except UnreadableFile as exc:
        raise SkillError(f"cannot read {path}: it {exc.reason}") from None
    if text is None:
        raise SkillError(f"cannot read {path}: it no longer exists")
    return text


def _body(text: str) -> str:
    """A command's front matter is optional: a file without one is all body."""
    try:
        return parse_optional(text).body
    except FrontMatterError as exc:
        raise SkillError(str(exc)) from None


def _rules(value: object) -> tuple[str, ...]:
    """`allowed-tools` as a string of rules or a list of them; anything else grants nothing."""
    if isinstance(value, str):
        return tuple(split_tool_rules(value))
    if isinstance(value, list):
        return tuple(str(item).strip() for item in value if str(item).strip())  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    return ()


def _text_field(metadata: dict[str, Any], key: str) -> str:
    value = metadata.get(key)
    return value.strip() if isinstance(value, str) else ""
