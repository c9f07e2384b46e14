"""From options, settings and environment to a ready `Session`: the one place that wires layers."""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether.agents import AgentCatalog, agent_listing, discover_agents, task_tool
from tether.agents.definitions import TASK_TOOL_NAME
from tether.cli.agents_tool import SubagentModels, subagent_runner
from tether.cli.client_parts import (
    ClientParts,
    StructuredOutput,
    appended,
    chosen_tools,
    only_skills,
    with_client_agents,
)
from tether.cli.custom_commands import attach_custom_commands
from tether.cli.early_work import resume_collection
from tether.cli.hook_judges import hook_judge
from tether.cli.instruction_imports import ProjectInstructions
from tether.cli.mcp_setup import TRUTHY, McpSetup, attach_mcp, mcp_setup
from tether.cli.model_switch import model_switcher, with_fallback
from tether.cli.nested_instructions import nested_instructions
from tether.cli.plugin_parts import SessionPlugins, session_plugins
from tether.cli.resuming import new_recorder, new_session_id, session_to_resume, tell_resumed
from tether.cli.safety import (
    SafetyOptions,
    attach_builtin_handlers,
    build_gate,
    plan_session_sandbox,
)
from tether.cli.setting_sources import SettingSources
from tether.cli.skills_tool import skill_tool, unusable_notices
from tether.cli.teams_tools import (
    TEAMMATE_ENV,
    attach_lead,
    board_tools,
    lead_session_tools,
    session_lead,
    session_task_board,
)
from tether.cli.workspace_review import (
    Ownership,
    restrict_settings,
    review_workspace,
    without_workspace_grants,
)
from tether.config.instructions import Instructions
from tether.config.local_files import ignore_local_files
from tether.config.project import project_directories, project_root
from tether.config.settings import (
    Settings,
    load_settings,
    relocated,
    sessions_home,
    settings_files,
    tether_home,
    with_layer,
)
from tether.config.trust import untrusted_notice, workspace_trust
from tether.core.compaction import CompactionPolicy
from tether.core.compactor import Compaction
from tether.core.context import build_system_prompt
from tether.core.lifecycle import Lifecycle, reminder
from tether.core.loop import Agent
from tether.core.memory import memory_for_prompt
from tether.core.model_call import RetryPolicy
from tether.core.session import Session
from tether.mcp.config import command_line_servers
from tether.models.base import Model
from tether.models.catalogue import cost_usd
from tether.models.idle import IDLE_TIMEOUT_ENV, IDLE_TIMEOUT_SETTING, IdleLimits
from tether.models.resolve import (
    BETAS_ENV,
    ResolvedModel,
    build_model,
    provider_from_settings,
    resolve_model,
)
from tether.permissions import Mode
from tether.permissions.rules import RuleSet
from tether.protocol import ConfigError, TextBlock
from tether.sandbox import describe_limits, parse_sandbox_settings, probe_soon
from tether.skills import SKILL_TOOL_NAME, discover_skills
from tether.skills.commands import discover_commands
from tether.store import project_dir
from tether.tools.base import Tool
from tether.tools.builtin import builtin_tools
from tether.tools.context import ToolContext
from tether.tools.registry import ToolRegistry
from tether.tools.run_record import RunRecord, reap_dead_runs

if TYPE_CHECKING:  # resuming a session is loaded only when one is resumed
    from tether.core.resume import Resumption
    from tether.teams.lead import LeadTeams


