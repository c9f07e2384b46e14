"""`RunOptions`: what the command line (or a test, or the demo) asks a session to be."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether.cli.client_parts import ClientParts
from tether.permissions import Mode
from tether.tools.base import Tool

if TYPE_CHECKING:
    from tether.cli.mcp_setup import McpSetup
    from tether.core.lifecycle import Lifecycle


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
    """False: no session file is written (`--no-session-persistence`)."""
    resume_at: str | None = None
    """`--resume-session-at`: the message of the resumed session to go on from."""
    setup_trigger: str | None = None
    """`--init` ("init") or `--maintenance` ("maintenance"): Setup hooks run before
    SessionStart, with this trigger."""
    kept_mcp: McpSetup | None = None
    """The servers `/clear` carries into the session it starts (connected, enabled or not as
    the user left them), instead of starting the configured ones anew."""
    kept_run: str | None = None
    """The run marker `/clear`'s ended session handed over (`RunRecord.hand_over`): the
    processes it started (the kept servers among them) are the new run's."""
    goes_on_from: Lifecycle | None = None
    """The lifecycle of the session this one goes on from, rebuilt (`/add-dir`): no
    SessionStart for it, and what that one's SessionStart gave is kept."""
    start_source: str | None = None
    """What SessionStart hooks are told when not the default ("startup", or "resume" for a
    resumed session): "clear" for the session `/clear` starts."""
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
    """The repository's MCP servers the user approved with the trust question or the
    REPL's question about new servers (not asked about again this session)."""
    declined_servers: tuple[str, ...] = ()
    """The repository's MCP servers the REPL's question about new servers left out this
    session (not asked about again in it)."""
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
    """`--mcp-config` values: JSON strings or files of more MCP servers."""
    settings_from: Path | None = None
    """A task worktree's main workspace: its settings files (local ones too, which git does
    not carry into the worktree) are read for this session as if they were the worktree's
    (their `/x` rules anchored in the worktree), and the session is kept with its sessions."""
    strict_mcp_config: bool = False
    """Only the servers of `mcp_configs`."""
    plugin_dirs: tuple[Path, ...] = ()
    """`--plugin-dir`: Claude Code plugins loaded for this session, beside those the
    settings enable."""
    session_id: str | None = None
    """The new session's id (`--session-id`)."""
    bypass_allowed: bool = False
    """`--allow-dangerously-skip-permissions`: bypassPermissions may be switched to later
    (the REPL's Shift+Tab cycle offers it), as in Claude Code."""
    thinking_budget: int | None = None
    """Extended thinking, in tokens per response (`--max-thinking-tokens`); 0: turned off."""
    effort: str | None = None
    """`--effort`: sent to a model that takes an effort level (`tether.models.effort`)."""
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
