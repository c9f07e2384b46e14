"""Custom slash commands and `/skill` prompts as a session runs them, in the REPL and headless.

The commands join the session's `/name args` commands (beside MCP servers' prompts), so the
REPL runs them as it runs those; `expand_slash_prompt` gives a headless prompt (see
`headless_input`) the same meaning, as Claude Code gives it headless too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tether.cli.command_expansion import run_bang_commands
from tether.cli.init_prompt import INIT_COMMAND, init_message
from tether.core.lifecycle import reminder
from tether.protocol import ConfigError
from tether.skills import SkillError
from tether.skills.commands import CommandCatalog, SlashCommand, expand_command

if TYPE_CHECKING:
    from tether.core.commands import PromptCommand
    from tether.core.session import Session


def attach_custom_commands(
    session: Session,
    catalog: CommandCatalog,
    *,
    grant: Callable[[Sequence[str]], None],
    needs_trust: Callable[[Path], bool],
) -> None:
    """Make each command `/name` (and `/namespace:name`) of the session. A command's
    `allowed-tools` are allowed for the turn it starts, unless its file is the workspace's and
    the workspace is not trusted (as a skill's are)."""
    from tether.core.commands import CommandInfo

    for invocation, command in catalog.by_invocation().items():
        untrusted = needs_trust(command.path)
        session.commands[invocation] = _runner(session, invocation, command, grant, untrusted)
        source = "plugin" if command.source == "plugin" else f"{command.source}Settings"
        session.command_info[invocation] = CommandInfo(
            source, command.model, command.description, command.argument_hint
        )
    file_notices(session, catalog.notices())


def _runner(
    session: Session,
    invocation: str,
    command: SlashCommand,
    grant: Callable[[Sequence[str]], None],
    untrusted: bool,
) -> PromptCommand:
    async def run(args: str) -> str:
        try:
            message = expand_command(command, args)
        except SkillError as exc:
            raise ConfigError(f"/{command.qualified_name}: {exc}") from None
        if command.allowed_tools and not untrusted:
            grant(command.allowed_tools)
        return await run_bang_commands(session, invocation, message)

    return run


async def expand_slash_prompt(session: Session, prompt: str) -> str:
    """`/name args` as the message it stands for: `/init`'s request for a CLAUDE.md, a
    skill's instructions (a skill wins a name, as in Claude Code), a custom command's body or
    an MCP server's prompt; any other prompt, and a `/path` that names none of them, as it is.
    Raises ConfigError when the command's file cannot be read."""
    if not prompt.startswith("/"):
        return prompt
    name, *rest = prompt.split(maxsplit=1)
    args = rest[0] if rest else ""
    if name == INIT_COMMAND:  # built in, so it wins the name (as in the REPL)
        return init_message(Path(session.started().cwd), args)
    skill = session.skills.runnable(name[1:])  # one waiting for its `paths` is hidden
    if skill is not None:
        from tether.cli.repl_help import skill_message  # rich: only for a skill's prompt

        try:
            return skill_message(skill, args)
        except SkillError as exc:
            raise ConfigError(str(exc)) from None
    command = session.commands.get(name[1:])  # a plugin's only as `/plugin:name`
    return await command(args) if command is not None else prompt


def command_model(session: Session, prompt: str) -> str | None:
    """The model a custom command's `model:` front matter names, for the turn `prompt`
    (`/name args`) starts; None for any other prompt."""
    if not prompt.startswith("/"):
        return None
    info = session.command_info.get(prompt.split(maxsplit=1)[0][1:])
    model = info.model if info is not None else None
    return None if model in (None, "inherit") else model  # `inherit`: the session's own


_COMMAND_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_:.-]*")
"""A word after `/` read as a command's name (a `/path/to/file` is not one)."""
LISTED_COMMANDS = 40
"""At most this many commands are named in `unknown_command_note`."""


def unknown_command_note(session: Session, prompt: str) -> str | None:
    """For a headless prompt `/name ...` that no command, skill or prompt answers, the note
    that goes to the model with it, as Claude Code sends one: the command did not run, which
    ones there are, and that the message is a plain request. None for any other prompt."""
    name = prompt.split(maxsplit=1)[0][1:] if prompt.startswith("/") else ""
    if _COMMAND_NAME.fullmatch(name) is None:
        return None
    names = sorted({*(s.name for s in session.skills.listed()), *session.commands}, key=str.lower)
    shown = ", ".join(f"/{n}" for n in names[:LISTED_COMMANDS])
    more = f", and {len(names) - LISTED_COMMANDS} more" if len(names) > LISTED_COMMANDS else ""
    available = (
        f"Slash commands available in this session: {shown}{more}."
        if names
        else "No slash commands are available in this session."
    )
    return reminder(
        f"The user's message starts with the slash command /{name}, but no command with that "
        f"name is available in this session, so it did not run. {available} Answer the "
        "message as a plain request with the tools you have; if it needs that command, say it "
        "is not installed here. Do not say the command ran."
    )


def file_notices(session: Session, notices: Iterable[str]) -> None:
    """Start-up notices about the project's files (see `Session.file_notices`)."""
    for notice in notices:
        session.startup_notices.append(notice)
        session.file_notices.add(notice)
