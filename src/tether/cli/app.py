"""Command-line arguments and dispatch. Imports nothing heavy until it knows what to run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tether import __version__
from tether.cli.claude_flags import add_claude_options, drop_unknown, engine_mode
from tether.cli.commands import subcommand_lines

if TYPE_CHECKING:
    from tether.cli.setup import RunOptions

DESCRIPTION = """\
tether: a coding agent in your terminal.

  tether                      interactive session (REPL)
  tether -p "fix the tests"   run one task headless and print the result
  tether demo                 watch a scripted session (no model or API key needed)
"""

EPILOG = """\
models: --model or TETHER_MODEL (or ANTHROPIC_MODEL) or the "model" setting
  (default claude-sonnet-5-5); for example opus, sonnet, haiku, openai/gpt-5,
  openrouter/<vendor>/<model>, ollama/qwen2.5-coder:7b.
keys: ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, a bearer token), OPENAI_API_KEY,
  OPENROUTER_API_KEY; base URLs: ANTHROPIC_BASE_URL, OPENAI_BASE_URL; more headers:
  ANTHROPIC_CUSTOM_HEADERS; retries: CLAUDE_CODE_MAX_RETRIES.
  Settings: ~/.tether/settings.json, .tether/settings.json, .claude/settings.json.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tether",
        description=DESCRIPTION + subcommand_lines(),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("prompt", nargs="?", help="the task; with -p, also read from stdin when piped")
    p.add_argument("-p", "--print", action="store_true", help="headless: run the task, print, exit")
    p.add_argument(
        "--output-format",
        choices=["text", "json", "stream-json"],
        default="text",
        help="headless output: final text, one JSON result, or JSON lines as it runs",
    )
    p.add_argument("--model", help="model to use (see below)")
    p.add_argument(
        "--init", action="store_true", help="run the Setup hooks (trigger init), then the session"
    )
    p.add_argument(
        "--init-only", action="store_true", help="run the Setup hooks (trigger init) and exit"
    )
    p.add_argument(
        "--maintenance",
        action="store_true",
        help="run the Setup hooks (trigger maintenance), then the session",
    )
    p.add_argument("--max-turns", type=_positive_int, help="stop after this many model calls")
    p.add_argument(
        "--max-budget-usd",
        type=_positive_float,
        help="stop cleanly once the session has cost this much (from the catalogue's prices)",
    )
    p.add_argument("--append-system-prompt", help="text added to the end of the system prompt")
    p.add_argument(
        "--settings",
        help="an extra settings file, or settings as a JSON string (highest precedence)",
    )
    p.add_argument("--verbose", action="store_true", help="show tool calls and retries on stderr")
    p.add_argument("--cwd", type=Path, default=None, help="workspace directory (default: here)")
    p.add_argument(
        "--permission-mode",
        choices=[
            "default",
            "acceptEdits",
            "plan",
            "dontAsk",
            "bypassPermissions",
            "auto",
            "manual",
        ],
        help="how tool calls no rule allows are handled (default: ask, or deny when headless; "
        "auto: reads and workspace edits allowed, the rest as in default; manual = default)",
    )
    add_rule_options(p)
    p.add_argument(
        "--add-dir",
        dest="add_dirs",
        type=Path,
        nargs="+",
        action="extend",
        default=[],
        metavar="DIR",
        help="more directories the session may read and write like the workspace (end the "
        "list with -- when the prompt follows)",
    )
    p.add_argument(
        "--trust-workspace",
        action="store_true",
        help="run what this workspace's files declare (hooks, MCP servers, allow rules) for "
        "this run, without asking; TETHER_TRUST_WORKSPACE=1 does the same (for CI)",
    )
    p.add_argument(
        "--dangerously-skip-permissions",
        action="store_true",
        help="same as --permission-mode bypassPermissions: run everything not denied",
    )
    p.add_argument(
        "-c",
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="continue the newest session of this project",
    )
    p.add_argument(
        "-r",
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="ID",
        help="continue a session by id (or a unique prefix); without one, pick from a list",
    )
    p.add_argument(
        "--fork-session",
        action="store_true",
        help="with --resume or --continue: continue in a new session, leaving the original",
    )
    p.add_argument("-v", "--version", action="version", version=f"{__version__} (tether)")
    add_claude_options(p)
    return p


def add_rule_options(p: argparse.ArgumentParser) -> None:
    """--allowedTools and --disallowedTools, as Claude Code spells them (see `split_rules`)."""
    for flag, dest, help in (
        ("--allowedTools", "allowed_tools", 'rules to allow, e.g. "Bash(git diff *)" Edit'),
        (
            "--disallowedTools",
            "disallowed_tools",
            "rules to deny; a bare tool name removes the tool",
        ),
    ):
        p.add_argument(
            flag,
            "--" + dest.replace("_", "-"),
            dest=dest,
            nargs="+",
            action="extend",
            default=[],
            metavar="RULE",
            help=help,
        )


def _positive_float(value: str) -> float:
    try:
        n = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if n <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return n