@dataclass
class RunOptions:
    """What the command line (or a test, or the demo) asks for."""

    cwd: Path
    model: str | None = None
    max_turns: int | None = None
    append_system_prompt: str | None = None
    settings_path: Path | None = None
    verbose: bool = False
    env: Mapping[str, str] | None = None
    permission_mode: Mode | None = None
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    max_budget_usd: float | None = None
    resume: str | None = None
    """A session id (or a unique prefix of one) to continue."""
    continue_latest: bool = False
    """Continue the newest session of this workspace."""
    persist_session: bool = True
    resume_at: str | None = None
    """`--resume-session-at`: the message of the resumed session to go on from."""
    """False: no session file is written (`--no-session-persistence`)."""
    fork: bool = False
    """With `resume` or `continue_latest`: continue in a new session that records where it
    branched, leaving the original as it was."""
    trust_workspace: bool = False
    """Run what the workspace's own files declare (hooks, servers, grants) whatever the
    recorded trust says (`--trust-workspace`, or the REPL's yes)."""
    add_dirs: tuple[Path, ...] = ()
    """`--add-dir`: more directories read and written like the workspace (and writable in the
    sandbox), with those of the `permissions.additionalDirectories` setting."""
    approved_servers: tuple[str, ...] = ()
    """The repository's MCP servers the user approved with the trust question (not asked
    about again this session)."""
    mcp_background: bool = False
    """Connect MCP servers without holding the first request (the REPL)."""
    system_prompt: str | None = None
    """`--system-prompt`: replaces tether's own instructions (environment, project
    instructions and skills are still given)."""
    settings_json: Mapping[str, Any] | None = None
    """`--settings '{...}'`: settings given inline, applied like a `--settings` file."""
    setting_sources: tuple[str, ...] | None = None
    """`--setting-sources`: which layers of settings files to read (None: all)."""
    tools: tuple[str, ...] | None = None
    """`--tools`: the built-in tools offered (None: all)."""
    mcp_configs: tuple[str, ...] = ()
    settings_from: Path | None = None
    """A task worktree's main workspace: its settings files (local ones too, which git does
    not carry into the worktree) are read for this session as if they were the worktree's
    (their `/x` rules anchored in the worktree), and the session is kept with its sessions."""
    """`--mcp-config` values: JSON strings or files of more MCP servers."""
    strict_mcp_config: bool = False
    """Only the servers of `mcp_configs`."""
    plugin_dirs: tuple[Path, ...] = ()
    """`--plugin-dir`: Claude Code plugins loaded for this session, beside those the
    settings enable."""
    session_id: str | None = None
    """The new session's id (`--session-id`)."""
    thinking_budget: int | None = None
    """Extended thinking, in tokens per response (`--max-thinking-tokens`)."""
    fallback_model: str | None = None
    """Used for good from the first call the model is overloaded (`--fallback-model`)."""
    betas: tuple[str, ...] = ()
    """Anthropic betas to send (`--betas`), beside those of `ANTHROPIC_BETAS`."""
    json_schema: Mapping[str, Any] | None = None
    """Structured output: the final answer given as JSON of this schema (`--json-schema`)."""
    client: ClientParts | None = None
    """What a client driving the session over the control protocol brings."""
    extra_tools: tuple[Tool, ...] = ()
    """Tools of whoever runs the session (a teammate's `SendMessage`), offered beside the
    built-in ones and checked by the same rules."""


