"""Claude Code's flags (see `tether.cli.claude_flags`) as run options: system prompt files
read, inline settings parsed, lists split."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from tether import bounded_json
from tether.cli.claude_flags import betas_of, engine_mode
from tether.cli.client_parts import ClientParts, client_agents
from tether.config.settings import SETTING_SOURCES, parse_settings_json
from tether.models.effort import DEFAULT_THINKING_TOKENS
from tether.protocol import ConfigError

if TYPE_CHECKING:
    from tether.cli.stream_options import StreamOptions


def claude_run_options(args: argparse.Namespace, cwd: Path) -> dict[str, Any]:
    """The `RunOptions` fields these flags set; `ConfigError` for a value that cannot be used."""
    from tether.cli.app import split_rules

    settings: str | None = args.settings
    inline = settings is not None and settings.strip().startswith("{")
    append = [args.append_system_prompt] if args.append_system_prompt else []
    if args.append_system_prompt_file:
        append.append(_read(args.append_system_prompt_file, "--append-system-prompt-file", cwd))
    system_prompt = args.system_prompt
    if args.system_prompt_file:
        system_prompt = _read(args.system_prompt_file, "--system-prompt-file", cwd)
    agents = ClientParts(agents=_agents(args.agents)) if args.agents else None
    return {
        "append_system_prompt": "\n\n".join(append) or None,
        "system_prompt": system_prompt,
        "settings_path": None if settings is None or inline else Path(settings),
        "settings_json": parse_settings_json(settings, "--settings")
        if settings is not None and inline
        else None,
        "setting_sources": _sources(args.setting_sources),
        "tools": None if args.tools is None else tuple(split_rules([args.tools])),
        "mcp_configs": tuple(args.mcp_configs),
        "plugin_dirs": tuple((cwd / d).expanduser() for d in args.plugin_dirs),
        "strict_mcp_config": args.strict_mcp_config,
        "persist_session": not args.no_session_persistence,
        "resume_at": args.resume_session_at,
        "session_id": args.session_id,
        "thinking_budget": _thinking(args),
        "effort": args.effort,
        "fallback_model": args.fallback_model,
        "betas": betas_of(args.betas),
        "json_schema": _schema(args.json_schema),
        "client": agents,
    }


def stream_options(args: argparse.Namespace) -> StreamOptions:
    prompt_tool = args.permission_prompt_tool
    if prompt_tool is not None and prompt_tool != "stdio" and not prompt_tool.startswith("mcp__"):
        raise ConfigError(
            f"--permission-prompt-tool {prompt_tool}: expected stdio or an MCP tool (mcp__...)"
        )
    mode = "bypassPermissions" if args.dangerously_skip_permissions else args.permission_mode
    engine_mode(mode)
    from tether.cli.stream_options import StreamOptions  # the SDK's front end: not for -p

    return StreamOptions(
        include_partial=args.include_partial_messages,
        include_hook_events=args.include_hook_events,
        permission_prompt_tool=prompt_tool,
        mode_name=mode,
        replay_user_messages=args.replay_user_messages,
        session_mirror=args.session_mirror,
        bypass_allowed=mode == "bypassPermissions" or args.allow_dangerously_skip_permissions,
    )


def _read(path: str, flag: str, cwd: Path) -> str:
    try:
        return (cwd / path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{flag} {path}: cannot read it: {e}") from None


def _sources(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    names = tuple(n.strip() for n in value.split(",") if n.strip())
    for name in names:
        if name not in SETTING_SOURCES:
            expected = ", ".join(SETTING_SOURCES)
            raise ConfigError(f"--setting-sources: unknown source {name!r} (expected {expected})")
    return names


def _thinking(args: argparse.Namespace) -> int | None:
    """Thinking tokens per reply as the flags give them; 0: turned off; None: the session's
    default (`tether.cli.model_options.session_thinking`). As Claude Code: `--thinking
    disabled` (or `--max-thinking-tokens 0`) wins over an effort level; `adaptive` and
    `enabled` turn thinking on, with the budget `--max-thinking-tokens` gives, else Claude
    Code's. An effort level is never a budget: it goes in the request as a level, where the
    model takes one (`tether.models.effort`)."""
    if args.thinking == "disabled":
        return 0
    if args.max_thinking_tokens is not None:
        if args.max_thinking_tokens < 0:
            raise ConfigError("--max-thinking-tokens must be 0 or more")
        return args.max_thinking_tokens
    if args.thinking in ("adaptive", "enabled"):
        return DEFAULT_THINKING_TOKENS
    return None


def _schema(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        schema = bounded_json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(
            f"--json-schema is not valid JSON: {bounded_json.error_text(e)}"
        ) from None
    if not isinstance(schema, dict) or cast(dict[str, Any], schema).get("type") != "object":
        raise ConfigError('--json-schema must be a JSON schema of "type": "object"')
    return cast(dict[str, Any], schema)


def _agents(text: str) -> Any:
    try:
        data = bounded_json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"--agents is not valid JSON: {bounded_json.error_text(e)}") from None
    if not isinstance(data, dict):
        raise ConfigError("--agents must be a JSON object of agent definitions")
    return client_agents(cast(dict[str, Any], data))
