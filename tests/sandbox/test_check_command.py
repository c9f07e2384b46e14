"""`tether sandbox check`: what it says where the sandbox works and where it does not."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import fields, replace
from pathlib import Path

import pytest

from tether.cli.sandbox_cmd import live_report, read_only_lines
from tether.main import main
from tether.processes import ConfinedCommand
from tether.sandbox import SECRETS_IN_HOME, Sandbox, SandboxSettings, plan_sandbox
from tether.sandbox.bwrap_command import BwrapCommand
from tether.sandbox.denied_links import DeniedLinks
from tether.sandbox.denied_reads import DeniedFound
from tether.sandbox.devices import private_devices
from tether.sandbox.git_sweep import GitSweep
from tether.sandbox.hook_managers import MANAGER_OF
from tether.sandbox.outside_home import passwd_home_secrets, passwd_homes, root_secrets
from tether.sandbox.placeholders import private_dir
from tether.sandbox.protected import WORKSPACE_PROTECTED
from tether.sandbox.selfcheck import Result, tmp_in_session
from tether.sandbox.selfcheck_outside import run_outside_checks
from tether.sandbox.setid_files import SetidFound

from .conftest import STATUS, needs_bwrap

Run = tuple[int, str]
Check = Callable[..., Run]


@pytest.fixture
def check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Check:
    """`check(*args)`: run `tether sandbox check` in a workspace with a fake home."""
    base = tmp_path.resolve()
    for name in ("ws", "home/.ssh", "tether"):
        (base / name).mkdir(parents=True)
    (base / "home" / ".netrc").write_text("")
    monkeypatch.setenv("HOME", str(base / "home"))
    monkeypatch.setenv("TETHER_HOME", str(base / "tether"))
    monkeypatch.chdir(base / "ws")

    def run(*args: str) -> Run:
        status = main(["sandbox", "check", *args])
        return status, capsys.readouterr().out

    return run


def write_settings(tmp_path: Path, sandbox: object) -> None:
    settings = tmp_path.resolve() / "ws" / ".tether" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"sandbox": sandbox}))


@needs_bwrap
def test_where_it_works(check: Check, tmp_path: Path) -> None:
    base = tmp_path.resolve()
    version = subprocess.run(
        [str(STATUS.bwrap), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    write_settings(tmp_path, {"writable": ["build"]})
    protected = ", ".join(p.path for p in WORKSPACE_PROTECTED if p.path not in MANAGER_OF)
    protected += (
        "; git hook managers' configuration (lefthook, husky, lint-staged...) where a hook "
        "runs the manager or its configuration exists, read-only where it exists"
    )
    zero = "0000000000000000"
    state = "" if private_dir().is_relative_to("/dev") else f", {private_dir()}"
    uid = 1000 if os.geteuid() == 0 else os.geteuid()
    sockets = 3 if os.access("/run", os.W_OK) else 2
    secrets = [p for p in root_secrets() if p.exists()]
    etc = "".join(f", {p}" for p in secrets)
    # The home the passwd database names for this uid (HOME is the test's): its own.
    passwd = "".join(
        f", {p}" for p in passwd_home_secrets(base / "home", SECRETS_IN_HOME, keep=()) if p.exists()
    )
    devices = private_devices()
    as_root = (
        "  read-only as root: 0 setuid or setgid files under the writable roots\n"
        f"  /dev: tether's own device files ({devices}), not the machine's\n"
        if os.geteuid() == 0
        else ""
    )
    if os.geteuid() == 0:
        outside = (
            "  ok      existing setuid files: a root setuid file in the workspace cannot be "
            "opened for writing (Read-only file system), so a shared mapping cannot rewrite it\n"
            "  ok      device files: /dev/null, /dev/zero, /dev/urandom: tether's own nodes, not "
            "the machine's; chmod, chown and utime of each refused; the host's unchanged\n"
            f"  ok      root's secrets: {len(secrets)} present ({', '.join(map(str, secrets))}) "
            "read as empty\n"
        )
    else:
        outside = (
            "  ok      existing setuid files: not tested: tether is not root, so a setuid file "
            "the command can write is its own\n"
            "  ok      device files: /dev/null, /dev/zero, /dev/urandom: the machine's (root's: "
            "the command is not their owner); chmod, chown and utime of each refused; the "
            "host's unchanged\n"
            "  ok      root's secrets: not root: their modes keep the command out\n"
        )
    outside += (
        "  ok      relocated credential stores: 8 sentinels where KUBECONFIG, "
        "AWS_SHARED_CREDENTIALS_FILE, DOCKER_CONFIG, GNUPGHOME, XDG_CONFIG_HOME, CARGO_HOME, "
        "SOPS_AGE_KEY_FILE, ANSIBLE_VAULT_PASSWORD_FILE point read as empty\n"
    )
    # Inside the check, its own temporary home is HOME: this uid's passwd home is elsewhere.
    elsewhere = Path("/nonexistent")
    own = [p for p in passwd_home_secrets(elsewhere, SECRETS_IN_HOME, keep=()) if p.exists()]
    homes = passwd_homes(elsewhere)
    outside += (
        "  ok      the passwd home: with HOME elsewhere, the credential places present in the "
        f"home the passwd database names ({', '.join(map(str, homes))}) "
        f"read as empty: {len(own)} ({', '.join(map(str, own)) or 'none present'})\n"
        "  ok      new repositories: a repository made inside with core.fsmonitor and a hook: "
        "both disabled when the command ended (the config kept aside), git status outside "
        "runs neither\n"
        "  ok      start-up files anywhere: settings, MCP servers, editor tasks and a workspace "
        "plugin's hooks made inside in directories no mount guards (5): moved aside when the "
        "command ended\n"
    )
    assert check() == (
        0,
        f"Sandbox: works here ({version}, {STATUS.bwrap}).\n"
        "Settings: enabled (the default: on where it works), network off, not required.\n"
        "Bash commands run under bubblewrap:\n"
        f"  writable: {base}/ws (the workspace)\n"
        f"  writable: {base}/tether/scratch/<session> (the session's scratch directory)\n"
        f"  writable: {base}/tether/scratch/<session>/tmp (TMPDIR: the session's own, removed "
        "at its end)\n"
        f"  writable: {base}/ws/build (does not exist yet)\n"
        "  read-only: everything else (/tmp, /proc/sys and the kernel's /proc files too)\n"
        + as_root
        + f"  home: ~ ({base}/home) hidden (empty, read-only) but for the workspace and writable "
        "paths in it; shown read-only: nothing\n"
        f"  protected (read-only, cannot be created): .git/config, .git/hooks, {protected}\n"
        "  start-up files anywhere below (the permission engine's table at any depth, a "
        "workspace plugin's hooks, skills, agents, commands, MCP servers): made or changed by "
        "a command where no mount guards them, moved aside when it ends\n"
        "  installed code (read-only, runs outside later): virtual environments' "
        "site-packages and bin, node_modules; the files a .envrc loads (made ones moved "
        "aside)\n"
        f"  hidden: ~/.ssh, ~/.netrc, {base}/tether{passwd}{etc}{state}\n"
        "  hidden by Read deny rules: nothing (no Read deny rule names a path)\n"
        "  network: cut (loopback included)\n"
        "  unix sockets: refused (seccomp filter on socket(AF_UNIX))\n"
        "  vsock: refused (seccomp filter on socket(AF_VSOCK))\n"
        "  user: unprivileged uid, no capabilities"
        + (", no new user namespaces\n" if STATUS.disable_userns else "\n")
        + "  environment: secrets withheld (names like *_API_KEY, *TOKEN*, AWS_*)\n"
        "Tested live on this machine:\n"
        f"  ok      capabilities: CapEff {zero}, CapPrm {zero}, CapBnd {zero}\n"
        f"  ok      uid inside: {uid} (not root)\n"
        "  ok      remount of /: refused; / stays read-only\n"
        "  ok      umount of the hidden home: refused\n"
        "  ok      new user namespace: cannot be created\n"
        "  ok      protected workspace files: read-only, existing (.git/config, "
        ".claude/settings.json, lefthook.yml, .envrc) and missing (.mcp.json, "
        ".git/hooks/pre-commit, .tether/, .npmrc, .cargo/config.toml, .pdbrc, .vscode/tasks.json, "
        "lefthook-local.yml; a nested repository's .claude/settings.json and .mcp.json); "
        "nothing left behind\n"
        f"  ok      unix sockets: {sockets} listeners outside unreachable (seccomp filter)\n"
        "  ok      network off: a 127.0.0.1 listener outside is unreachable\n"
        "  ok      vsock: socket(AF_VSOCK) refused (seccomp filter)\n"
        "  ok      environment: TETHER_CHECK_API_KEY (by name) and CHECK_UPSTREAM=ghp_... (by "
        "value) withheld\n"
        "  ok      processes in sight: no process's environment or command line, nor a file "
        "pid 1 (bwrap) holds open, has their values\n"
        "  ok      home hidden: 3 sentinel files at unlisted places of a temporary home "
        "unreadable, ~/.local/bin readable\n"
        "  ok      hidden files: read as empty, and so does a hard link to one in the "
        "workspace\n"
        "  ok      bwrap's command line: names no hidden or protected path (pid 1's, in sight "
        "inside: the options come through a descriptor)\n"
        "  ok      /tmp: read-only but for TMPDIR, which is the same inside and outside\n"
        "  ok      kernel settings: /proc/sys, /proc/sysrq-trigger and /sys cannot be opened "
        "for writing\n"
        "  ok      setuid and setgid files: cannot be made (3 calls tried: chmod, mkdir, "
        "creating open)\n"
        "  ok      repositories made inside: a bare repository's config and hooks and a new "
        "Mercurial hgrc, which git and hg outside would run, are disabled when the command "
        "ends\n"
        "  ok      symlinked directories: a planted .git/worktrees link to a hidden directory "
        "is not followed: nothing bound, written or made there\n"
        "  ok      installed code: read-only: a virtual environment's site-packages and bin, "
        "node_modules and its .bin, a file a .envrc loads (they run outside later)\n" + outside,
    )


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="the old policy held for unprivileged callers")
def test_a_weaker_sandbox_fails_the_check(capsys: pytest.CaptureFixture[str]) -> None:
    """The policy before capabilities, uid, the seccomp filter and the kernel's read-only
    /proc entries: the check says FAILED."""

    class WithoutPrivilegeDrop(Sandbox):
        def wrap(self, argv: list[str], cwd: Path) -> ConfinedCommand:
            command = super().wrap(argv, cwd)
            assert isinstance(command, BwrapCommand)
            options = command.options
            for option, values in (("--cap-drop", 1), ("--uid", 1), ("--gid", 1), ("--seccomp", 1)):
                if option in options:
                    at = options.index(option)
                    del options[at : at + 1 + values]
            for flag in ("--disable-userns", "--unshare-user"):
                if flag in options:
                    options.remove(flag)
            while (at := _kernel_bind(options)) is not None:
                del options[at : at + 3]
            command.replace_options(options)
            return command

    sandbox, _, _ = plan_sandbox(
        SandboxSettings(),
        STATUS,
        workspace=Path.cwd(),
        scratch_dir=Path(tempfile.gettempdir()) / "unused" / "scratch" / "s",
        home=Path.home(),
    )
    assert sandbox is not None
    weaker = WithoutPrivilegeDrop(**{f.name: getattr(sandbox, f.name) for f in fields(Sandbox)})
    assert live_report(weaker) is False
    failed = [line.split(":")[0].strip() for line in capsys.readouterr().out.splitlines()]
    assert [line for line in failed if line.startswith("FAILED")] == [
        "FAILED  capabilities",
        "FAILED  uid inside",
        "FAILED  remount of /",
        "FAILED  umount of the hidden home",
        "FAILED  new user namespace",
        "FAILED  unix sockets",
        "FAILED  vsock",
        "FAILED  home hidden",  # the probe's umount of the home's cover exposed it
        "FAILED  hidden files",  # the probe's umount exposed them
        "FAILED  /tmp",  # the probe's remount made it writable
        "FAILED  kernel settings",  # /proc/sys as bwrap leaves it
        "FAILED  setuid and setgid files",  # no seccomp filter
        "FAILED  symlinked directories",  # and its remount made them writable
    ]


@needs_bwrap
def test_a_sandbox_showing_its_layout_and_links_and_not_sweeping_fails_the_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """bwrap's options on its command line, no search for other names of hidden files, no
    sweep of what commands make in repositories: the check says FAILED for each."""

    class OnTheCommandLine(Sandbox):
        def wrap(self, argv: list[str], cwd: Path) -> ConfinedCommand:
            command = super().wrap(argv, cwd)
            assert isinstance(command, BwrapCommand)
            command[1:3] = command.options  # in place of `--args FD`
            return command

    class NoLinks(DeniedLinks):
        def find(self, hidden: Iterable[tuple[Path, str]], places: Iterable[Path]) -> DeniedFound:
            return DeniedFound(())

    class NoSweep(GitSweep):
        def sweep(self, roots: Iterable[Path]) -> None:
            pass

    sandbox, _, _ = plan_sandbox(
        SandboxSettings(),
        STATUS,
        workspace=Path.cwd(),
        scratch_dir=Path(tempfile.gettempdir()) / "unused" / "scratch" / "s",
        home=Path.home(),
    )
    assert sandbox is not None
    kept = {f.name: getattr(sandbox, f.name) for f in fields(Sandbox)}
    before = OnTheCommandLine(**{**kept, "denied_links": NoLinks(), "git_sweep": NoSweep()})
    assert live_report(before) is False
    failed = [line.split(":")[0].strip() for line in capsys.readouterr().out.splitlines()]
    assert [line for line in failed if line.startswith("FAILED")] == [
        "FAILED  hidden files",
        "FAILED  bwrap's command line",
        "FAILED  repositories made inside",
    ]


def test_where_bubblewrap_is_missing(
    check: Check, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    reason = (
        "bubblewrap is not installed (no `bwrap` on PATH); install the bubblewrap package "
        "(Debian/Ubuntu: `apt-get install bubblewrap`, Fedora: `dnf install bubblewrap`, "
        "Arch: `pacman -S bubblewrap`)"
    )
    assert check() == (
        1,
        f"Sandbox: does not work here: {reason}.\n"
        "Settings: enabled (the default: on where it works), network off, not required.\n"
        "Instead: Bash commands run unsandboxed. At every start-up tether says:\n"
        f"  The Bash sandbox is on by default but cannot run here: {reason}. Bash commands "
        "run unsandboxed (set sandbox.enabled: false to silence this, or sandbox.required: "
        "true to refuse them).\n",
    )
    write_settings(tmp_path, {"required": True, "network": True})
    assert check() == (
        1,
        f"Sandbox: does not work here: {reason}.\n"
        "Settings: enabled (the default: on where it works), network allowed, required (Bash "
        "refused without it).\n"
        "Instead: Bash commands are refused. At every start-up tether says:\n"
        f"  sandbox.required is set but the sandbox cannot run here: {reason}. Bash commands "
        "are refused.\n",
    )


def test_turned_off(check: Check, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    write_settings(tmp_path, {"enabled": False})
    status, out = check()
    assert (status, out.splitlines()[1:]) == (
        1,
        [
            "Settings: disabled (sandbox.enabled: false), network off, not required.",
            "Bash commands run unsandboxed: the sandbox is turned off in settings.",
        ],
    )


def test_bad_settings(check: Check, tmp_path: Path) -> None:
    """A guard's value of the wrong type (`sandbox.network`) stops the check, naming the file
    and the key (`tether.config.fault_remedies`): read any other way it could let more out."""
    write_settings(tmp_path, {"network": "yes"})
    status, out = check()
    assert status == 2, out
    assert '"sandbox.network" must be true or false, or an object, not a string ("yes")' in out


def test_usage(check: Check) -> None:
    assert check("--bogus")[0] == 2


def _kernel_bind(command: list[str]) -> int | None:
    """Where the first read-only bind over the new /proc is, if any."""
    for at, arg in enumerate(command[:-2]):
        if arg == "--ro-bind" and command[at + 2].startswith("/proc/"):
            return at
    return None


def test_a_workspace_that_holds_tmp_is_said_to_make_it_writable(tmp_path: Path) -> None:
    """The plan and the live /tmp line describe the session that would run: with the
    workspace at (or above) /tmp, /tmp is writable there; elsewhere it is read-only."""
    base = tmp_path.resolve()
    tmp = base / "ws" / "tmp"
    tmp.mkdir(parents=True)
    sandbox, _, _ = plan_sandbox(
        SandboxSettings(),
        STATUS,
        workspace=base / "ws",
        scratch_dir=base / "scratch" / "s",
        home=base / "home",
    )
    assert sandbox is not None
    live = Result(True, "/tmp", "read-only but for TMPDIR")
    elsewhere = base / "other-tmp"
    assert (
        read_only_lines(sandbox, tmp=tmp)[:2],
        read_only_lines(sandbox, tmp=elsewhere)[0],
        tmp_in_session(live, sandbox, tmp=tmp).detail,
        tmp_in_session(live, sandbox, tmp=elsewhere),
    ) == (
        [
            f"  writable: {tmp}, which lies in {base / 'ws'}: other projects' and users' files "
            "there too",
            "  read-only: everything else (/proc/sys and the kernel's /proc files too)",
        ],
        "  read-only: everything else (/tmp, /proc/sys and the kernel's /proc files too)",
        f"read-only but for TMPDIR (tested on a throwaway workspace); in this session {tmp} is "
        f"WRITABLE: it lies in the writable {base / 'ws'}",
        live,
    )


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="the case of tether running as root")
def test_a_sandbox_with_the_machines_devices_and_no_setid_binds_fails_the_check(
    tmp_path: Path,
) -> None:
    base = tmp_path.resolve()
    sandbox, _, _ = plan_sandbox(
        SandboxSettings(),
        STATUS,
        workspace=base,
        scratch_dir=base / "scratch" / "s",
        home=base / "home",
    )
    assert sandbox is not None
    weaker = replace(sandbox, devices=lambda: None, setid_scan=lambda roots: SetidFound(()))
    results = run_outside_checks(weaker)
    assert [(r.name, r.ok) for r in results] == [
        ("existing setuid files", False),
        ("device files", False),
        ("root's secrets", True),
        ("relocated credential stores", True),
        ("the passwd home", True),
        ("new repositories", True),
        ("start-up files anywhere", True),
    ], [r.line() for r in results]
