"""The Task tool: what the model sees of subagents, handing each call to the runner."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from tether.agents.builtin import BUILTIN_AGENTS
from tether.agents.definitions import TASK_TOOL_NAME
from tether.agents.listing import agent_line
from tether.agents.runner import SubagentRunner
from tether.core.tool_calls import current_call
from tether.protocol import ToolError
from tether.tools.base import Tool, ToolOutput
from tether.tools.context import ToolContext

if TYPE_CHECKING:
    from tether.agents.task_input import TaskInput

TASK_INPUT = "tether.agents.task_input:TaskInput"
"""The Task tool's input model, imported at its first call (its schema is stored)."""

_GUIDANCE = """\
Start a subagent: a fresh agent with its own context that works on one task with its own tools \
and returns only its final answer. Use it for open-ended searches, research and self-contained \
pieces of work whose intermediate steps would crowd this conversation. For a lookup of a known \
file or symbol, use Read, Glob or Grep yourself: it is faster.

How to use it:
- The subagent sees nothing of this conversation. Its prompt must carry everything it needs \
(the goal, paths, constraints, what you already know) and say exactly what to report back.
- To run several at once, call Agent several times in the same response.
- Its answer is for you, not the user: pass on what matters in your own words.
- Its answer can be wrong, like any other: check what is critical before relying on it.
- Say whether it should only research or also change files, since it cannot ask you.

Agent types (subagent_type):"""

_OTHERS = "Other agent types, when there are any, are listed in <system-reminder> messages in \
the conversation."


SpawnTeammate = Callable[[str, str, str, str, bool], Awaitable[ToolOutput]]
"""Start a teammate: (team, name, agent type, prompt, plan mode) -> the tool's result."""


def task_description() -> str:
    """The tool's description: the same whatever agents there are, since it is part of the
    cached prefix. It names the built-in agents; the others (and a built-in one a file
    redefines) are listed in the conversation (`agent_listing`), as Claude Code lists them."""
    lines = [_GUIDANCE, *(agent_line(agent) for agent in BUILTIN_AGENTS), _OTHERS]
    return "\n".join(lines)


def task_tool(runner: SubagentRunner, spawn: SpawnTeammate | None = None) -> Tool:
    """The Task tool of a session (its agent types are told by `agent_listing`); with
    `team_name` and `name`, it starts a teammate through `spawn` (a session that leads a
    team)."""

    async def task(ctx: ToolContext, args: TaskInput) -> ToolOutput:
        if args.team_name is not None or args.name is not None:
            if args.team_name is None or args.name is None:
                raise ToolError("a teammate needs both team_name and name")
            if spawn is None:
                raise ToolError(
                    "this session cannot start teammates (agent teams are off, or it is a "
                    "teammate itself)"
                )
            if runner.catalog.get(args.subagent_type) is None:
                names = ", ".join(runner.catalog.names())
                raise ToolError(f"no agent type {args.subagent_type!r} (types: {names})")
            plan = args.mode == "plan"
            return await spawn(args.team_name, args.name, args.subagent_type, args.prompt, plan)
        if args.mode is not None:
            raise ToolError("mode is for a teammate (with team_name and name)")
        scope = current_call.get()
        if scope is None:
            raise ToolError("Task can only run inside an agent's loop.")
        if args.run_in_background:
            return runner.start_in_background(
                args.subagent_type, args.description, args.prompt, scope
            )
        return await runner.run(args.subagent_type, args.prompt, scope)

    return Tool(TASK_TOOL_NAME, task_description(), TASK_INPUT, task, read_only=False)