@dataclass(frozen=True)
class Built:
    """A session and what a front end reporting on it needs to know."""

    session: Session
    mcp: McpSetup
    agents: AgentCatalog
    key_source: str
    """The variable the model's key came from ("none" without one)."""
    lead: LeadTeams | None = None
    """The session's team-lead side, when agent teams are on (front ends show its mail)."""
    plugins: SessionPlugins = field(default_factory=SessionPlugins)

    @property
    def context_window(self) -> int:
        """The window of the model the session uses now (it follows a model switch)."""
        compaction = self.session.agent.compaction
        return compaction.policy.window if compaction is not None else 0


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
    env = dict(os.environ if opts.env is None else opts.env)
    if opts.betas:
        env[BETAS_ENV] = ",".join((env.get(BETAS_ENV, ""), *opts.betas))
    start = opts.cwd.expanduser().resolve()
    if not start.is_dir():
        raise ConfigError(f"workspace is not a directory: {start}")
    home = tether_home(env)
    user_home = Path(env.get("HOME") or Path.home())
    # The project is the repository holding `start` (`tether.config.project`): its settings,
    # instructions, memory, sessions and trust; the rules, sandbox and tools work in it.
    workspace = project_root(start, user_home=user_home)
    # From the real environment: a settings file's `env` must not trust its own workspace.
    trust = workspace_trust(
        workspace, tether_home=home, user_home=user_home, env=env, flag=opts.trust_workspace
    )
    owners = Ownership(workspace, user_home, home)
    # Every kind of file below (settings, instructions, skills, agents, memory) is read only
    # from the sources asked for.
    sources = SettingSources.of(owners, opts.setting_sources)
    settings_root = opts.settings_from.resolve() if opts.settings_from else workspace
    settings = load_settings(
        settings_files(
            settings_root,
            home=home,
            explicit=opts.settings_path,
            admits=sources.admits,
            start=start if opts.settings_from is None else None,
        ),
        required=opts.settings_path,
    )
    if settings_root != workspace:
        settings = relocated(settings, settings_root, workspace)
    if not trust.trusted:
        settings = restrict_settings(settings, owners, explicit=opts.settings_path)
    if opts.settings_json is not None:
        # The user's choice, like a `--settings` file: applied whole, trusted or not.
        settings = with_layer(settings, INLINE_SETTINGS, opts.settings_json)
    _probe_sandbox_meanwhile(settings)
    # Settings' env fills in; the real environment (what the user typed) wins.
    env = {**settings.env, **env}
    resolved = resolve(opts.model, env, settings)
    # A task worktree's sessions are kept with its main workspace's: listed and resumed there.
    sessions_dir = project_dir(sessions_home(env), settings_root)
    skipped: list[str] = []
    path = session_to_resume(
        opts, sessions_home(env), workspace, skipped, teammate=env.get(TEAMMATE_ENV)
    )
    resumption = None
    if path is not None:
        from tether.core.resume import resume_session

        resumption = resume_session(
            path,
            fork=opts.fork,
            directory=sessions_dir,
            cwd=workspace,
            model=resolved.model_id,
            new_id=lambda: new_session_id(opts),
            at=opts.resume_at,
            persist=opts.persist_session,
        )
        claimed.append(resumption)
    session_id = resumption.session_id if resumption is not None else new_session_id(opts)
    transcript = sessions_dir / f"{session_id}.jsonl"
    scratch_dir = home / "scratch" / session_id
    below = project_directories(workspace, start)[:0:-1]  # deepest first, the root left out
    plugins = session_plugins(settings, opts.plugin_dirs, user_home=user_home, tether_home=home)
    found_skills = discover_skills(
        workspace, home=user_home, below=below, admits=sources.admits, plugins=plugins.skills()
    )
    skills = only_skills(found_skills, client.skills)
    commands = discover_commands(
        workspace, home=user_home, admits=sources.admits, plugins=plugins.commands()
    )
    # The Skill tool runs the commands the model may run, as Claude Code's does.
    skills = replace(skills, commands=commands.offered_to_model())
    if not trust.trusted:
        skills = without_workspace_grants(skills, owners)
    # The Skill tool grants through the gate, which is built just below with it.
    skill_tools = [skill_tool(skills, lambda rules: gate.grant_for_turn(rules))]
    idle = idle_limits(env, settings)
    model = build_model(resolved, idle=idle)
    _warm_meanwhile(model)
    subagent_models = SubagentModels(
        resolved, model, lambda spec: resolve(spec, env, settings), idle=idle
    )
    agents = with_client_agents(
        discover_agents(workspace, home=user_home, admits=sources.admits, plugins=plugins.agents()),
        client.agents,
    )

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
    board = session_task_board(settings, env, workspace=workspace, session_id=session_id)
    lead = session_lead(settings, env, workspace=workspace)
    gate, tools = build_gate(
        settings,
        SafetyOptions(
            opts.permission_mode,
            opts.allowed_tools,
            opts.disallowed_tools,
            workspace_trusted=trust.trusted,
            add_dirs=_added_directories(opts.add_dirs),
            client_hooks=client.hooks,
            plugin_hooks=plugin_hooks,
        ),
        workspace=workspace,
        tools=[
            *chosen_tools(
                [
                    *builtin_tools(),
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
    # The memory is the main workspace's (a task worktree has none of its own: `.tether/` is
    # not in git), as its settings and local files are.
    memory_path: Path | None = settings_root / ".tether" / "memory.md"
    registry = ToolRegistry(tools)
    memory, memory_notes, memory_whole = "", list[str](), True
    if sources.admits(settings_root / ".tether" / "memory.md"):
        memory, memory_notes, memory_whole = _memory(settings_root / ".tether" / "memory.md")
    else:
        memory_path = None  # the project's file, and the project's files are not read
    if not memory_whole:
        memory_path = None  # what could not be read whole must not be rewritten
    if any((workspace / ".tether").glob("*.local*")):
        ignore_local_files(workspace / ".tether")  # a local file the user made: out of git too

    def prompt_for(tool_names: Sequence[str]) -> str:
        return build_system_prompt(
            workspace,
            tool_names=tool_names,
            append=appended(opts.append_system_prompt, opts.json_schema),
            instructions=instructions.current.text,
            skills=skills.prompt_section() if skills.skills or skills.commands else "",
            memory=memory,
            sandbox=describe_limits(sandbox.sandbox) if sandbox.sandbox is not None else "",
            base=opts.system_prompt,
            cwd=start,
        )

    tool_context = ToolContext(
        workspace=workspace,
        scratch_dir=scratch_dir,
        extra_dirs=extra_dirs,
        cwd=start,
        env={name: env[name] for name in settings.env},
    )
    if sandbox.sandbox is not None:
        tool_context.command_wrapper = sandbox.sandbox.wrap
        gate.permissions = replace(gate.permissions, bash_sandboxed=True)
    tool_context.bash_refusal = sandbox.bash_refusal
    gate.shell_cwd = lambda: tool_context.shell_cwd
    tool_context.read_denied = gate.read_denied
    agent = Agent(
        model=model,
        model_id=resolved.model_id,
        system_prompt=prompt_for(registry.names()),
        tools=registry,
        tool_context=tool_context,
        max_turns=opts.max_turns,
        max_tokens=max_output_tokens(env, settings) or resolved.info.max_output_tokens,
        thinking_budget=opts.thinking_budget,
        retry=retry_policy(env),
        gate=gate,
        max_budget_usd=opts.max_budget_usd,
        compaction=Compaction(
            CompactionPolicy(window=resolved.info.context_window), memory_path=memory_path
        ),
        price=lambda u: cost_usd(resolved.info, u),
    )
    restored = None
    if resumption is not None:
        from tether.core.resume import FULL_BYTES_PER_TOKEN, restore

        # What a request to this model could hold in full, with room to spare (a token is
        # three to four bytes of JSON): the rest is kept as head and tail (see `restore`).
        full_bytes = FULL_BYTES_PER_TOKEN * resolved.info.context_window
        restored = restore(resumption.loaded, full_bytes=full_bytes, price=agent.price)
    if restored is not None:
        tool_context.todos = restored.todos
    session = Session(
        agent,
        session_id=session_id,
        history=restored.history if restored is not None else None,
        lifecycle=Lifecycle(
            gate.hooks,
            source="resume" if resumption else "startup",
            on_env=lambda found: setattr(tool_context, "env", {**tool_context.env, **found}),
        ),
        recorder=resumption.recorder  # None with --no-session-persistence
        if resumption is not None
        else new_recorder(
            sessions_dir, session_id, workspace, resolved.model_id, teammate=env.get(TEAMMATE_ENV)
        )
        if opts.persist_session
        else None,
    )
    if resumption is not None and restored is not None:
        tell_resumed(session, resumption, restored)
    elif opts.continue_latest:
        session.startup_notices.append(
            f"no earlier session in {workspace} to continue: this is a new one"
        )
    agent.inputs.append(lambda: background_notices(tool_context))
    if trust.trusted:  # as the project's own instruction files: only in a trusted workspace
        known = instructions.current.files
        agent.inputs.append(nested_instructions(tool_context, workspace, known, gate.read_denied))
    session.on_close.extend((tool_context.background.kill_all, subagent_models.aclose))
    if board is not None:
        session.on_close.append(board.close)
    attach_lead(lead, session, resumption.loaded.path if resumption is not None else None)
    session.startup_notices.extend(skipped)
    session.startup_notices.extend(_record_run(tool_context, session, home))
    if opts.max_budget_usd is not None and _priced_but_unknown(resolved):
        session.startup_notices.append(
            f"the prices of {resolved.model_id} are unknown to tether: its use counts as $0, "
            "so --max-budget-usd cannot stop this session"
        )
    session.startup_notices.extend(f"trust: {p}" for p in trust.problems)
    session.startup_notices.extend(settings.notes)
    session.startup_notices.extend(_unknown_tools(opts))
    session.startup_notices.extend(_unmatched_rules(gate.permissions.rules))
    session.startup_notices.extend(memory_notes)
    if sandbox.sandbox is not None:
        # After the background commands stopped: the placeholders go with the session.
        session.on_close.append(functools.partial(asyncio.to_thread, sandbox.sandbox.close))
    if sandbox.notice is not None:
        session.startup_notices.append(sandbox.notice)
    session.startup_notices.extend(agents.notices())
    if session.agent.tools.get(TASK_TOOL_NAME) is not None:
        # The agent types, in a reminder (as Claude Code's agent listing): the Task tool's
        # description stays the same whatever agents there are.
        session.listings.append(lambda: agent_listing(agents))
    session.startup_notices.extend(instructions.notices())
    session.startup_questions.extend(instructions.questions())

    def instructions_changed(read: Instructions) -> None:
        runner.instructions = read.text
        agent.system_prompt = prompt_for(agent.tools.names())

    instructions.on_change.append(instructions_changed)
    session.startup_notices.extend(unusable_notices(skills))
    if SKILL_TOOL_NAME in registry.names():
        session.skills = skills
    attach_custom_commands(
        session,
        commands,
        grant=gate.grant_for_turn,
        needs_trust=lambda path: not trust.trusted and owners.needs_trust(path),
    )
    attach_builtin_handlers(session, settings, workspace=workspace)
    mcp, problems = mcp_setup(
        settings_root,  # a task worktree's servers are its main workspace's (local ones too)
        home=user_home,
        tether_home=home,
        env=env,
        settings=settings,
        window=resolved.info.context_window,
        trusted=trust.trusted,
        approved=opts.approved_servers,
        command_line=command_line_servers(
            opts.mcp_configs, workspace=workspace, env=env, exchange=client.mcp_exchange
        ),
        strict=opts.strict_mcp_config,
        plugins=plugins.mcp(workspace, env),
    )
    # The REPL never holds the first request for a slow server; -p and stream-json wait for
    # them, as Claude Code's print mode does, unless MCP_CONNECTION_NONBLOCKING says not to.
    nonblocking = env.get("MCP_CONNECTION_NONBLOCKING", "").strip().lower() in TRUTHY
    mcp.background = opts.mcp_background or nonblocking
    mcp.roots = (workspace, *extra_dirs)
    mcp.client = client  # its servers added while it runs, its answers to servers' forms
    session.startup_notices.extend(f"MCP: {p}" for p in problems)
    session.startup_notices.extend((*plugins.notices, *plugin_hook_notes))
    if not trust.trusted:
        review = review_workspace(
            workspace,
            start=start,
            user_home=user_home,
            tether_home=home,
            env=env,
            explicit=opts.settings_path,  # applied whole: not "skipped"
        )
        if review.declared:
            session.startup_notices.append(untrusted_notice(review.summary(), trust))
    attach_mcp(session, mcp, settings, prompt_for)
    if gate.hooks is not None:
        gate.hooks.judge = hook_judge(agent, subagent_models)
        gate.hooks.callback = client.hook_callback
        gate.hooks.watchers.extend(client.hook_watchers)
    if structured is not None:
        session.answer_checks.append(structured.owed)
    session.switch_model = model_switcher(
        agent, opts.model, env, settings, resolve, idle, max_output_tokens(env, settings)
    )
    if opts.fallback_model is not None:
        agent.model = with_fallback(agent, session.switch_model, opts.fallback_model)
    key_source = (resolved.provider.key_env or "none") if resolved.api_key else "none"
    return Built(session, mcp, agents, key_source, lead, plugins)


INLINE_SETTINGS = Path("--settings")
"""How settings given inline are named (in messages; rules in them are relative to the
workspace, as a file's would be to its folder)."""


def _memory(path: Path) -> tuple[str, list[str], bool]:
    """What of the memory file goes into the prompt, the lines to tell the user, and whether
    compaction summaries may be added to it (`memory_for_prompt`)."""
    try:
        return memory_for_prompt(path, ".tether/memory.md")
    except OSError as e:  # an UnreadableFile: a directory, not UTF-8, unreadable...
        why = f"memory: {e}; not loaded, and compaction summaries are not added to it this session"
        return "", [why], False


def _record_run(context: ToolContext, session: Session, home: Path) -> list[str]:
    """Clean up after earlier runs that were killed (their commands, temporary files and
    scratch directories: `tether.tools.run_record`), then start this run's record, closed
    (with the scratch directory and the snapshots) when the session ends. What was cleaned
    up, for the user."""
    notices = [n for reaped in reap_dead_runs(home) if (n := reaped.notice()) is not None]
    try:
        run = RunRecord.start(home, scratch_dir=context.scratch_dir, session_id=session.session_id)
    except OSError as e:
        notices.append(
            f"cannot keep this run's record under {home} ({e.strerror or e}): if tether is "
            "killed, the commands it leaves running are not stopped at the next start"
        )
        return notices
    context.run = run

    async def end_run() -> None:
        context.files.snapshots.close()
        run.close()

    session.on_close.append(end_run)
    return notices


def _added_directories(dirs: Sequence[Path]) -> tuple[Path, ...]:
    """`--add-dir` directories, resolved; one that is not a directory is an error, as the
    user meant to work there."""
    found: list[Path] = []
    for directory in dirs:
        resolved = directory.expanduser().resolve()
        if not resolved.is_dir():
            raise ConfigError(f"--add-dir {directory}: not a directory")
        found.append(resolved)
    return tuple(found)


def background_notices(context: ToolContext) -> list[TextBlock]:
    """Background commands that ended since the model was last told, as reminders."""
    return [TextBlock(text=reminder(n)) for n in context.background.finished_unreported()]


def resolve(flag: str | None, env: Mapping[str, str], settings: Settings) -> ResolvedModel:
    """--model, then TETHER_MODEL, then the settings' `model`, then the default."""
    spec = flag or env.get("TETHER_MODEL") or settings.model
    window = env.get("TETHER_CONTEXT_WINDOW")
    context_window = settings.context_window
    if window:
        try:
            context_window = int(window)
        except ValueError:
            raise ConfigError(
                f"TETHER_CONTEXT_WINDOW must be a number of tokens, not {window!r}"
            ) from None
    extra = {
        name: provider_from_settings(name, value) for name, value in settings.providers.items()
    }
    return resolve_model(spec, env, extra_providers=extra, context_window=context_window)


def max_output_tokens(env: Mapping[str, str], settings: Settings) -> int | None:
    """`TETHER_MAX_OUTPUT_TOKENS` or the `maxOutputTokens` setting: a cap on each reply, for
    local servers whose context is smaller than the catalogue's default output budget."""
    value = env.get("TETHER_MAX_OUTPUT_TOKENS")
    if value is None:
        return settings.max_output_tokens
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"TETHER_MAX_OUTPUT_TOKENS must be a positive number, not {value!r}")
    return int(value)


def _priced_but_unknown(resolved: ResolvedModel) -> bool:
    """A model that costs money (its provider wants a key: not a local server) whose prices
    the catalogue does not know: its spend counts as $0, so no budget can stop it."""
    info = resolved.info
    return resolved.provider.requires_key and info.input_per_mtok == info.output_per_mtok == 0


def _warm_meanwhile(model: Model) -> None:
    """Build the model's HTTP client on a thread while the session is built: the TLS context
    it loads (tens of milliseconds) is C code that lets the build go on meanwhile. Not a
    daemon, as `preload_http_soon`'s: an exit meanwhile waits for it rather than finalizing
    the interpreter under a thread loading the trust store."""
    warm = getattr(model, "warm", None)
    if callable(warm):
        threading.Thread(target=warm, name="model-warm").start()


def _probe_sandbox_meanwhile(settings: Settings) -> None:
    """Start checking bubblewrap now, on a thread: its two short commands run while the rest
    of the session is built, instead of before the first request."""
    try:
        enabled = parse_sandbox_settings(settings.data).enabled
    except ConfigError:
        return  # reported where the sandbox is planned
    if enabled is not False:
        probe_soon()


def idle_limits(env: Mapping[str, str], settings: Settings) -> IdleLimits | None:
    """`TETHER_MODEL_IDLE_TIMEOUT_MS` or the `tether.modelIdleTimeoutMs` setting: how long a
    model endpoint may send nothing before the attempt is given up and retried. None: the
    endpoint's default (`tether.models.idle`)."""
    value: object = env.get(IDLE_TIMEOUT_ENV)
    where = IDLE_TIMEOUT_ENV
    if value is None:
        block = settings.data.get("tether")
        value = block.get("modelIdleTimeoutMs") if isinstance(block, dict) else None
        where = f"the {IDLE_TIMEOUT_SETTING} setting"
    if value is None:
        return None
    try:
        milliseconds = float(value)  # pyright: ignore[reportArgumentType]
    except (TypeError, ValueError):
        milliseconds = 0.0
    if isinstance(value, bool) or not milliseconds > 0 or milliseconds == float("inf"):
        raise ConfigError(f"{where} must be a positive number of milliseconds, not {value!r}")
    return IdleLimits(milliseconds / 1000)


def retry_policy(env: Mapping[str, str]) -> RetryPolicy:
    """`TETHER_RETRY_DELAY_MS` sets the first backoff delay (tests make it tiny)."""
    delay = env.get("TETHER_RETRY_DELAY_MS")
    if delay is None:
        return RetryPolicy()
    try:
        return RetryPolicy(base_delay_s=max(0.0, float(delay) / 1000))
    except ValueError:
        raise ConfigError(f"TETHER_RETRY_DELAY_MS must be a number, not {delay!r}") from None


def _unmatched_rules(rules: RuleSet) -> list[str]:
    """A path rule no check matches (`Write(secret*)`) is told: it denies nothing."""
    from tether.permissions.tool_names import unmatched_rule_notes

    return unmatched_rule_notes(rules)


def _unknown_tools(opts: RunOptions) -> list[str]:
    """A misspelled tool in --allowedTools / --disallowedTools is told: the rule would match
    nothing."""
    from tether.permissions.tool_names import unknown_tool_notes

    return [
        *unknown_tool_notes("--allowedTools", opts.allowed_tools),
        *unknown_tool_notes("--disallowedTools", opts.disallowed_tools),
    ]