def _positive_int(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def main(argv: list[str]) -> int:
    try:
        return _main(argv)
    finally:
        if "tether.cli.observing" in sys.modules:  # this run's webhooks: given their time
            sys.modules["tether.cli.observing"].close_process_sinks()
        if "tether.cli.ledger_setup" in sys.modules:  # its queued writes, and its losses said
            sys.modules["tether.cli.ledger_setup"].close_process_ledger()


def _main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(drop_unknown(argv, parser))
    cwd: Path = args.cwd or Path.cwd()
    from tether.cli.swallowed import swallowed_prompt

    swallowed = swallowed_prompt(args, argv)
    # -p with a prompt piped in goes on with it, the word a value, as Claude Code does.
    if swallowed is not None and not (args.print and args.input_format != "stream-json"):
        print(f"tether: error: {swallowed}", file=sys.stderr)
        return 2
    if args.resume == "":  # --resume without an id
        if args.print:
            print(
                "tether: error: -p --resume needs a session id (see tether sessions list)",
                file=sys.stderr,
            )
            return 2
        from tether.cli.sessions_cmd import pick_session
        from tether.config.project import project_root

        args.resume = pick_session(project_root(cwd, user_home=Path.home()))
        if args.resume is None:
            return 0
    if args.init_only:
        from tether.cli.setup_only import run_setup_only

        return run_setup_only(_run_options(args, cwd))
    if args.input_format == "stream-json":
        if args.output_format != "stream-json":
            print(
                "tether: error: --input-format stream-json needs --output-format stream-json",
                file=sys.stderr,
            )
            return 2
        _start_early_work(args, cwd)
        try:
            return _stream_json(args, cwd)
        finally:
            _end_early_work()
    if args.print:
        _start_early_work(args, cwd)
        try:
            return _print(args, cwd, argv)
        finally:
            _end_early_work()
    from tether.cli.early_work import leave_out_pydantic_plugins, pause_collection
    from tether.models.http_version import read_http_version_quickly

    pause_collection()  # until the session is built, as for a headless run
    leave_out_pydantic_plugins()
    read_http_version_quickly()
    try:
        return _repl(args, cwd)
    finally:
        _end_early_work()


def _repl(args: argparse.Namespace, cwd: Path) -> int:
    import asyncio
    import dataclasses

    from tether.cli.repl import run_repl
    from tether.cli.startup import LazyOptions

    # The REPL draws its prompt first and makes the options (and the session) meanwhile.
    # MCP servers connect in the background: the first request is not held by slow ones.
    options = LazyOptions(
        cwd=cwd,
        make=lambda: dataclasses.replace(_run_options(args, cwd), mcp_background=True),
        trust_workspace=args.trust_workspace,
    )
    return asyncio.run(run_repl(options, initial_prompt=args.prompt))


def _stream_json(args: argparse.Namespace, cwd: Path) -> int:
    from tether.cli.claude_options import stream_options
    from tether.cli.stream_json import run_stream_json_sync
    from tether.cli.terminal_text import terminal_safe
    from tether.protocol import ConfigError

    try:
        opts, stream = _run_options(args, cwd), stream_options(args)
    except ConfigError as e:
        print(f"tether: {terminal_safe(str(e))}", file=sys.stderr)
        return 2
    return run_stream_json_sync(opts, stream)


def _print(args: argparse.Namespace, cwd: Path, argv: list[str]) -> int:
    from tether.cli.headless import read_prompt, run_headless_sync
    from tether.cli.swallowed import swallowed_prompt

    prompt = read_prompt(args.prompt, sys.stdin)
    swallowed = swallowed_prompt(args, argv)
    if prompt is None:
        print(
            f"tether: error: {swallowed or '-p needs a prompt (argument or stdin)'}",
            file=sys.stderr,
        )
        return 2
    if swallowed is not None:
        print(f"tether: warning: {swallowed}; going on with the prompt from stdin", file=sys.stderr)
    from tether.cli.terminal_text import terminal_safe
    from tether.protocol import ConfigError

    try:
        opts = _run_options(args, cwd)
    except ConfigError as e:
        print(f"tether: {terminal_safe(str(e))}", file=sys.stderr)
        return 2
    return run_headless_sync(
        opts, prompt, args.output_format, include_partial=args.include_partial_messages
    )


def _start_early_work(args: argparse.Namespace, cwd: Path) -> None:
    """A headless run's HTTP stack and sandbox probe, started before its imports (and the
    garbage collector paused until its session is built)."""
    from tether.cli.early_work import start_early_work

    start_early_work(cwd, settings_given=args.settings is not None)


def _end_early_work() -> None:
    """The collector resumed, whatever ended the run (the build resumes it as it ends)."""
    from tether.cli.early_work import resume_collection

    resume_collection()


def _run_options(args: argparse.Namespace, cwd: Path) -> RunOptions:
    from tether.cli.claude_options import claude_run_options
    from tether.cli.setup import RunOptions  # imports every layer: only once it is needed

    return RunOptions(
        cwd=cwd,
        model=args.model,
        max_turns=args.max_turns,
        verbose=args.verbose,
        permission_mode=(
            "bypassPermissions"
            if args.dangerously_skip_permissions
            else engine_mode(args.permission_mode)
        ),
        allowed_tools=tuple(split_rules(args.allowed_tools)),
        disallowed_tools=tuple(split_rules(args.disallowed_tools)),
        max_budget_usd=args.max_budget_usd,
        resume=args.resume,
        continue_latest=args.continue_latest,
        fork=args.fork_session,
        trust_workspace=args.trust_workspace,
        bypass_allowed=args.allow_dangerously_skip_permissions,
        add_dirs=tuple(d.expanduser().absolute() for d in args.add_dirs),
        setup_trigger=(
            "maintenance" if args.maintenance else "init" if args.init or args.init_only else None
        ),
        **claude_run_options(args, cwd),
    )


def split_rules(values: list[str]) -> list[str]:
    """Rules come space- or comma-separated, as in Claude Code; commas inside parentheses stay."""
    rules: list[str] = []
    for value in values:
        depth, current = 0, ""
        for char in value:
            depth += char == "("
            depth -= char == ")"
            if char == "," and depth == 0:
                rules.append(current.strip())
                current = ""
            else:
                current += char
        rules.append(current.strip())
    return [r for r in rules if r]
