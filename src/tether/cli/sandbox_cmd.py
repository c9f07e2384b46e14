"""`tether sandbox check`: whether the Bash sandbox works here, and if not, exactly why and
what runs instead, under the settings of the current directory; where it works, each of its
properties tested live (one line each, ok or FAILED)."""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

from tether.cli.safety import SafetyOptions, permission_context
from tether.config.project import project_root
from tether.config.settings import Settings, load_settings, settings_files, tether_home
from tether.permissions import read_deny_matcher
from tether.protocol import ConfigError
from tether.sandbox import (
    ReadDenials,
    Sandbox,
    SandboxSettings,
    SandboxStatus,
    parse_sandbox_settings,
    plan_sandbox,
    probe,
)
from tether.sandbox.hook_managers import MANAGER_OF
from tether.sandbox.mounts import denied_now
from tether.sandbox.protected import WORKSPACE_PROTECTED
from tether.sandbox.selfcheck import run_checks
from tether.sandbox.selfcheck_outside import run_outside_checks
from tether.slotted import replaced

USAGE = "tether sandbox check [--settings FILE]"


def main(argv: list[str]) -> int:
    """0 when the sandbox works here and every property held, 1 when it does not work or a
    property failed, 2 for a usage or settings error."""
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
    start = Path.cwd().resolve()
    workspace = project_root(start, user_home=Path.home())  # as a session started here
    home = tether_home()
    try:
        settings = load_settings(
            settings_files(workspace, home=home, explicit=args.settings, start=start),
            required=args.settings,
        )
        wanted = parse_sandbox_settings(settings.data)
        denials = read_denials(settings, workspace)
        edits = read_denials(settings, workspace, tool="Edit")
    except ConfigError as e:
        print(f"tether sandbox: {e}")
        return 2
    status = probe(fresh=True)  # what holds now, not what an earlier start found
    lines = report(
        wanted,
        status,
        workspace=workspace,
        tether_home=home,
        home=Path.home(),
        denials=denials,
        edits=edits,
    )
    for line in lines:
        print(line)
    if not status.works:
        return 1
    sandbox, _, _ = plan_sandbox(
        replaced(wanted, enabled=True),
        status,
        workspace=workspace,
        scratch_dir=home / "scratch" / "check",
        home=Path.home(),
        tether_home=home,
        read_denials=denials,
        edit_denials=edits,
    )
    assert sandbox is not None
    return 0 if live_report(sandbox) else 1


def read_denials(settings: Settings, workspace: Path, tool: str = "Read") -> ReadDenials:
    """What the settings' `Read` deny rules hide (`Edit`'s: keep read-only), as a session
    started here would."""
    context, _ = permission_context(settings, SafetyOptions(), workspace=workspace)
    match, prefixes, names = read_deny_matcher(
        context.rules, workspace=context.workspace, home=context.home, tool=tool
    )
    return ReadDenials(match, prefixes, names)


def live_report(sandbox: Sandbox) -> bool:
    """Print each property as tested now; whether all held."""
    results = run_checks(sandbox) + run_outside_checks(sandbox)
    print("Tested live on this machine:")
    for result in results:
        print(result.line())
    return all(r.ok for r in results)


