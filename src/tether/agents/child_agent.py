"""A subagent's own `Agent`, derived from its caller's: the definition's model, tools and
prompt; the caller's workspace, permissions (narrowed as the definition says), limits and
spend. What the Task tool's runner (`tether.agents.runner`) runs its loop on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tether.agents.definitions import TASK_TOOL_NAME, AgentDefinition
from tether.core.context import BASE_PROMPT, build_system_prompt
from tether.core.loop import Agent
from tether.models.base import Model
from tether.protocol import HarnessError, ToolError, Usage
from tether.slotted import replaced
from tether.tools.base import Tool
from tether.tools.context import ToolContext
from tether.tools.file_state import FileState
from tether.tools.registry import ToolRegistry

KEPT_FOR_THE_MAIN_AGENT = frozenset({"Skill"})
"""Tools a subagent is never given: the Skill tool grants permissions through the main agent's
gate, and the skills are listed only in the main agent's prompt."""

ModelResolver = Callable[[str], tuple[Model, str]]
Limits = tuple[int, int]
"""A model's context window and the output cap its requests are made with."""


def child_agent(
    definition: AgentDefinition,
    parent: Agent,
    agent_id: str,
    depth: int,
    *,
    resolve_model: ModelResolver | None,
    price_for: Callable[[str], Callable[[Usage], float]] | None,
    limits_for: Callable[[str], Limits] | None = None,
    instructions: str,
    max_turns: int,
    max_depth: int,
) -> Agent:
    """The subagent `agent_id`'s agent, at `depth` of nesting (Task offered above
    `max_depth` only). On another model than its parent's, its calls have that model's prices
    and limits (`limits_for`: its window, which its compaction follows, and output cap).
    Raises `ToolError` when the definition's model cannot be resolved."""
    model, model_id = parent.model, parent.model_id
    if definition.model is not None and resolve_model is not None:
        try:
            model, model_id = resolve_model(definition.model)
        except HarnessError as e:
            raise ToolError(
                f"The {definition.name} agent asks for model {definition.model!r}: {e}"
            ) from None
    outer = parent.tool_context
    context = ToolContext(
        workspace=outer.workspace,
        scratch_dir=outer.scratch_dir / "subagents" / agent_id,
        extra_dirs=outer.extra_dirs,
        command_wrapper=outer.command_wrapper,
        bash_refusal=outer.bash_refusal,
        env=outer.env,
        read_denied=outer.read_denied,
        run=outer.run,
        memory=outer.memory,  # the project's memories are the subagent's too
        # Its writes are the session's to put back (Esc Esc, rewind_files): one store of
        # snapshots; the versions it has read stay its own, but the files it touches are
        # the session's to hear of (they activate conditional skills, as in Claude Code).
        files=FileState(snapshots=outer.files.snapshots, watchers=outer.files.watchers),
    )
    gate = None
    if parent.gate is not None:
        gate = parent.gate.for_subagent(
            shell_cwd=lambda: context.shell_cwd,
            read_only=definition.read_only,
            mode=definition.permission_mode,
            agent_id=agent_id,
            agent_type=definition.name,
            hooks=definition.hooks,
        )
    tools = ToolRegistry(tools_for(definition, parent.tools, depth < max_depth))
    compaction = parent.compaction
    max_tokens = parent.max_tokens
    if model_id != parent.model_id and limits_for is not None:
        window, max_tokens = limits_for(model_id)
        if compaction is not None:
            compaction = replaced(compaction, policy=replaced(compaction.policy, window=window))
    if compaction is not None:  # a subagent's summaries are not the project's memory
        compaction = replaced(compaction, memory_path=None)
    return Agent(
        model=model,
        model_id=model_id,
        system_prompt=subagent_system_prompt(
            definition, context.workspace, tools.names(), instructions
        ),
        tools=tools,
        tool_context=context,
        max_turns=min(max_turns, definition.max_turns or max_turns),
        max_tokens=max_tokens,
        thinking_budget=parent.thinking_budget,
        effort=parent.effort,
        retry=parent.retry,
        gate=gate,
        compaction=compaction,
        # Alone it may not spend more than the whole session may.
        max_budget_usd=parent.max_budget_usd,
        price=parent.price
        if model_id == parent.model_id or price_for is None
        else price_for(model_id),
        locks=parent.locks,
        # Its compaction summaries count where the parent's do (the session's spend).
        side_spend=parent.side_spend,
    )


def tools_for(definition: AgentDefinition, offered: ToolRegistry, may_nest: bool) -> list[Tool]:
    """The parent's tools the definition allows; Task only when it `may_nest`."""
    chosen: list[Tool] = []
    for name in offered.names():
        found = offered.get(name)
        if found is None or name in KEPT_FOR_THE_MAIN_AGENT or name in definition.disallowed_tools:
            continue
        if name == TASK_TOOL_NAME and not may_nest:
            continue
        if definition.tools is None or name in definition.tools:
            chosen.append(found)
    return chosen


def subagent_system_prompt(
    definition: AgentDefinition, workspace: Path, tool_names: tuple[str, ...], instructions: str
) -> str:
    """The definition's prompt, then the environment (and project instructions) exactly as the
    main agent's prompt gives them, without tether's own base instructions."""
    whole = build_system_prompt(workspace, tool_names=tool_names, instructions=instructions)
    environment = whole.removeprefix(BASE_PROMPT).lstrip("\n")
    return f"{definition.system_prompt.rstrip()}\n\n{environment}"
