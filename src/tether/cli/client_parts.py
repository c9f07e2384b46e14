"""What a program driving tether over the control protocol (a Claude Agent SDK client) brings
to the session it starts: hooks whose callbacks it runs, subagent definitions, MCP servers it
serves itself, a filter on skills; and the parts of the session built from them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

from tether.agents import AgentCatalog
from tether.agents.definitions import (
    NAME_RULE,
    AgentDefinition,
    is_valid_agent_name,
    offered_tools,
)
from tether.core import turn_stop
from tether.hooks import HookActivity, HookSpec
from tether.protocol import ConfigError, ToolError, ToolFinished
from tether.skills import SkillCatalog
from tether.tools.base import ANY_ARGUMENTS, Tool
from tether.tools.context import ToolContext

if TYPE_CHECKING:
    import jsonschema

    from tether.hooks import HookCallback
    from tether.mcp.client_side import Elicit
    from tether.mcp.servers import JsonRpcExchange
    from tether.tools.any_arguments import AnyArguments

DEFAULT_TOOLS = "default"
"""`--tools default`: every built-in tool."""
TOOL_ALIASES = {"Agent": "Task"}
"""Claude Code's other names for tether's tools."""


@dataclass
class ClientParts:
    """The client's side of a session; empty for a session nobody drives remotely."""

    hooks: tuple[HookSpec, ...] = ()
    """Callback hooks (`hookCallbackIds` of its `initialize` request)."""
    hook_callback: HookCallback | None = None
    """Runs them (a `hook_callback` request to the client)."""
    hook_watchers: list[Callable[[HookActivity], None]] = field(
        default_factory=list[Callable[[HookActivity], None]]
    )
    """Told of every hook as it runs (`--include-hook-events`)."""
    agents: tuple[AgentDefinition, ...] = ()
    """Subagent definitions; they replace files' definitions of the same name."""
    mcp_exchange: JsonRpcExchange | None = None
    """Carries JSON-RPC to the client's own MCP servers (`"type": "sdk"`)."""
    elicit: Elicit | None = None
    """Shows an MCP server's form to the client's user (an `elicitation` request)."""
    skills: tuple[str, ...] | None = None
    """Only these skills are offered (None: all that were found)."""


def client_agents(block: Mapping[str, Any]) -> tuple[AgentDefinition, ...]:
    """The `agents` of an `initialize` request: `{name: {description, prompt, tools,
    disallowedTools, model, maxTurns, permissionMode}}`. Raises `ConfigError` naming the bad key."""
    found: list[AgentDefinition] = []
    for name, entry in block.items():
        key = f"agents.{name}"
        if not is_valid_agent_name(name):
            raise ConfigError(f"the client's {key}: a name must be {NAME_RULE}")
        if not isinstance(entry, dict):
            raise ConfigError(f"the client's {key}: must be an object")
        entry = cast(dict[str, Any], entry)
        description, prompt = entry.get("description"), entry.get("prompt")
        if not isinstance(description, str) or not description.strip():
            raise ConfigError(f"the client's {key}.description: must be a non-empty string")
        if not isinstance(prompt, str):
            raise ConfigError(f"the client's {key}.prompt: must be a string")
        model = entry.get("model")
        max_turns = entry.get("maxTurns")
        found.append(
            AgentDefinition(
                name=name,
                description=description.strip(),
                system_prompt=prompt,
                tools=_names(entry, "tools", key),
                disallowed_tools=_names(entry, "disallowedTools", key) or (),
                model=model if isinstance(model, str) and model != "inherit" else None,
                max_turns=max_turns if isinstance(max_turns, int) and max_turns > 0 else None,
                read_only=entry.get("permissionMode") == "plan",
                permission_mode=_mode(entry.get("permissionMode"), key),
            )
        )
    return tuple(found)


CLIENT_AGENT_MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions", "auto")


def _mode(value: object, key: str) -> str | None:
    """A programmatic agent's `permissionMode` as the engine names it (None: the parent's)."""
    if value is None:
        return None
    if value not in CLIENT_AGENT_MODES:
        expected = ", ".join(CLIENT_AGENT_MODES)
        raise ConfigError(
            f"the client's {key}.permissionMode: {value!r} is not a mode (expected {expected})"
        )
    from tether.cli.claude_flags import engine_mode

    return cast(str, engine_mode(cast(str, value)))


def with_client_agents(catalog: AgentCatalog, agents: Sequence[AgentDefinition]) -> AgentCatalog:
    """The catalog with the client's definitions, which win by name."""
    if not agents:
        return catalog
    chosen = {agent.name: agent for agent in catalog.agents}
    chosen.update((agent.name, agent) for agent in agents)
    ordered = tuple(sorted(chosen.values(), key=lambda agent: agent.name.lower()))
    return AgentCatalog(ordered, catalog.unusable)