def report(
    wanted: SandboxSettings,
    status: SandboxStatus,
    *,
    workspace: Path,
    tether_home: Path,
    home: Path,
    denials: ReadDenials | None = None,
    edits: ReadDenials | None = None,
) -> list[str]:
    """The lines `check` prints; `denials`: the `Read` deny rules' matcher, whose paths are
    listed as hidden."""
    scratch = tether_home / "scratch" / "<session>"
    if status.works:
        lines = [f"Sandbox: works here ({_version(status.bwrap)}, {status.bwrap})."]
    else:
        lines = [f"Sandbox: does not work here: {status.reason}."]
    lines.append(f"Settings: {_describe(wanted)}.")
    sandbox, notice, refused = plan_sandbox(
        wanted,
        status,
        workspace=workspace,
        scratch_dir=scratch,
        home=home,
        read_denials=denials,
        edit_denials=edits,
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
        lines.append(
            f"  writable: {sandbox.tmp_dir} (TMPDIR: the session's own, removed at its end)"
        )
        for path in sandbox.writable[1:]:
            lines.append(f"  writable: {path}{'' if path.exists() else ' (does not exist yet)'}")
        lines += read_only_lines(sandbox)
        lines.append(f"  {_home_line(sandbox, home)}")
        names = ", ".join(p.path for p in WORKSPACE_PROTECTED if p.path not in MANAGER_OF)
        lines.append(
            f"  protected (read-only, cannot be created): .git/config, .git/hooks, {names}; "
            "git hook managers' configuration (lefthook, husky, lint-staged...) where a hook "
            "runs the manager or its configuration exists, read-only where it exists"
        )
        lines.append(
            "  start-up files anywhere below (the permission engine's table at any depth, a "
            "workspace plugin's hooks, skills, agents, commands, MCP servers): made or changed "
            "by a command where no mount guards them, moved aside when it ends"
        )
        lines.append(
            "  installed code (read-only, runs outside later): virtual environments' "
            "site-packages and bin, node_modules; the files a .envrc loads (made ones moved "
            "aside)"
        )
        if sandbox.edit_scan is not None:
            lines.append("  Edit deny rules: what they name under the writable places is read-only")
        present = [_shown(p, home) for p in sandbox.hidden if p.exists()]
        lines.append(f"  hidden: {', '.join(present) or '(none present)'}")
        lines += denied_lines(sandbox, workspace, home)
        lines.append(
            "  network: allowed" if sandbox.network else "  network: cut (loopback included)"
        )
        if sandbox.all_unix_sockets:
            lines.append("  unix sockets: allowed (sandbox.network.allowAllUnixSockets)")
        elif sandbox.socket_filter:
            lines.append("  unix sockets: refused (seccomp filter on socket(AF_UNIX))")
        else:
            allowed = ", ".join(map(str, sandbox.unix_sockets)) or "none"
            lines.append(
                f"  unix sockets: no seccomp filter here; /run covered; allowed: {allowed}"
            )
        if sandbox.vsock_filter:
            lines.append("  vsock: refused (seccomp filter on socket(AF_VSOCK))")
        lines.append(
            "  user: unprivileged uid, no capabilities"
            + (", no new user namespaces" if sandbox.disable_userns else "")
        )
        lines.append("  environment: secrets withheld (names like *_API_KEY, *TOKEN*, AWS_*)")
    return lines


def read_only_lines(sandbox: Sandbox, tmp: Path = Path("/tmp")) -> list[str]:
    """What stays read-only, /tmp as this session has it (writable when a writable root holds
    it: tether started in /tmp); set-id files and device files as root."""
    tmp = Path(os.path.realpath(tmp))
    holder = next((r for r in sandbox.writable_mounts() if tmp.is_relative_to(r)), None)
    if holder is None:
        lines = ["  read-only: everything else (/tmp, /proc/sys and the kernel's /proc files too)"]
    else:
        where = "is the workspace" if tmp == sandbox.workspace else f"lies in {holder}"
        lines = [
            f"  writable: {tmp}, which {where}: other projects' and users' files there too",
            "  read-only: everything else (/proc/sys and the kernel's /proc files too)",
        ]
    if os.geteuid() == 0:
        found = sandbox.setid_files
        lines.append(
            f"  read-only as root: {len(found)} setuid or setgid files under the writable "
            "roots"
            + (f" ({', '.join(map(str, found[:5]))}{'...' * (len(found) > 5)})" if found else "")
        )
        if (cut := sandbox.setid_search.cut) is not None:
            lines.append(f"  NOTICE: {cut}")
        devices = sandbox.devices()
        lines.append(
            "  /dev: the machine's device files (tether could not make its own here)"
            if devices is None
            else f"  /dev: tether's own device files ({devices}), not the machine's"
        )
    return lines


DENIED_LISTED = 20
"""Paths the Read deny rules hide that `check` names; the rest are counted."""


def denied_lines(sandbox: Sandbox, workspace: Path, home: Path) -> list[str]:
    """What the `Read` deny rules hide from a command started now (the first
    `DENIED_LISTED`, then how many more), and what the walk's bounds left unsearched."""
    if sandbox.denied_scan is None:
        return ["  hidden by Read deny rules: nothing (no Read deny rule names a path)"]
    found = denied_now(sandbox)
    named = [
        f"{_in_workspace(d.path, workspace, home)}{'/' if d.directory else ''} ({d.rule})"
        for d in found.paths[:DENIED_LISTED]
    ]
    more = len(found.paths) - len(named)
    listed = ", ".join(named) + (f" and {more} more" if more > 0 else "")
    lines = [
        f"  hidden by Read deny rules: {len(found.paths)} paths now"
        + (f": {listed}" if named else "")
        + " (looked for again at each command)"
    ]
    if found.cut is not None:
        lines.append(f"  NOTICE: {found.cut}")
    return lines


def _in_workspace(path: Path, workspace: Path, home: Path) -> str:
    return (
        str(path.relative_to(workspace)) if path.is_relative_to(workspace) else _shown(path, home)
    )


def _home_line(sandbox: Sandbox, home: Path) -> str:
    """What the home looks like inside, and what of it is shown."""
    if sandbox.home is None:
        return "home: not hidden"
    shown = ", ".join(_shown(p, sandbox.home) for p in sandbox.shown_in_home()) or "nothing"
    if sandbox.home in sandbox.writable_mounts():
        seen = "the workspace: top level read-only, folders writable, dot entries hidden"
    else:
        seen = "hidden (empty, read-only) but for the workspace and writable paths in it"
    return f"home: {_shown(sandbox.home, home)} {seen}; shown read-only: {shown}"


def _shown(path: Path, home: Path) -> str:
    if path == home:
        return f"~ ({home})"
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


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
