"""What a custom command's text does before it is sent, as Claude Code does it: each
``!`command` `` is run with the Bash tool under the command's `allowed-tools` (and the session's
rules, hooks and sandbox) and replaced by its output; and UserPromptExpansion hooks are told of
every `/command` that expands (a custom command, a skill, an MCP server's prompt), may add
context to it, or block it."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from tether.protocol import ConfigError

if TYPE_CHECKING:
    from tether.core.session import Session
    from tether.protocol import Event, PermissionAnswer, PermissionAsked

BANG = re.compile(r"!`([^`\n]+)`")
"""``!`command` ``: a shell command whose output replaces it."""


async def run_bang_commands(session: Session, name: str, text: str) -> str:
    """`text` with each ``!`command` `` replaced by what the command printed. A command the
    rules do not allow (nobody is asked: the command's `allowed-tools` must allow it) is a
    ConfigError naming it; one that fails is replaced by its error, as the model would read it."""
    from tether.core.tool_calls import run_call
    from tether.protocol import PermissionAnswer, PermissionDenial, ToolUseBlock

    async def nobody_asked(request: PermissionAsked) -> PermissionAnswer:
        return PermissionAnswer(request_id=request.request_id, choice="deny")

    def ignore(_event: Event) -> None:
        pass

    outputs: list[str] = []
    for match in BANG.finditer(text):
        command = match.group(1).strip()
        call = ToolUseBlock(
            id=f"cmd_{uuid.uuid4().hex[:12]}", name="Bash", input={"command": command}
        )
        denials: list[PermissionDenial] = []
        result = await run_call(session.agent, call, ignore, nobody_asked, denials)
        if denials:
            raise ConfigError(
                f"/{name}: !`{command}` is not allowed: {denials[0].reason} (a command's "
                "allowed-tools front matter allows what its shell commands need, e.g. "
                f"Bash({command.split()[0]} *))"
            )
        outputs.append(result.block.content)
    replies = iter(outputs)
    return BANG.sub(lambda _m: next(replies), text)


async def expansion_hooks(
    session: Session, name: str, args: str, prompt: str, emit: Callable[[Event], None]
) -> str:
    """UserPromptExpansion for `/name args` expanding to `prompt`: the prompt to send (with
    what the hooks added); a ConfigError saying why when a hook blocks it."""
    from tether.core.lifecycle import reminder, surface

    gate = session.agent.gate
    hooks = gate.hooks if gate is not None else None
    if hooks is None or not hooks.has("UserPromptExpansion"):
        return prompt
    info = session.command_info.get(name)
    skill = session.skills.runnable(name)
    if info is not None:
        kind, source = "slash_command", info.source
    elif skill is not None:
        kind, source = "slash_command", "skills"
    else:
        kind, source = "mcp_prompt", "mcp"
    payload = {
        "expansion_type": kind,
        "command_name": name,
        "command_args": args,
        "command_source": source,
        "prompt": prompt,
    }
    outcome = await hooks.fire("UserPromptExpansion", payload, match=name)
    surface(outcome, emit)
    if outcome.blocked or outcome.stop:
        why = outcome.reason or outcome.stop_reason or "no reason given"
        raise ConfigError(f"/{name} was blocked by a UserPromptExpansion hook: {why}")
    if outcome.additional_context:
        added = "\n\n".join(reminder(c) for c in outcome.additional_context)
        return f"{prompt.rstrip()}\n\n{added}\n"
    return prompt
