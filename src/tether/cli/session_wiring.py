"""A session opened on what `tether.cli.setup` made it of, and everything attached to it once
open: the ledger, memory, late hooks, the task board and the lead, instruction sources,
custom commands, observation, MCP servers; and the notices said as it starts."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from tether.agents import AgentCatalog, agent_listing
from tether.agents.definitions import TASK_TOOL_NAME
from tether.cli.agents_tool import SubagentModels
from tether.cli.built import Built as Built
from tether.cli.built import account_info
from tether.cli.client_parts import (
    ClientParts,
    StructuredOutput,
)
from tether.cli.custom_commands import attach_custom_commands, file_notices
from tether.cli.instruction_imports import ProjectInstructions
from tether.cli.instruction_sources import attach_instruction_sources
from tether.cli.late_hooks import attach_late_hooks
from tether.cli.ledger_setup import attach_ledger
from tether.cli.mcp_setup import attach_mcp
from tether.cli.memory_setup import attach_memory
from tether.cli.model_names import ModelNames
from tether.cli.model_options import (
    effort_in_force,
    resolve,
)
from tether.cli.model_switch import model_switcher, with_fallback
from tether.cli.observing import attach_observation
from tether.cli.resuming import open_session, restored_for
from tether.cli.run_options import RunOptions
from tether.cli.safety import (
    attach_builtin_handlers,
    scan_once_answered,
)
from tether.cli.session_discovery import (
    session_agents,
    session_servers,
    untrusted_warning,
)
from tether.cli.skills_on_read import skills_on_read
from tether.cli.skills_tool import unusable_notices
from tether.cli.startup_checks import (
    background_notices,
    option_notices,
    record_run,
    unknown_prices,
)
from tether.cli.status_line import status_setting
from tether.cli.system_prompt import SystemPrompt
from tether.cli.teams_tools import (
    attach_board,
    attach_lead,
)
from tether.core.lifecycle import Lifecycle
from tether.core.loop import Agent
from tether.skills import SKILL_TOOL_NAME
from tether.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from tether.agents.runner import SubagentRunner
    from tether.cli.board_resume import ResumedBoard
    from tether.cli.output_styles import OutputStyle
    from tether.cli.plugin_parts import SessionPlugins
    from tether.cli.safety import SandboxPlan
    from tether.cli.session_place import SessionPlace
    from tether.core.gate import ToolGate
    from tether.core.resume import Resumption
    from tether.models.idle import IdleLimits
    from tether.models.resolve import ResolvedModel
    from tether.skills.catalog import SkillCatalog
    from tether.skills.commands import CommandCatalog
    from tether.teams.board import TaskBoard
    from tether.teams.lead import LeadTeams
    from tether.tools.base import Tool
    from tether.tools.context import ToolContext


@dataclass
class SessionParts:
    """What `tether.cli.setup` made a session of: its model, tools and gate, instructions,
    sandbox, prompt and agent, and what it found on the way to tell of or attach later."""

    client: ClientParts
    resolved: ResolvedModel
    idle: IdleLimits | None
    session_id: str
    sessions_dir: Path
    resumption: Resumption | None
    skipped: list[str]
    plugins: SessionPlugins
    skills: SkillCatalog
    commands: CommandCatalog
    agents: AgentCatalog
    runner: SubagentRunner
    subagent_models: SubagentModels
    structured: StructuredOutput | None
    plugin_hook_notes: tuple[str, ...]
    board: TaskBoard | None
    board_env: Mapping[str, str]
    resumed_on: ResumedBoard | None
    lead: LeadTeams | None
    gate: ToolGate
    base_tools: list[Tool]
    instructions: ProjectInstructions
    extra_dirs: tuple[Path, ...]
    sandbox: SandboxPlan
    registry: ToolRegistry
    memory_notes: list[str]
    memory_pieces: list[str]
    style: OutputStyle | None
    style_warning: str | None
    system: SystemPrompt
    tool_context: ToolContext
    agent: Agent


def open_built(opts: RunOptions, place: SessionPlace, parts: SessionParts) -> Built:
    """The session opened (new or resumed) on `parts`, with everything attached to it: the
    ledger, memory, hooks, board and lead, instructions, commands, observation and MCP
    servers; and the start-up notices of all that was found on the way."""
    start, workspace, settings_root, home = (
        place.start,
        place.workspace,
        place.settings_root,
        place.home,
    )
    user_home, trust, owners = place.user_home, place.trust, place.owners
    settings, env = place.settings, place.env
    restored = restored_for(parts.resumption, parts.resolved)
    if restored is not None:
        parts.tool_context.todos = restored.todos
    session = open_session(
        parts.agent,
        opts,
        parts.session_id,
        parts.resumption,
        restored,
        lifecycle=Lifecycle(
            parts.gate.hooks,
            source=opts.start_source or ("resume" if parts.resumption else "startup"),
            setup_trigger=opts.setup_trigger,
            on_env=lambda found: setattr(
                parts.tool_context, "env", {**parts.tool_context.env, **found}
            ),
        ),
        sessions_dir=parts.sessions_dir,
        workspace=workspace,
        env=env,
    )
    if opts.goes_on_from is not None:
        session.lifecycle.go_on_from(opts.goes_on_from)
    attach_ledger(
        session,
        home=home,
        env=env,
        info=parts.resolved.info,
        project=settings_root,
        board=parts.board,
    )
    offer = parts.resumption is None
    attach_memory(
        session,
        parts.tool_context,
        home=home,
        project=settings_root,
        env=env,
        offer=offer,
        file_pieces=parts.memory_pieces,
    )
    parts.agent.inputs.append(lambda: background_notices(parts.tool_context))
    attach_late_hooks(session)
    if any(skill.paths is not None for skill in parts.skills.skills):
        parts.agent.inputs.append(skills_on_read(parts.tool_context, parts.skills, start))
    attach_instruction_sources(
        session,
        parts.instructions.current,
        read_denied=parts.gate.read_denied,
        workspace=workspace,
        settings_root=settings_root,
        home=home,
        user_home=user_home,
        trusted=trust.trusted,
        subagents=parts.runner,
    )
    session.on_close.extend((parts.tool_context.background.kill_all, parts.subagent_models.aclose))
    resumed = parts.resumption.loaded.path if parts.resumption is not None else None
    attach_board(
        parts.board,
        session,
        parts.board_env,
        resumed,
        parts.resumed_on.task if parts.resumed_on else None,
    )
    if parts.resumed_on is not None:
        session.startup_notices.extend(parts.resumed_on.notes)
    attach_lead(parts.lead, session, resumed)
    session.startup_notices.extend(parts.skipped)
    session.startup_notices.extend(record_run(parts.tool_context, session, home, opts.kept_run))
    session.startup_notices.extend(unknown_prices(opts, parts.resolved))
    session.startup_notices.extend(f"trust: {p}" for p in trust.problems)
    file_notices(session, settings.notes)
    offered, rules = [t.name for t in parts.base_tools], parts.gate.permissions.rules
    notices = option_notices(
        opts,
        parts.resolved,
        offered,
        parts.registry.names(),
        rules,
        (parts.agent.thinking_budget or 0, parts.agent.max_tokens),
    )
    session.startup_notices.extend(notices)
    if parts.gate.hooks is not None:
        parts.gate.hooks.effort = lambda: effort_in_force(parts.agent, parts.resolved)
    session.startup_notices.extend(parts.memory_notes)
    session.startup_notices.extend([parts.style_warning] if parts.style_warning else [])
    if parts.sandbox.sandbox is not None:
        # After the background commands stopped: the placeholders go with the session.
        session.on_close.append(functools.partial(asyncio.to_thread, parts.sandbox.sandbox.close))
        scan_once_answered(session, parts.sandbox.sandbox)
    if parts.sandbox.notice is not None:
        session.startup_notices.append(parts.sandbox.notice)
    file_notices(session, parts.agents.notices())
    if session.agent.tools.get(TASK_TOOL_NAME) is not None:
        # The agent types, in a reminder (as Claude Code's agent listing): the Task tool's
        # description stays the same whatever agents there are.
        session.listings.append(lambda: agent_listing(parts.runner.catalog))
    session.startup_notices.extend(parts.instructions.notices())
    session.startup_questions.extend(parts.instructions.questions())
    parts.system.follow_instructions(parts.agent, parts.runner)
    file_notices(session, unusable_notices(parts.skills))
    if SKILL_TOOL_NAME in parts.registry.names():
        session.skills = parts.skills
    attach_custom_commands(
        session,
        parts.commands,
        grant=parts.gate.grant_for_turn,
        needs_trust=lambda path: not trust.trusted and owners.needs_trust(path),
    )
    attach_builtin_handlers(session, settings, workspace=workspace)
    record_event = attach_observation(
        session,
        settings,
        workspace=workspace,
        home=home,
        env=env,
        subagents=parts.runner,
        provider=parts.resolved.provider.name,
        board=parts.board,
    )
    window = parts.resolved.info.context_window
    if opts.kept_mcp is not None:  # `/clear`: the servers as they are, not started again
        mcp, problems = opts.kept_mcp, list[str]()
    else:
        mcp, problems = session_servers(
            place, opts, parts.client, parts.plugins, window=window, roots=parts.extra_dirs
        )
    session.startup_notices.extend(f"MCP: {p}" for p in problems)
    file_notices(session, parts.plugins.notices)
    session.startup_notices.extend(parts.plugin_hook_notes)
    if (warning := untrusted_warning(place, opts)) is not None:
        session.startup_notices.append(warning)
    attach_mcp(session, mcp, settings, parts.system.text)
    if parts.gate.hooks is not None:  # the judged hooks' code: with a hook only
        from tether.cli.hook_judges import attach_hook_judges

        attach_hook_judges(parts.gate, parts.agent, parts.subagent_models, parts.client)
    if parts.structured is not None:
        session.answer_checks.append(parts.structured.owed)
    names = ModelNames(parts.resolved)
    session.switch_model = model_switcher(
        names,
        parts.agent,
        opts.model,
        env,
        settings,
        resolve,
        parts.idle,
        parts.subagent_models.max_tokens_cap,
    )
    if opts.fallback_model is not None:
        parts.agent.model = with_fallback(parts.agent, session.switch_model, opts.fallback_model)
    key_source = (parts.resolved.provider.key_env or "none") if parts.resolved.api_key else "none"
    account = account_info(parts.resolved.provider.name, key_source, env)
    if parts.lead is not None:
        parts.lead.events.append(record_event)
    built = Built(
        session,
        mcp,
        parts.agents,
        key_source,
        parts.lead,
        parts.plugins,
        parts.board,
        account,
        record_event,
        parts.instructions,
    )

    def reread_agents() -> AgentCatalog:
        parts.runner.catalog = session_agents(place, parts.plugins, parts.client)
        return parts.runner.catalog

    style_name = parts.style.name if parts.style is not None else "default"
    return replace(
        built,
        status_line=status_setting(settings.data),
        output_style=style_name,
        reread_agents=reread_agents,
        provider=parts.resolved.provider.name,
        names=names,
        start_thinking_budget=parts.agent.thinking_budget,
    )