def chosen_tools(tools: Sequence[Tool], names: Collection[str] | None) -> list[Tool]:
    """`--tools`: the base set of tools offered. None or `default` keeps them all; an empty
    list keeps none (MCP tools, added later, are not affected)."""
    if names is None or DEFAULT_TOOLS in names:
        return list(tools)
    wanted = {TOOL_ALIASES.get(name, name) for name in names}
    return [tool for tool in tools if tool.name in wanted]


def only_skills(catalog: SkillCatalog, names: Collection[str] | None) -> SkillCatalog:
    """The skills the client allows (None: all of them)."""
    if names is None:
        return catalog
    return replace(catalog, skills=tuple(s for s in catalog.skills if s.name in names))


STRUCTURED_OUTPUT_TOOL = "StructuredOutput"
STRUCTURED_OUTPUT_PROMPT = (
    f"When you have the final answer, give it by calling the {STRUCTURED_OUTPUT_TOOL} tool "
    "exactly once, with the answer as its input; its schema is the format the user needs."
)


STRUCTURED_OUTPUT_OWED = (
    f"[structured-output-enforce] You MUST call the {STRUCTURED_OUTPUT_TOOL} tool to complete "
    "this request. Call this tool now."
)
"""Claude Code's words to a model that ended its turn without giving the structured answer."""
MAX_STRUCTURED_OUTPUT_ATTEMPTS = 5
"""Answers that do not fit the schema a turn may give before it ends in error, as Claude Code:
`error_max_structured_output_retries`, never a success without the answer."""


class StructuredOutput:
    """`--json-schema`: the tool the model gives its final answer with, as Claude Code's
    structured output does. An answer that does not fit the schema goes back to the model; one
    that fits ends the turn (no model call after it); a turn the model ends without one is sent
    back to it (`owed`, a session answer check). After `MAX_STRUCTURED_OUTPUT_ATTEMPTS` answers
    that do not fit in one turn, the turn ends in error."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = dict(schema)
        self._answered = False
        self._misfits: tuple[object, int] = (None, 0)
        """The turn (its stop record) and how many answers in it did not fit."""

    def tool(self) -> Tool:
        async def answer(ctx: ToolContext, args: AnyArguments) -> str:
            import jsonschema  # the MCP SDK's dependency; only when an answer is checked

            try:
                jsonschema.validate(args.arguments(), self.schema)
            except jsonschema.ValidationError as e:
                raise ToolError(self._misfit(e)) from None
            self._answered = True
            turn_stop.request_stop()  # the task is done: nothing more to ask the model
            return "Structured output provided successfully"

        return Tool(
            STRUCTURED_OUTPUT_TOOL,
            "Return your final answer in the requested structured format. Call this exactly "
            "once, at the end.",
            ANY_ARGUMENTS,
            answer,
            read_only=True,
            schema=self.schema,
        )

    def _misfit(self, error: jsonschema.ValidationError) -> str:
        """The tool's error for an answer that does not fit (Claude Code's words); at the limit
        the turn is ended in error as well."""
        where = "/" + "/".join(str(p) for p in error.absolute_path)
        said = f"Output does not match required schema: {where}: {error.message}"
        turn = turn_stop.record()
        count = self._misfits[1] + 1 if self._misfits[0] is turn else 1
        self._misfits = (turn, count)
        if count >= MAX_STRUCTURED_OUTPUT_ATTEMPTS:
            given_up = (
                f"Failed to provide valid structured output after {count} attempts \u2014 "
                f"last {STRUCTURED_OUTPUT_TOOL} error: {said}"
            )
            turn_stop.request_stop(failed=("error_max_structured_output_retries", given_up))
        return said

    def owed(self) -> str | None:
        """At the end of a turn: the reminder when no answer was given in it (then the check
        starts over for the next turn)."""
        if self._answered:
            self._answered = False
            return None
        return STRUCTURED_OUTPUT_OWED


def _names(entry: Mapping[str, Any], field_name: str, key: str) -> tuple[str, ...] | None:
    value = entry.get(field_name)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in cast(list[Any], value)):
        raise ConfigError(f"the client's {key}.{field_name}: must be a list of tool names")
    names = tuple(TOOL_ALIASES.get(v, v) for v in cast(list[str], value))
    return offered_tools(names) if field_name == "tools" else names


def appended(append: str | None, json_schema: object) -> str | None:
    """What goes at the end of the system prompt: the user's addition, and how to give a
    structured answer when one is asked for."""
    parts = [append or "", STRUCTURED_OUTPUT_PROMPT if json_schema else ""]
    return "\n\n".join(p for p in parts if p) or None


def structured_answer(
    calls: Mapping[str, tuple[str, dict[str, Any]]], finished: Mapping[str, ToolFinished]
) -> dict[str, Any] | None:
    """The input of the turn's last accepted StructuredOutput call (`--json-schema`), from its
    calls (name and input by call id) and their ends."""
    answers = [
        tool_input
        for call_id, (name, tool_input) in calls.items()
        if name == STRUCTURED_OUTPUT_TOOL
        and (done := finished.get(call_id)) is not None
        and not done.is_error
    ]
    return answers[-1] if answers else None
