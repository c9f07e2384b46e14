"""From options, settings and environment to a ready `Session`: the one place that wires layers."""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tether.cli.safety import (
    SafetyOptions,
    attach_builtin_handlers,
    build_gate,
    plan_session_sandbox,
)
from tether.cli.skills_tool import skill_tool, unusable_notices
from tether.config.instructions import load_instructions
from tether.config.settings import Settings, load_settings, settings_files, tether_home
from tether.core.compaction import CompactionPolicy
from tether.core.compactor import Compaction
from tether.core.context import build_system_prompt
from tether.core.lifecycle import Lifecycle
from tether.core.loop import Agent
from tether.core.memory import load_memory
from tether.core.model_call import RetryPolicy
from tether.core.session import Session
from tether.models.catalogue import cost_usd
from tether.models.resolve import ResolvedModel, build_model, provider_from_settings, resolve_model
from tether.permissions import Mode
from tether.protocol import ConfigError
from tether.skills import SKILL_TOOL_NAME, discover_skills
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


def build_session(opts: RunOptions) -> Session:
    """Load settings, resolve the model and build the session. Raises `ConfigError` with a
    message fit for the user when something is missing or broken."""
    env = dict(os.environ if opts.env is None else opts.env)
    workspace = opts.cwd.expanduser().resolve()
    if not workspace.is_dir():
        raise ConfigError(f"workspace is not a directory: {workspace}")
    home = tether_home(env)
    user_home = Path(env.get("HOME") or Path.home())
    settings = load_settings(
        settings_files(workspace, home=home, explicit=opts.settings_path),
        required=opts.settings_path,
    )
    # Settings' env fills in; the real environment (what the user typed) wins.
    env = {**settings.env, **env}
    resolved = resolve(opts.model, env, settings)
    session_id = str(uuid.uuid4())
    scratch_dir = home / "scratch" / session_id
    skills = discover_skills(workspace, home=user_home)
    # The Skill tool grants through the gate, which is built just below with it.
    skill_tools = [skill_tool(skills, lambda rules: gate.grant_for_turn(rules))]
    gate, tools = build_gate(
        settings,
        SafetyOptions(opts.permission_mode, opts.allowed_tools, opts.disallowed_tools),
        workspace=workspace,
        tools=[*builtin_tools(), *(skill_tools if skills.skills else [])],
        session_id=session_id,
        transcript_path=home / "projects" / f"{session_id}.jsonl",
        env=env,
        # Spilled command output and skills' own files are read back without asking.
        read_dirs=(scratch_dir, *(s.path.parent for s in skills.skills)),
    )
    extra_dirs = gate.permissions.additional_dirs
    sandbox = plan_session_sandbox(
        settings,
        workspace=workspace,
        scratch_dir=scratch_dir,
        home=user_home,
        extra_dirs=extra_dirs,
    )
    instructions = load_instructions(workspace, home=user_home)
    memory_path = workspace / ".tether" / "memory.md"
    registry = ToolRegistry(tools)
    tool_context = ToolContext(workspace=workspace, scratch_dir=scratch_dir, extra_dirs=extra_dirs)
    if sandbox.sandbox is not None:
        tool_context.command_wrapper = sandbox.sandbox.wrap
    tool_context.bash_refusal = sandbox.bash_refusal
    gate.shell_cwd = lambda: tool_context.shell_cwd
    tool_context.read_denied = gate.read_denied
    agent = Agent(
        model=build_model(resolved),
        model_id=resolved.model_id,
        system_prompt=build_system_prompt(
            workspace,
            tool_names=registry.names(),
            append=opts.append_system_prompt,
            instructions=instructions.text,
            skills=skills.prompt_section() if skills.skills else "",
            memory=load_memory(memory_path),
        ),
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
    session = Session(
        agent,
        session_id=session_id,
        lifecycle=Lifecycle(gate.hooks),
    )
    if sandbox.notice is not None:
        session.startup_notices.append(sandbox.notice)
    session.startup_notices.extend(f"instructions: {p}" for p in instructions.problems)
    session.startup_notices.extend(unusable_notices(skills))
    if SKILL_TOOL_NAME in registry.names():
        session.skills = skills
    attach_builtin_handlers(session, settings, workspace=workspace)
    return session


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
