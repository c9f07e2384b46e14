"""Subagents: definitions, their discovery, the runner and the Task tool that starts them."""

from tether.agents.builtin import BUILTIN_AGENTS
from tether.agents.definitions import (
    TASK_TOOL_NAME,
    AgentCatalog,
    AgentDefinition,
    UnusableAgent,
    is_valid_agent_name,
)
from tether.agents.discovery import discover_agents
from tether.agents.listing import agent_listing
from tether.agents.runner import SubagentRunner
from tether.agents.task import TASK_INPUT, task_description, task_tool

__all__ = [
    "BUILTIN_AGENTS",
    "TASK_INPUT",
    "TASK_TOOL_NAME",
    "AgentCatalog",
    "AgentDefinition",
    "SubagentRunner",
    "UnusableAgent",
    "agent_listing",
    "discover_agents",
    "is_valid_agent_name",
    "task_description",
    "task_tool",
]
