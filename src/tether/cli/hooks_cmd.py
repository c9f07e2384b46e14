"""`tether hooks check`: list every configured hook, run each once on a sample input, and report
missing scripts, failures and output tether cannot read."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

from tether.cli.plugin_parts import session_plugins
from tether.cli.workspace_review import review_workspace
from tether.config.project import project_root
from tether.config.settings import Settings, load_settings, settings_files, tether_home
from tether.config.trust import workspace_trust
from tether.hooks import HookRunner, HooksConfig, HookSpec, read_hooks
from tether.hooks.builtin import BuiltinSettings, read_builtin_settings
from tether.hooks.check import HookCheck, check_hook
from tether.hooks.output import describe
from tether.protocol import ConfigError
from tether.shown_urls import shown_url


def main(argv: list[str]) -> int:
    """0: every hook looks fine; 1: a problem was found; 2: the settings are broken."""
    args = _parser().parse_args(argv)
    start = (args.cwd or Path.cwd()).expanduser().resolve()
    workspace = project_root(start, user_home=Path.home())  # as a session started there
    try:
        settings = load_settings(
            settings_files(workspace, home=tether_home(), explicit=args.settings, start=start),
            required=args.settings,
        )
        config = _with_plugin_hooks(read_hooks(settings.layers), settings, args.plugin_dirs)
        builtins = read_builtin_settings(settings.data, base_dir=workspace)
    except ConfigError as e:
        print(f"tether: error: {e}", file=sys.stderr)
        return 2
    for note in config.skipped:
        print(f"skipped: {note}")
    _print_builtins(builtins)
    if not config.specs:
        print("No command hooks configured.")
        return 0
    run = not args.no_run
    if run and not _may_run_workspace_hooks(workspace, start):
        print("The workspace is not trusted: its hooks are listed, not run (see tether trust).")
        run = False
    checks = asyncio.run(_check_all(config.specs, workspace, run=run))
    for check in checks:
        _print_check(check)
    problems = sum(len(c.problems) for c in checks)
    print(
        f"\n{len(checks)} hook{'s' * (len(checks) != 1)} "
        f"{'checked' if run else 'listed'}, "
        f"{problems} problem{'s' * (problems != 1)}."
    )
    return 1 if problems else 0


def _may_run_workspace_hooks(workspace: Path, start: Path) -> bool:
    """Running a cloned repository's hooks needs the same trust a session needs."""
    user_home = Path(os.environ.get("HOME") or Path.home())
    env, home = os.environ, tether_home()
    if workspace_trust(workspace, tether_home=home, user_home=user_home, env=env).trusted:
        return True
    review = review_workspace(
        workspace, user_home=user_home, tether_home=home, env=env, start=start
    )
    return not any(d.kind in ("hook", "plugin") for d in review.declared)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tether hooks", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="list the hooks and run each once on a sample input")
    check.add_argument("--cwd", type=Path, help="the project (default: here)")
    check.add_argument("--settings", type=Path, help="an extra settings file")
    check.add_argument("--no-run", action="store_true", help="list and check scripts only")
    check.add_argument(
        "--plugin-dir",
        dest="plugin_dirs",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="check this plugin's hooks too (those enabledPlugins turns on are checked)",
    )
    return p


def _with_plugin_hooks(config: HooksConfig, settings: Settings, dirs: list[Path]) -> HooksConfig:
    """The settings' hooks, then the hooks of the plugins a session would load."""
    user_home = Path(os.environ.get("HOME") or Path.home())
    plugins = session_plugins(settings, dirs, user_home=user_home, tether_home=tether_home())
    specs, notes = plugins.hooks()
    if settings.data.get("disableAllHooks") is True:
        specs = ()
    return HooksConfig((*config.specs, *specs), (*config.skipped, *plugins.notices, *notes))


async def _check_all(specs: tuple[HookSpec, ...], workspace: Path, *, run: bool) -> list[HookCheck]:
    with tempfile.TemporaryDirectory(prefix="tether-hooks-check-") as tmp:
        sample_dir = Path(tmp)
        (sample_dir / "sample.txt").write_text("sample\n", encoding="utf-8")
        transcript = sample_dir / "transcript.jsonl"
        transcript.touch()
        runner = HookRunner(
            specs,
            session_id="hooks-check",
            transcript_path=str(transcript),
            cwd=workspace,
            project_dir=workspace,
            permission_mode=lambda: "default",
            env={**os.environ, "TETHER_HOOKS_CHECK": "1"},
        )
        # One at a time: the report reads in order, and hooks checked need not race each other.
        return [await check_hook(runner, s, sample_dir=sample_dir, run=run) for s in specs]


def _print_builtins(builtins: BuiltinSettings) -> None:
    enabled = [
        f"event log -> {builtins.event_log}" if builtins.event_log else None,
        "tool statistics at session end" if builtins.tool_stats else None,
        f"slow-tool notice over {builtins.slow_tool_ms} ms" if builtins.slow_tool_ms else None,
    ]
    for line in enabled:
        if line:
            print(f"built-in: {line}")


def _print_check(check: HookCheck) -> None:
    spec = check.spec
    matcher = f" [{spec.matcher}]" if spec.matcher else ""
    flags = f"timeout {spec.timeout_s:g} s" + (", fail-closed" if spec.fail_closed else "")
    what = f"POST {shown_url(spec.url)}" if spec.url is not None else spec.command
    print(f"\n{spec.event}{matcher}  {what}")
    print(f"  from {spec.source}; {flags}")
    for note in check.notes:
        print(f"  note: {note}")
    if check.run is not None and check.outcome is not None and not check.problems:
        print(f"  ok: {_summary(check)}")
    for problem in check.problems:
        print(f"  PROBLEM: {problem.removeprefix(describe(spec) + ' ')}")


def _summary(check: HookCheck) -> str:
    assert check.run is not None
    assert check.outcome is not None
    outcome = check.outcome
    said: list[str] = []
    if outcome.blocked:
        said.append(f"blocks: {outcome.reason}")
    elif outcome.permission_decision:
        said.append(f"permission {outcome.permission_decision}")
    if outcome.updated_input is not None:
        said.append("changes the tool input")
    if outcome.additional_context:
        chars = sum(len(c) for c in outcome.additional_context)
        said.append(f"adds {chars} characters of context")
    said.extend(f"says: {m}" for m in outcome.system_messages)
    if outcome.stop:
        said.append(f"stops the session: {outcome.stop_reason or '(no reason)'}")
    return f"exit {check.run.exit_code}" + (f"; {'; '.join(said)}" if said else "")
