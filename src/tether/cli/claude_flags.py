"""Claude Code's headless flags, as the Claude Agent SDK passes them, and what tether makes of
flags it does not know (a newer SDK's): a warning, never an exit, and their value consumed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from tether.models.effort import EFFORT_LEVELS

CLAUDE_VALUE_FLAGS = frozenset(
    {
        "--task-budget",
        "--thinking",
        "--plugin-dir",
        "--resume-drops-turn",
        "--agent",
        "--name",
        "--from-pr",
        "--output-style",
        "--worktree",
        "--remote-control-session-name-prefix",
        # The TypeScript SDK's.
        "--channels",
        "--permission-prompts",
        "--initialize-fields",
        "--managed-settings",
        "--project-config-root",
        "--plugin-dir-no-mcp",
    }
)
"""Flags of Claude Code that take a value and that tether accepts without acting on (each
told on stderr: what it asks for does not happen)."""
CLAUDE_SWITCHES = frozenset(
    {
        "--disable-slash-commands",
        "--ide",
        "--enable-auto-mode",
        "--bare",
        "--chrome",
        "--no-chrome",
        "--managed-settings-in-initialize",
    }
)
"""Flags of Claude Code without a value that tether accepts without acting on (told)."""
QUIET_VALUE_FLAGS = frozenset({"--debug-file", "--thinking-display"})
QUIET_SWITCHES = frozenset(
    {
        "--debug-to-stderr",
        "--mcp-debug",
        "--await-initialize",
        "--allow-dangerously-skip-permissions",
    }
)
"""Claude Code flags accepted in silence: they concern only its own diagnostics and display, or
a start-up step tether always takes (`--await-initialize`: the session is built after the
client's `initialize`), or permit what tether permits anyway (switching to bypassPermissions).
Nothing the user asked of the agent is lost; a warning on every SDK query would be noise."""
QUIET_OPTIONAL_VALUE = frozenset({"--debug"})
"""`--debug [filter]`: its filter is consumed with it when the input is stream-json."""


def add_claude_options(p: argparse.ArgumentParser) -> None:
    """The flags the Agent SDK passes, with Claude Code's meanings."""
    p.add_argument(
        "--input-format",
        choices=["text", "stream-json"],
        default="text",
        help="stream-json: user messages and control requests as JSON lines on stdin "
        "(what the Claude Agent SDK speaks); implies headless",
    )
    p.add_argument("--system-prompt", help="replace tether's own instructions with this text")
    p.add_argument("--system-prompt-file", help="replace tether's own instructions with a file")
    p.add_argument(
        "--append-system-prompt-file", help="a file added to the end of the system prompt"
    )
    p.add_argument(
        "--permission-prompt-tool",
        metavar="TOOL",
        help="who answers permission questions: stdio (the SDK client)",
    )
    p.add_argument(
        "--mcp-config",
        dest="mcp_configs",
        nargs="+",
        action="extend",
        default=[],
        metavar="CONFIG",
        help="MCP servers: a JSON file or string with mcpServers",
    )
    p.add_argument(
        "--plugin-dir",
        dest="plugin_dirs",
        action="append",
        default=[],
        metavar="DIR",
        help="load the Claude Code plugin in DIR for this session (repeatable)",
    )
    p.add_argument(
        "--strict-mcp-config", action="store_true", help="only the MCP servers of --mcp-config"
    )
    p.add_argument("--setting-sources", help="settings layers to read: user,project,local")
    p.add_argument(
        "--no-session-persistence",
        action="store_true",
        help="write no session file (the session cannot be resumed)",
    )
    p.add_argument(
        "--resume-session-at",
        metavar="UUID",
        help="with --resume: go on from this message of the session (a uuid its lines gave)",
    )
    p.add_argument("--tools", help='the built-in tools offered: names, "" for none, or default')
    p.add_argument(
        "--include-partial-messages",
        action="store_true",
        help="stream-json: stream_event lines as the reply streams",
    )
    p.add_argument(
        "--include-hook-events",
        action="store_true",
        help="stream-json: a line as each hook starts and ends",
    )
    p.add_argument(
        "--replay-user-messages",
        action="store_true",
        help="stream-json input: echo each user message back",
    )
    p.add_argument("--session-id", help="the new session's id (a UUID)")
    p.add_argument(
        "--session-mirror",
        action="store_true",
        help="stream-json: each entry of the session file as a transcript_mirror line "
        "(the SDK's session store)",
    )
    p.add_argument("--fallback-model", help="the model to use when the main one is overloaded")
    p.add_argument(
        "--betas",
        dest="betas",
        nargs="+",
        action="extend",
        default=[],
        metavar="BETA",
        help="Anthropic betas to send (anthropic-beta header), comma-separated; "
        "context-1m-2025-08-07 opens the 1M window as a [1m] model does",
    )
    p.add_argument("--max-thinking-tokens", type=int, help="extended thinking budget per reply")
    p.add_argument(
        "--thinking",
        choices=["adaptive", "enabled", "disabled"],
        help="disabled: no extended thinking, whatever --effort or --max-thinking-tokens say; "
        "adaptive and enabled: extended thinking on (adaptive where the model takes it; else "
        "the budget --max-thinking-tokens gives, or 31,999 tokens). Unset: on, as in Claude "
        "Code, unless MAX_THINKING_TOKENS=0 or the setting alwaysThinkingEnabled: false",
    )
    p.add_argument(
        "--effort",
        choices=EFFORT_LEVELS,
        help="how much the model spends on a reply: sent as the effort level to a model that "
        "takes one (the nearest it takes); a model that takes none is sent none",
    )
    p.add_argument(
        "--json-schema", help="structured output: the final answer as JSON of this schema"
    )
    p.add_argument("--agents", help="subagent definitions as a JSON object")
    p.add_argument(
        "--await-initialize",
        action="store_true",
        help="stream-json: start once the client's initialize request arrived (always so)",
    )
    p.add_argument(
        "--allow-dangerously-skip-permissions",
        action="store_true",
        help="let a client switch to bypassPermissions later in the session",
    )


def drop_unknown(argv: Sequence[str], parser: argparse.ArgumentParser) -> list[str]:
    """`argv` without the flags `parser` does not know, each told on stderr. A Claude Code flag
    tether does not act on loses its value when it takes one; an unknown flag written
    `--flag=value` loses its value; an unknown `--flag value` loses the next word as its value
    when the input is stream-json (nothing on that command line is a prompt), and otherwise
    only itself."""
    known = set(parser._option_string_actions)  # pyright: ignore[reportPrivateUsage]
    stream_input = "stream-json" in argv and any(a.startswith("--input-format") for a in argv)
    kept: list[str] = []
    words = list(argv)
    i = 0
    while i < len(words):
        word = words[i]
        name = word.split("=", 1)[0]
        if not word.startswith("--") or word == "--" or name in known:
            kept.append(word)
            i += 1
            continue
        takes_value = "=" not in word and (
            name in CLAUDE_VALUE_FLAGS
            or name in QUIET_VALUE_FLAGS
            or (
                name not in CLAUDE_SWITCHES
                and name not in QUIET_SWITCHES
                and stream_input
                and i + 1 < len(words)
                and not words[i + 1].startswith("-")
            )
        )
        if name in QUIET_VALUE_FLAGS or name in QUIET_SWITCHES or name in QUIET_OPTIONAL_VALUE:
            pass
        elif name in CLAUDE_VALUE_FLAGS or name in CLAUDE_SWITCHES:
            _warn(f"{name} is a Claude Code option tether does not act on; ignored")
        else:
            _warn(f"unknown option {name} (from a newer client?); ignored")
        i += 2 if takes_value and i + 1 < len(words) else 1
    return kept


KNOWN_BETAS = frozenset(
    {
        "context-1m-2025-08-07",
        "interleaved-thinking-2025-05-14",
        "fine-grained-tool-streaming-2025-05-14",
        "token-efficient-tools-2025-02-19",
        "output-128k-2025-02-19",
        "context-management-2025-06-27",
        "effort-2025-11-24",
        "structured-outputs-2025-11-13",
        "advanced-tool-use-2025-11-20",
        "tool-search-tool-2025-10-19",
        "files-api-2025-04-14",
        "mcp-client-2025-04-04",
        "code-execution-2025-08-25",
        "web-fetch-2025-09-10",
        "prompt-caching-scope-2026-01-05",
        "compact-2026-01-12",
        "redact-thinking-2026-02-12",
    }
)
"""Anthropic betas tether knows of (Claude Code's); another is sent as given, with a warning."""


def betas_of(values: Sequence[str]) -> tuple[str, ...]:
    """`--betas` values (each may hold several, comma-separated), each once; a warning for a
    name tether does not know (sent all the same: the API judges it)."""
    from tether.models.resolve import beta_names

    betas = beta_names(",".join(values))
    for beta in betas:
        if beta not in KNOWN_BETAS:
            _warn(f"--betas {beta}: not an Anthropic beta tether knows; sent as given")
    return betas


def _warn(message: str) -> None:
    print(f"tether: warning: {message}", file=sys.stderr)


MODE_ALIASES = {"auto": "acceptEdits", "manual": "default"}
"""Claude Code's permission modes that tether's engine has no mode of its own for. In Claude
Code, `auto` allows reads and edits in the workspace and lets a classifier model judge the
rest; tether allows the same reads and edits (acceptEdits) and leaves the rest to the rules,
then to whoever can be asked (an SDK client's `can_use_tool`), and otherwise denies it: no
model judges a call. `manual` is `default`'s other name."""


def engine_mode(name: str | None) -> Any:
    """The engine's mode for a mode named on the command line or by a client."""
    return None if name is None else MODE_ALIASES.get(name) or name
