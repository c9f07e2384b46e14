"""`tether sandbox check`: whether the Bash sandbox works here, and if not, exactly why and
what runs instead, under the settings of the current directory."""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

from tether.config.settings import load_settings, settings_files, tether_home
from tether.protocol import ConfigError
from tether.sandbox import (
    SandboxSettings,
    SandboxStatus,
    parse_sandbox_settings,
    plan_sandbox,
    probe,
)

USAGE = "tether sandbox check [--settings FILE]"


def main(argv: list[str]) -> int:
    """0 when the sandbox works here, 1 when it does not, 2 for a usage or settings error."""
    parser = argparse.ArgumentParser(
        prog="tether sandbox",
        usage=USAGE,
        description="Check whether Bash commands can run sandboxed (bubblewrap) here.",
    )
    parser.add_argument("action", choices=["check"])
    parser.add_argument("--settings", type=Path, help="an extra settings file, as for tether")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    workspace = Path.cwd().resolve()
    home = tether_home()
    try:
        settings = load_settings(
            settings_files(workspace, home=home, explicit=args.settings), required=args.settings
        )
        wanted = parse_sandbox_settings(settings.data)
    except ConfigError as e:
        print(f"tether sandbox: {e}")
        return 2
    status = probe()
    for line in report(wanted, status, workspace=workspace, tether_home=home, home=Path.home()):
        print(line)
    return 0 if status.works else 1


def report(
    wanted: SandboxSettings,
    status: SandboxStatus,
    *,
    workspace: Path,
    tether_home: Path,
    home: Path,
) -> list[str]:
    """The lines `check` prints."""
    scratch = tether_home / "scratch" / "<session>"
    if status.works:
        lines = [f"Sandbox: works here ({_version(status.bwrap)}, {status.bwrap})."]
    else:
        lines = [f"Sandbox: does not work here: {status.reason}."]
    lines.append(f"Settings: {_describe(wanted)}.")
    sandbox, notice, refused = plan_sandbox(
        wanted, status, workspace=workspace, scratch_dir=scratch, home=home
    )
    if refused:
        lines.append("Instead: Bash commands are refused. At every start-up tether says:")
        lines.append(f"  {notice}")
    elif sandbox is None and notice is not None:
        lines.append("Instead: Bash commands run unsandboxed. At every start-up tether says:")
        lines.append(f"  {notice}")
    elif sandbox is None:
        lines.append("Bash commands run unsandboxed: the sandbox is turned off in settings.")
    else:
        lines.append("Bash commands run under bubblewrap:")
        lines.append(f"  writable: {workspace} (the workspace)")
        lines.append(f"  writable: {scratch} (the session's scratch directory)")
        lines.append(f"  writable: {sandbox.tmp_dir} (TMPDIR and /tmp, private to the session)")
        for path in sandbox.writable[1:]:
            lines.append(f"  writable: {path}{'' if path.exists() else ' (does not exist yet)'}")
        lines.append("  read-only: everything else")
        present = [f"~/{p.relative_to(home)}" for p in sandbox.hidden if p.exists()]
        lines.append(f"  hidden: {', '.join(present) or '(none present)'}")
        lines.append(
            "  network: allowed" if sandbox.network else "  network: cut (loopback included)"
        )
    return lines


def _describe(wanted: SandboxSettings) -> str:
    if wanted.enabled is None:
        enabled = "enabled (the default: on where it works)"
    else:
        enabled = "enabled" if wanted.enabled else "disabled (sandbox.enabled: false)"
    network = "network allowed" if wanted.network else "network off"
    required = "required (Bash refused without it)" if wanted.required else "not required"
    return f"{enabled}, {network}, {required}"


def _version(bwrap: Path | None) -> str:
    if bwrap is None:
        return "bwrap"
    try:
        done = subprocess.run(
            [str(bwrap), "--version"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return "bwrap"
    return done.stdout.strip() or "bwrap"
