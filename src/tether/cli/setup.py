"""From options, settings and environment to a ready `Session`: the one place that wires layers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.agents import task_tool
from tether.cli import output_styles
from tether.cli.agents_tool import SubagentModels, subagent_runner
from tether.cli.board_resume import resumed_board
from tether.cli.built import Built as Built
from tether.cli.client_parts import (
    ClientParts,
    StructuredOutput,
    chosen_tools,
)
from tether.cli.early_work import resume_collection
from tether.cli.instruction_imports import ProjectInstructions
from tether.cli.memory_setup import MEMORY_OFF_ENV, memory_tools_unless_off
from tether.cli.model_options import (
    idle_limits,
    max_output_tokens,
    resolve,
    retry_policy,
    session_thinking,
    warm_meanwhile,
)
from tether.cli.model_switch import for_plan_mode
from tether.cli.plugin_parts import session_plugins
from tether.cli.resuming import new_session_id, resumption_for
from tether.cli.run_options import RunOptions
from tether.cli.safety import (
    SafetyOptions,
    added_directories,
    build_gate,
    plan_session_sandbox,
    sandboxed_tool_context,
)
from tether.cli.session_discovery import (
    session_agents,
    session_skills,
)
from tether.cli.session_place import find_place
from tether.cli.session_wiring import SessionParts, open_built
from tether.cli.skills_tool import skill_tool
from tether.cli.startup_checks import (
    project_memory,
)
from tether.cli.system_prompt import SystemPrompt
from tether.cli.teams_tools import (
    TEAMMATE_ENV,
    board_tools,
    lead_session_tools,
    session_lead,
    session_task_board,
)
from tether.cli.web_search_backend import anthropic_web_searcher, searchable
from tether.config.local_files import ignore_local_files
from tether.config.settings import sessions_home
from tether.core.compact_point import compact_point, percent_override
from tether.core.compaction import CompactionPolicy
from tether.core.compactor import Compaction
from tether.core.loop import Agent
from tether.core.session import Session
from tether.models.catalogue import cost_usd
from tether.models.output_cap import output_limit
from tether.models.resolve import build_model
from tether.sandbox import describe_limits
from tether.store import project_dir
from tether.tools.builtin import builtin_tools
from tether.tools.registry import ToolRegistry

if TYPE_CHECKING:  # resuming a session is loaded only when one is resumed
    from tether.core.resume import Resumption


def build_session(opts: RunOptions) -> Session:
    """Load settings, resolve the model and build the session. Raises `ConfigError` with a
    message fit for the user when something is missing or broken."""
    return build(opts).session


def build(opts: RunOptions) -> Built:
    """`build_session`, with what was built around the session."""
    claimed: list[Resumption] = []
    try:
        return _build(opts, claimed)
    except BaseException:
        for resumption in claimed:  # a session file it holds: let the next process have it
            if resumption.recorder is not None:
                resumption.recorder.close()
        raise
    finally:
        resume_collection()  # start-up is over: the collector a headless run paused runs again


def _build(opts: RunOptions, claimed: list[Resumption]) -> Built:
    client = opts.client or ClientParts()
    place = find_place(opts)
    start, workspace, settings_root, home = (
        place.start,
        place.workspace,
        place.settings_root,
        place.home,
    )
    user_home, trust, sources = place.user_home, place.trust, place.sources
    settings, env = place.settings, place.env
    resolved = resolve(opts.model, env, settings)
    max_tokens_cap = max_output_tokens(env, settings)  # read once: an invalid value warns
    # A task worktree's sessions are kept with its main workspace's: listed and resumed there.
    sessions_dir = project_dir(sessions_home(env), settings_root)
    skipped: list[str] = []
    resumption = resumption_for(
        opts,
        sessions_home=sessions_home(env),
        sessions_dir=sessions_dir,
        workspace=workspace,
        model_id=resolved.model_id,
        skipped=skipped,
        teammate=env.get(TEAMMATE_ENV),
        kept_with=settings_root,
    )
    if resumption is not None:
        claimed.append(resumption)
    session_id = resumption.session_id if resumption is not None else new_session_id(opts)
    transcript = sessions_dir / f"{session_id}.jsonl"
    scratch_dir = home / "scratch" / session_id
    plugins = session_plugins(settings, opts.plugin_dirs, user_home=user_home, tether_home=home)
    skills, commands = session_skills(place, plugins, client)
    # The Skill tool grants through the gate, which is built just below with it.
    skill_tools = [skill_tool(skills, lambda rules: gate.grant_for_turn(rules))]
    idle = idle_limits(env, settings)
    model = build_model(resolved, idle=idle)
    warm_meanwhile(model)
    subagent_models = SubagentModels(
        resolved,
        model,
        lambda spec: resolve(spec, env, settings),
        idle=idle,
        max_tokens_cap=max_tokens_cap,
    )
    agents = session_agents(place, plugins, client)

    runner = subagent_runner(
        agents,
        settings,
        transcript=transcript,
        workspace=workspace,
        models=subagent_models,
        instructions="",  # read below, once the rules that may refuse an import are known
    )
    structured = StructuredOutput(opts.json_schema) if opts.json_schema else None
    plugin_hooks, plugin_hook_notes = plugins.hooks()
    resumed_on = resumed_board(resumption.loaded.path, env) if resumption is not None else None
    board_env = resumed_on.env if resumed_on is not None else env
    board = session_task_board(settings, board_env, workspace=workspace, session_id=session_id)
    lead = session_lead(settings, env, workspace=workspace)
    if lead is not None and board is not None:
        lead.board_owner = board.owner
    gate, tools = build_gate(
        settings,
        SafetyOptions(
            opts.permission_mode,
            opts.allowed_tools,
            opts.disallowed_tools,
            workspace_trusted=trust.trusted,
            add_dirs=added_directories(opts.add_dirs),
            client_hooks=client.hooks,
            plugin_hooks=plugin_hooks,
            plugin_roots=tuple(plugin.root for plugin in plugins.plugins),
            agent_hooks=any(agent.hooks for agent in agents.agents),
        ),
        workspace=workspace,
        tools=[
            *chosen_tools(
                base_tools := [
                    *searchable(memory_tools_unless_off(builtin_tools(), env), resolved),
                    task_tool(runner, spawn=lead.spawn if lead is not None else None),
                    *(skill_tools if skills.skills or skills.commands else []),
                    *board_tools(board),
                    *lead_session_tools(lead),
                ],
                opts.tools,
            ),
            *([structured.tool()] if structured is not None else []),
            *opts.extra_tools,
        ],
        session_id=session_id,
        transcript_path=transcript,
        env=env,
        # Spilled command output and skills' own files are read back without asking.
        read_dirs=(scratch_dir, *(s.path.parent for s in skills.skills)),
    )
    instructions = ProjectInstructions(
        workspace,
        user_home,
        home,
        env,
        trust.trusted,
        refuse=gate.read_denied,
        cwd=start,
        admits=sources.admits,
        local_from=opts.settings_from,
    )
    runner.instructions = instructions.load().text
    extra_dirs = gate.permissions.additional_dirs
    sandbox = plan_session_sandbox(
        settings,
        workspace=workspace,
        scratch_dir=scratch_dir,
        home=user_home,
        extra_dirs=extra_dirs,
        permissions=gate.permissions,
    )
    registry = ToolRegistry(tools)
    # The memory is the main workspace's (a task worktree has none of its own: `.tether/` is
    # not in git), as its settings and local files are.
    semantic = not env.get(MEMORY_OFF_ENV) and registry.get("MemorySearch") is not None
    memory, memory_notes, memory_path, memory_pieces = project_memory(
        settings_root, sources, semantic=semantic
    )
    if any((workspace / ".tether").glob("*.local*")):
        ignore_local_files(workspace / ".tether")  # a local file the user made: out of git too

    style, style_warning = output_styles.chosen(settings.data, settings_root, user_home)
    system = SystemPrompt(
        workspace,
        start,
        opts,
        instructions,
        skills=skills.prompt_section() if skills.skills or skills.commands else "",
        memory=memory,
        sandbox=describe_limits(sandbox.sandbox) if sandbox.sandbox is not None else "",
        style=style,
    )
    tool_context = sandboxed_tool_context(
        gate,
        sandbox,
        workspace=workspace,
        scratch_dir=scratch_dir,
        extra_dirs=extra_dirs,
        cwd=start,
        env={name: env[name] for name in settings.env},
    )
    max_tokens = output_limit(max_tokens_cap, resolved.info)
    thinking_budget = session_thinking(opts.thinking_budget, env, settings, max_tokens_cap)
    window = resolved.info.context_window
    agent = Agent(
        model=model,
        model_id=resolved.model_id,
        system_prompt=system.text(registry.names()),
        system_parts=system.parts(),
        tools=registry,
        tool_context=tool_context,
        max_turns=opts.max_turns,
        max_tokens=max_tokens,
        thinking_budget=thinking_budget,
        effort=opts.effort,
        retry=retry_policy(env),
        gate=gate,
        max_budget_usd=opts.max_budget_usd,
        compaction=Compaction(
            CompactionPolicy(
                window=window,
                trigger_tokens=compact_point(window, max_tokens, percent_override(env)),
            ),
            memory_path=memory_path,
        ),
        price=lambda u: cost_usd(resolved.info, u),
    )
    agent.model = for_plan_mode(model, resolved, agent, idle)
    if resolved.provider.wire == "anthropic":
        # Its requests are the session's own: their tokens and search fees count in its cost.
        tool_context.web_search = anthropic_web_searcher(
            model, resolved.model_id, agent.spend_aside
        )
    parts = SessionParts(
        client=client,
        resolved=resolved,
        idle=idle,
        session_id=session_id,
        sessions_dir=sessions_dir,
        resumption=resumption,
        skipped=skipped,
        plugins=plugins,
        skills=skills,
        commands=commands,
        agents=agents,
        runner=runner,
        subagent_models=subagent_models,
        structured=structured,
        plugin_hook_notes=plugin_hook_notes,
        board=board,
        board_env=board_env,
        resumed_on=resumed_on,
        lead=lead,
        gate=gate,
        base_tools=base_tools,
        instructions=instructions,
        extra_dirs=extra_dirs,
        sandbox=sandbox,
        registry=registry,
        memory_notes=memory_notes,
        memory_pieces=memory_pieces,
        style=style,
        style_warning=style_warning,
        system=system,
        tool_context=tool_context,
        agent=agent,
    )
    return open_built(opts, place, parts)
