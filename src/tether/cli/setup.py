"""From options, settings and environment to a ready `Session`: the one place that wires layers."""

from __future__ import annotations

import asyncio
import functools
import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tether import __version__
from tether.agents import discover_agents, task_tool
from tether.cli.agents_tool import SubagentModels, subagent_runner
from tether.cli.instruction_imports import ProjectInstructions
from tether.cli.mcp_setup import attach_mcp, mcp_setup
from tether.cli.safety import (
    SafetyOptions,
    attach_builtin_handlers,
    build_gate,
    plan_session_sandbox,
)
from tether.cli.skills_tool import skill_tool, unusable_notices
from tether.cli.workspace_review import (
    Ownership,
    restrict_settings,
    review_workspace,
    without_workspace_grants,
)
from tether.config.instructions import Instructions
from tether.config.settings import Settings, load_settings, settings_files, tether_home
from tether.config.trust import untrusted_notice, workspace_trust
from tether.core.compaction import CompactionPolicy
from tether.core.compactor import Compaction
from tether.core.context import build_system_prompt
from tether.core.lifecycle import Lifecycle, reminder
from tether.core.loop import Agent
from tether.core.memory import load_memory
from tether.core.model_call import RetryPolicy
from tether.core.recording import UNFINISHED_AT_EXIT, Restored, SessionRecorder, restore
from tether.core.session import Session
from tether.models.catalogue import cost_usd
from tether.models.resolve import ResolvedModel, build_model, provider_from_settings, resolve_model
from tether.permissions import Mode
from tether.protocol import ConfigError, TextBlock
from tether.sandbox import describe_limits
from tether.skills import SKILL_TOOL_NAME, discover_skills
from tether.store import (
    LoadedSession,
    SessionWriter,
    find_session,
    fork_session,
    latest_session,
    load_session,
    project_dir,
)
from tether.tools.builtin import builtin_tools
from tether.tools.context import ToolContext
from tether.tools.registry import ToolRegistry


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


def build_session(opts: RunOptions) -> Session:
    """Load settings, resolve the model and build the session. Raises `ConfigError` with a
    message fit for the user when something is missing or broken."""
    env = dict(os.environ if opts.env is None else opts.env)
    workspace = opts.cwd.expanduser().resolve()
    if not workspace.is_dir():
        raise ConfigError(f"workspace is not a directory: {workspace}")
    home = tether_home(env)
    user_home = Path(env.get("HOME") or Path.home())
    # From the real environment: a settings file's `env` must not trust its own workspace.
    trust = workspace_trust(
        workspace, tether_home=home, user_home=user_home, env=env, flag=opts.trust_workspace
    )
    owners = Ownership(workspace, user_home, home)
    settings = load_settings(
        settings_files(workspace, home=home, explicit=opts.settings_path),
        required=opts.settings_path,
    )
    if not trust.trusted:
        settings = restrict_settings(settings, owners, explicit=opts.settings_path)
    # Settings' env fills in; the real environment (what the user typed) wins.
    env = {**settings.env, **env}
    resolved = resolve(opts.model, env, settings)
    sessions_dir = project_dir(home, workspace)
    loaded = _session_to_resume(opts, home, workspace)
    session_id = loaded.session_id if loaded and not opts.fork else str(uuid.uuid4())
    transcript = sessions_dir / f"{session_id}.jsonl"
    scratch_dir = home / "scratch" / session_id
    skills = discover_skills(workspace, home=user_home)
    if not trust.trusted:
        skills = without_workspace_grants(skills, owners)
    # The Skill tool grants through the gate, which is built just below with it.
    skill_tools = [skill_tool(skills, lambda rules: gate.grant_for_turn(rules))]
    model = build_model(resolved)
    subagent_models = SubagentModels(resolved, model, lambda spec: resolve(spec, env, settings))
    agents = discover_agents(workspace, home=user_home)

    runner = subagent_runner(
        agents,
        settings,
        transcript=transcript,
        workspace=workspace,
        models=subagent_models,
        instructions="",  # read below, once the rules that may refuse an import are known
    )
    gate, tools = build_gate(
        settings,
        SafetyOptions(
            opts.permission_mode,
            opts.allowed_tools,
            opts.disallowed_tools,
            workspace_trusted=trust.trusted,
            add_dirs=_added_directories(opts.add_dirs),
        ),
        workspace=workspace,
        tools=[*builtin_tools(), task_tool(runner), *(skill_tools if skills.skills else [])],
        session_id=session_id,
        transcript_path=transcript,
        env=env,
        # Spilled command output and skills' own files are read back without asking.
        read_dirs=(scratch_dir, *(s.path.parent for s in skills.skills)),
    )
    instructions = ProjectInstructions(
        workspace, user_home, home, env, trust.trusted, refuse=gate.read_denied
    )
    runner.instructions = instructions.load().text
    extra_dirs = gate.permissions.additional_dirs
    sandbox = plan_session_sandbox(
        settings,
        workspace=workspace,
        scratch_dir=scratch_dir,
        home=user_home,
        extra_dirs=extra_dirs,
    )
    memory_path = workspace / ".tether" / "memory.md"
    registry = ToolRegistry(tools)
    memory = load_memory(memory_path)

    def prompt_for(tool_names: Sequence[str]) -> str:
        return build_system_prompt(
            workspace,
            tool_names=tool_names,
            append=opts.append_system_prompt,
            instructions=instructions.current.text,
            skills=skills.prompt_section() if skills.skills else "",
            memory=memory,
            sandbox=describe_limits(sandbox.sandbox) if sandbox.sandbox is not None else "",
        )

    tool_context = ToolContext(workspace=workspace, scratch_dir=scratch_dir, extra_dirs=extra_dirs)
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
        retry=retry_policy(env),
        gate=gate,
        max_budget_usd=opts.max_budget_usd,
        compaction=Compaction(
            CompactionPolicy(window=resolved.info.context_window), memory_path=memory_path
        ),
        price=lambda u: cost_usd(resolved.info, u),
    )
    restored = restore(loaded) if loaded is not None else None
    if restored is not None:
        tool_context.todos = restored.todos
    session = Session(
        agent,
        session_id=session_id,
        history=restored.history if restored is not None else None,
        lifecycle=Lifecycle(gate.hooks, source="resume" if loaded else "startup"),
        recorder=_recorder(opts, loaded, sessions_dir, session_id, workspace, resolved.model_id),
    )
    if loaded is not None and restored is not None:
        _resumed(session, loaded, restored, opts.fork)
    agent.inputs.append(lambda: background_notices(tool_context))
    session.on_close.extend((tool_context.background.kill_all, subagent_models.aclose))
    if sandbox.sandbox is not None:
        # After the background commands stopped: the placeholders go with the session.
        session.on_close.append(functools.partial(asyncio.to_thread, sandbox.sandbox.close))
    if sandbox.notice is not None:
        session.startup_notices.append(sandbox.notice)
    session.startup_notices.extend(agents.notices())
    session.startup_notices.extend(instructions.notices())
    session.startup_questions.extend(instructions.questions())

    def instructions_changed(read: Instructions) -> None:
        runner.instructions = read.text
        agent.system_prompt = prompt_for(agent.tools.names())

    instructions.on_change.append(instructions_changed)
    session.startup_notices.extend(unusable_notices(skills))
    if SKILL_TOOL_NAME in registry.names():
        session.skills = skills
    attach_builtin_handlers(session, settings, workspace=workspace)
    mcp, problems = mcp_setup(
        workspace,
        home=user_home,
        tether_home=home,
        env=env,
        settings=settings,
        window=resolved.info.context_window,
        trusted=trust.trusted,
        approved=opts.approved_servers,
    )
    session.startup_notices.extend(f"MCP: {p}" for p in problems)
    if not trust.trusted:
        review = review_workspace(
            workspace,
            user_home=user_home,
            tether_home=home,
            env=env,
            explicit=opts.settings_path,  # applied whole: not "skipped"
        )
        if review.declared:
            session.startup_notices.append(untrusted_notice(review.summary(), trust))
    attach_mcp(session, mcp, settings, prompt_for)
    return session


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


