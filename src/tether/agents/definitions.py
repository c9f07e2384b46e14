"""What a subagent is: its definition, the catalog of those a session offers, the name rule."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from tether.slotted import Slotted, replaced

if TYPE_CHECKING:
    from tether.hooks.spec import HookSpec

TASK_TOOL_NAME = "Task"
"""The tool that starts subagents (Claude Code also calls it Agent)."""
MAX_NAME_CHARS = 200
NAME_RULE = f"printable text without ':', at most {MAX_NAME_CHARS} characters"
"""What an agent's name may be, as Claude Code loads them (`Explore`, `code-reviewer`,
`api.designer`, `Code Reviewer`); `:` is kept for a plugin's agents (`plugin:agent`), and
Claude Code does not load an agent file whose name has one."""


def is_valid_agent_name(name: str) -> bool:
    """Whether `name` keeps `NAME_RULE`, and has no space at either end."""
    return (
        0 < len(name) <= MAX_NAME_CHARS
        and name.isprintable()
        and ":" not in name
        and name == name.strip()
    )


ALL_TOOLS = "*"
"""In a definition's `tools`, every tool of the parent's (as Claude Code reads `tools: "*"`)."""


def offered_tools(names: tuple[str, ...]) -> tuple[str, ...] | None:
    """A definition's `tools` as `AgentDefinition.tools` holds them: None (all of the parent's)
    when they name `*`."""
    return None if ALL_TOOLS in names else names


class AgentDefinition(Slotted):
    """One kind of subagent, built in or read from `<dir>/agents/<file>.md`."""

    __slots__ = (
        "description",
        "disallowed_tools",
        "hooks",
        "max_turns",
        "model",
        "name",
        "path",
        "permission_mode",
        "read_only",
        "system_prompt",
        "tools",
    )
    name: Final[str]
    """What the model passes as the Task tool's `subagent_type`."""
    description: Final[str]
    """When to use it: listed in the Task tool's description."""
    system_prompt: Final[str]
    """The Markdown body of its file; the environment section is added when it runs."""
    tools: Final[tuple[str, ...] | None]
    """The parent's tools it may use, by name; None for all of them."""
    disallowed_tools: Final[tuple[str, ...]]
    """Tools taken away from those above (`disallowedTools`)."""
    model: Final[str | None]
    """A model alias for the session to resolve; None (or `inherit`) runs the parent's model."""
    max_turns: Final[int | None]
    """Its own cap on model calls (`maxTurns`), within the runner's."""
    read_only: Final[bool]
    """Runs in the permission engine's plan mode, whatever the parent's mode."""
    permission_mode: Final[str | None]
    """The engine's mode it runs in (`acceptEdits`, `dontAsk`...): set only for an agent the
    SDK program defines (`AgentDefinition(permissionMode=...)`), never from a file, so that a
    cloned repository cannot grant its agents more than the session has. None: the parent's."""
    path: Final[Path | None]
    """The file it came from; None for a built-in."""
    hooks: Final[tuple[HookSpec, ...]]
    """Its front matter's `hooks`: they run for this agent's calls only, beside the session's
    (a `Stop` hook fires as SubagentStop, as in Claude Code)."""

    def __init__(
        self,
        name: str,
        description: str,
        system_prompt: str,
        tools: tuple[str, ...] | None = None,
        disallowed_tools: tuple[str, ...] = (),
        model: str | None = None,
        max_turns: int | None = None,
        read_only: bool = False,
        permission_mode: str | None = None,
        path: Path | None = None,
        hooks: tuple[HookSpec, ...] = (),
    ) -> None:
        self.name = name
        self.description = description
        self.system_prompt = system_prompt
        self.tools = tools
        self.disallowed_tools = disallowed_tools
        self.model = model
        self.max_turns = max_turns
        self.read_only = read_only
        self.permission_mode = permission_mode
        self.path = path
        self.hooks = hooks


class UnusableAgent(Slotted):
    """An agent file that was found but is not offered, and why."""

    __slots__ = ("path", "reason")
    path: Final[Path]
    reason: Final[str]

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason


class AgentCatalog(Slotted):
    """The subagents a session offers, sorted by name, and the files that could not be read."""

    __slots__ = ("agents", "unusable")
    agents: Final[tuple[AgentDefinition, ...]]
    unusable: Final[tuple[UnusableAgent, ...]]

    def __init__(
        self, agents: tuple[AgentDefinition, ...], unusable: tuple[UnusableAgent, ...] = ()
    ) -> None:
        self.agents = agents
        self.unusable = unusable

    def get(self, name: str) -> AgentDefinition | None:
        return next((agent for agent in self.agents if agent.name == name), None)

    def names(self) -> tuple[str, ...]:
        return tuple(agent.name for agent in self.agents)

    def hooks_only_where(self, admitted: Callable[[AgentDefinition], bool]) -> AgentCatalog:
        """The catalog with the hooks of the agents not `admitted` taken out (an untrusted
        workspace's agent files, `disableAllHooks`)."""
        agents = tuple(
            agent if not agent.hooks or admitted(agent) else replaced(agent, hooks=())
            for agent in self.agents
        )
        return AgentCatalog(agents, self.unusable)

    def notices(self) -> list[str]:
        """One line per unusable file, to tell the user at start-up."""
        return [f"agent {u.path} is unusable: {u.reason}" for u in self.unusable]
