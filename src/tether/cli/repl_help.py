"""What the REPL prints at start (its banner) and for its built-in commands (/help, /cost), and
the message a `/skill` sends."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from tether import __version__

if TYPE_CHECKING:
    from tether.cli.startup import Ready
    from tether.core.session import Session
    from tether.skills import Skill, SkillCatalog

KEYS_HINT = "enter send · alt+enter new line · /help · ctrl+d exit"

HELP_COMMANDS = """\
Commands
  /help          this help
  /cost          tokens used and cost of this session, by tool and model
  /compact [focus]  summarise the earlier conversation now to free context
  /todos         the model's current plan for the task
  /resume [ID]   continue another session of this project (a list when no id)
  :sessions      list this project's sessions
  :resume ID     continue session ID here
  :fork ID       continue session ID as a new session, leaving it as it was
  /clear         start a new conversation on a cleared screen (the old one stays resumable)
  /rewind, /checkpoint  restore the code and/or conversation, or summarize (as Esc Esc)
  /model [NAME]  the model in use, or switch to NAME (opus, sonnet, haiku, an id)
  /status        model, mode, workspace, session id, MCP servers, context used
  /permissions   the permission mode and the rules in force, by where they come from;
                 /permissions add allow|ask|deny RULE [--project|--user], /permissions remove RULE
  /context       what fills the model's window (system, tools, instructions, messages), as a picture
  /hooks         every configured hook by event and matcher, with the file it comes from
  /output-style [NAME]  the output styles, or switch (from /clear on)
  /statusline    how to set the line under the prompt (the statusLine setting's command)
  /mcp           MCP servers: their state and tools; /mcp reconnect|enable|disable SERVER
  /init          have the model study the repository and write its CLAUDE.md
  /memory        open a memory file (CLAUDE.md, CLAUDE.local.md, ~/.claude/CLAUDE.md) in $EDITOR
  /add-dir DIR   work in DIR too for this session (as --add-dir: file tools and the sandbox)
  /export [FILE] write the conversation as text to FILE (or a file named for the time)
  /doctor        check the installation, settings files, MCP servers, sandbox and model endpoint
  /config [KEY VALUE]  the settings in force and their files; set KEY in ~/.claude/settings.json
  /agents [NAME] the subagents by source, or one of them (/agents create: how to add one)
  /exit, /quit   leave tether (so does Ctrl+D)"""

HELP_KEYS = """\
Keys
  Enter          send the message
  Alt+Enter      new line (or Esc then Enter); pasted text stays one message
  Up / Down      previous messages (history)
  Ctrl+R         search the history: Enter puts the match in the prompt, Esc or Ctrl+G leaves
  Ctrl+C         interrupt the agent; at an empty prompt, twice to exit
  Esc Esc        rewind: restore code and/or conversation, or summarize; clears a typed line
  Shift+Tab      next permission mode: ask before edits, accept edits, plan (also while it works);
                 at an edit's question: allow it, and all edits this session
  !command       run a shell command; its output goes to the model with the next message
  @path          mention a file (Tab completes): the model gets it read
  Ctrl+D         exit"""

BUILTIN_COMMANDS = (
    "/help",
    "/cost",
    "/todos",
    "/compact",
    "/resume",
    "/clear",
    "/rewind",
    "/checkpoint",
    "/model",
    "/status",
    "/permissions",
    "/context",
    "/hooks",
    "/output-style",
    "/statusline",
    "/mcp",
    "/init",
    "/memory",
    "/add-dir",
    "/export",
    "/doctor",
    "/config",
    "/agents",
    "/exit",
    "/quit",
)
"""They win over a skill of the same name."""


_HELP_LINE = re.compile(r"  (?P<names>/[a-z-]+(?:, /[a-z-]+)*)(?: \[?[A-Z][^ ]*)*\s+(?P<about>.*)")


def slash_names(ready: Ready | None) -> list[tuple[str, str]]:
    """What `/` completes to at the prompt, with a few words on each: the built-in commands,
    then (once the session is built) its skills and its other commands (custom, plugins',
    MCP servers' prompts), each name once."""
    names: dict[str, str] = {}
    for line in HELP_COMMANDS.splitlines():
        listed = _HELP_LINE.fullmatch(line)
        if listed is None:
            continue
        for name in listed["names"].split(", "):
            if name in BUILTIN_COMMANDS:
                names[name] = " ".join(listed["about"].split())
    if ready is not None:
        for skill in ready.session.skills.listed():
            about = " ".join(skill.description.split())
            names.setdefault(f"/{skill.name}", about if len(about) <= 60 else about[:59] + "…")
        for name, about in command_summaries(ready.session).items():
            names.setdefault(f"/{name}", about)
    return list(names.items())


def command_summaries(session: Session) -> dict[str, str]:
    """The session's other commands (custom, plugins', MCP servers' prompts) by name, sorted,
    each with a few words: its argument hint and description, as the `/` menu and `/help`
    show them."""
    summaries: dict[str, str] = {}
    for name in sorted(session.commands):
        info = session.command_info.get(name)
        if info is None:
            summaries[name] = "MCP prompt"
            continue
        described = " ".join(info.description.split())
        about = f"{info.argument_hint}  {described}".strip()
        summaries[name] = _short(about) or "custom command"
    return summaries


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:59] + "…"


def skill_message(skill: Skill, args: str) -> str:
    """The user message that runs `skill` with `args`: a line naming the skill and how it was
    asked for, then its instructions (arguments filled in). Raises SkillError when the skill
    can no longer be read."""
    from tether.skills import load_skill_body

    command = f"/{skill.name} {args}".rstrip()
    first = f'The user ran the skill "{skill.name}" by typing: {command}'
    return f"{first}\n\n{load_skill_body(skill, args or None)}"


def unknown_command(skills: SkillCatalog, name: str) -> str:
    """What the REPL says of `/name` that runs nothing: a skill still waiting for a file its
    `paths` match is named as one (Claude Code hides it until then)."""
    skill = skills.get(name[1:])
    if skill is not None and skills.waiting(skill):
        globs = ", ".join(skill.paths or ())
        return (
            f"{name} is a skill for files matching {globs}: it can be run once such a file "
            "is read or edited."
        )
    return f"Unknown command {name}. Type /help for the commands."


def describe_help(skills: SkillCatalog | None, prompts: Mapping[str, str] | None = None) -> Text:
    """What /help prints: the commands, the skills, the custom commands and MCP prompts that
    run as commands (`prompts`: each with what it does, `command_summaries`), the keys."""
    text = Text(HELP_COMMANDS + "\n\n")
    runnable = (
        [s for s in skills.listed() if f"/{s.name}" not in BUILTIN_COMMANDS] if skills else []
    )
    if runnable:
        text.append("Skills (/name, then optional arguments)\n")
        column = max(17, *(len(s.name) + 5 for s in runnable))  # where HELP's text starts
        for skill in runnable:
            summary = " ".join(skill.description.split())
            summary = summary if len(summary) <= 60 else summary[:59] + "…"
            text.append(f"  /{skill.name}".ljust(column) + f"{summary}\n")
        text.append("\n")
    if prompts:
        text.append("Custom commands and MCP server prompts (/name, then arguments)\n")
        column = max(17, *(len(name) + 5 for name in prompts))
        for name, about in sorted(prompts.items()):
            text.append(f"  /{name}".ljust(column) + f"{about}\n")
        text.append("\n")
    text.append(HELP_KEYS)
    return text


def print_banner(console: Console, workspace: Path) -> None:
    title = Text("✻ ", style="bold cyan")
    title.append(f"tether {__version__}", style="bold")
    console.print(title)
    console.print(Text(f"  workspace  {shorten_home(workspace)}", style="dim"))
    console.print(Text(f"  {KEYS_HINT}", style="dim"))
    console.line()


def shorten_home(path: Path | str) -> str:
    """A path as the user reads it best: under the home directory, from `~`."""
    try:
        return "~/" + str(Path(path).relative_to(Path.home()))
    except ValueError:
        return str(path)