def _session_to_resume(opts: RunOptions, home: Path, workspace: Path) -> LoadedSession | None:
    if opts.resume is not None:
        return load_session(find_session(home, workspace, opts.resume))
    if opts.continue_latest:
        latest = latest_session(home, workspace)
        if latest is None:
            raise ConfigError(f"no session to continue in {workspace}: start one with tether")
        return load_session(latest)
    if opts.fork:
        raise ConfigError("--fork-session needs --resume ID or --continue")
    return None


def _recorder(
    opts: RunOptions,
    loaded: LoadedSession | None,
    directory: Path,
    session_id: str,
    workspace: Path,
    model_id: str,
) -> SessionRecorder:
    if loaded is None:

        def start() -> SessionWriter:
            writer = SessionWriter.create(directory, session_id, cwd=workspace, model=model_id)
            writer.meta(model=model_id, version=__version__)
            return writer

        return SessionRecorder(start)
    if opts.fork:
        writer = fork_session(loaded.path, directory, session_id, cwd=workspace, model=model_id)
    else:
        writer = SessionWriter.reopen(
            loaded.path, cwd=workspace, last_uuid=loaded.last_uuid, model=model_id
        )
    return SessionRecorder.continuing(writer)


def _resumed(session: Session, loaded: LoadedSession, restored: Restored, forked: bool) -> None:
    """Count what the session already cost, answer calls a crash left open, and say so."""
    for usage in restored.usage:
        session.usage = session.usage + usage
        session.cost_usd += session.agent.price(usage)
    repaired = restored.history.answer_unanswered(UNFINISHED_AT_EXIT)
    session.startup_notices.extend(loaded.warnings)
    title = f" ({loaded.title})" if loaded.title else ""
    how = f"forked from {loaded.session_id}{title} as" if forked else "resumed"
    note = f"{how} session {session.session_id}: {len(restored.history)} messages"
    if repaired:
        note += f"; {len(repaired)} tool call(s) left unfinished were marked as interrupted"
    session.resumed = note


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


def retry_policy(env: Mapping[str, str]) -> RetryPolicy:
    """`TETHER_RETRY_DELAY_MS` sets the first backoff delay (tests make it tiny)."""
    delay = env.get("TETHER_RETRY_DELAY_MS")
    if delay is None:
        return RetryPolicy()
    try:
        return RetryPolicy(base_delay_s=max(0.0, float(delay) / 1000))
    except ValueError:
        raise ConfigError(f"TETHER_RETRY_DELAY_MS must be a number, not {delay!r}") from None
