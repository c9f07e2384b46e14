"""`tether permissions check`: what the permission rules decide for a tool call, as JSON.

    tether permissions check --tool Bash --input '{"command": "git push"}'
    tether permissions check --batch calls.jsonl      # one {"tool": ..., "input": {...}} a line

The rules are the ones a session in that directory would have: every settings file tether
reads, `--settings`, `.tether/permissions.yaml`, `--allowedTools` / `--disallowedTools`.
Exit 0 with one decision line per call; 2 on a configuration error (message on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from tether import bounded_json
from tether.cli.ownership import Ownership
from tether.cli.safety import SafetyOptions, permission_context, sandbox_would_run
from tether.cli.untrusted_settings import restrict_settings
from tether.config.project import project_root
from tether.config.settings import load_settings, settings_files, tether_home
from tether.config.trust import workspace_trust
from tether.permissions import (
    MODES,
    Decision,
    PermissionContext,
    decide,
)
from tether.permissions.tool_names import unknown_tool_notes, unmatched_rule_notes
from tether.protocol import ConfigError

USAGE_ERROR = 2


def main(argv: list[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else USAGE_ERROR
    try:
        ctx = _context(args)
        _warn_unknown_tools(args)
        for note in unmatched_rule_notes(ctx.rules):
            print(f"tether: {note}", file=sys.stderr)
        if args.batch is not None:
            return _check_batch(args.batch, ctx, sys.stdout)
        if args.tool is None:
            raise ConfigError("permissions check needs --tool and --input, or --batch FILE")
        _print(decide(args.tool, _input_object(args.input), ctx), sys.stdout)
        return 0
    except ConfigError as e:
        print(f"tether: {e}", file=sys.stderr)
        return USAGE_ERROR


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tether permissions")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="decide allow, ask or deny for tool calls")
    check.add_argument("--tool", help="tool name, e.g. Bash, Read, Edit, mcp__server__tool")
    check.add_argument("--input", default="{}", help="the tool input as a JSON object")
    check.add_argument("--batch", help='JSON lines {"tool": ..., "input": {...}}; "-" for stdin')
    check.add_argument("--settings", type=Path, help="an extra settings file (highest precedence)")
    check.add_argument("--mode", choices=MODES, help="permission mode (default: from settings)")
    check.add_argument("--cwd", type=Path, help="the project directory (default: here)")
    check.add_argument(
        "--allowedTools",
        "--allowed-tools",
        dest="allowed",
        action="append",
        default=[],
        help="extra allow rules, as on the main command",
    )
    check.add_argument(
        "--disallowedTools",
        "--disallowed-tools",
        dest="disallowed",
        action="append",
        default=[],
        help="extra deny rules",
    )
    return parser


def _context(args: argparse.Namespace) -> PermissionContext:
    start = (args.cwd or Path.cwd()).expanduser().resolve()
    if not start.is_dir():
        raise ConfigError(f"--cwd {start} is not a directory")
    project = project_root(start, user_home=Path.home())  # as a session started there
    explicit = args.settings.expanduser().resolve() if args.settings else None
    files = settings_files(project, home=tether_home(), explicit=explicit, start=start)
    settings = load_settings(files, required=explicit)
    # As a session would decide: an untrusted workspace's files only restrict.
    user_home = Path(os.environ.get("HOME") or Path.home())
    home = tether_home()
    trust = workspace_trust(project, tether_home=home, user_home=user_home, env=os.environ)
    trusted = trust.trusted
    if not trusted:
        owners = Ownership(project, user_home, home)
        settings = restrict_settings(settings, owners, explicit=explicit)
    options = SafetyOptions(
        args.mode, tuple(args.allowed), tuple(args.disallowed), workspace_trusted=trusted
    )
    context, _ = permission_context(settings, options, workspace=project)
    # As a session would decide: whether Bash would run in the sandbox changes what some
    # commands mean (`git checkout` writing protected files).
    return replace(context, bash_sandboxed=sandbox_would_run(settings))


def _warn_unknown_tools(args: argparse.Namespace) -> None:
    """A misspelled tool is told on stderr: no rule names it, so the answer says little."""
    notes = [
        *unknown_tool_notes("--tool", [args.tool] if args.tool else []),
        *unknown_tool_notes("--allowedTools", args.allowed),
        *unknown_tool_notes("--disallowedTools", args.disallowed),
    ]
    for note in notes:
        print(f"tether: {note}", file=sys.stderr)


def _check_batch(source: str, ctx: PermissionContext, out: TextIO) -> int:
    """Every line is read and checked before the first decision is printed: a broken batch
    gives an error, never half an answer."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for number, line in _batch_lines(source):
        try:
            call = bounded_json.loads(line)
        except json.JSONDecodeError as e:
            problem = bounded_json.error_text(e)
            raise ConfigError(f"batch line {number}: not JSON: {problem}") from None
        if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
            raise ConfigError(f'batch line {number}: expected {{"tool": NAME, "input": {{...}}}}')
        tool_input = call.get("input", {})
        if not isinstance(tool_input, dict):
            raise ConfigError(f"batch line {number}: input must be a JSON object")
        calls.append((call["tool"], tool_input))
    for tool, tool_input in calls:
        _print(decide(tool, tool_input, ctx), out)
    return 0


def _batch_lines(source: str) -> Iterator[tuple[int, str]]:
    if source == "-":
        lines = sys.stdin.read().splitlines()
    else:
        try:
            lines = Path(source).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"cannot read batch file {source}: {e}") from None
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield number, line


def _input_object(text: str) -> dict[str, Any]:
    try:
        value = bounded_json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"--input is not JSON: {bounded_json.error_text(e)}") from None
    if not isinstance(value, dict):
        raise ConfigError("--input must be a JSON object")
    return value  # pyright: ignore[reportUnknownVariableType]


def _print(decision: Decision, out: TextIO) -> None:
    record = {"decision": decision.behavior, "rule": decision.rule, "reason": decision.reason}
    out.write(json.dumps(record, ensure_ascii=False) + "\n")
    out.flush()
