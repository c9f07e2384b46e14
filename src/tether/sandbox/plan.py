"""From settings and the probe's answer to a session's sandbox, and what to tell the user.

Where the sandbox cannot run, the user hears it at every start-up (not once, not in a log):
with `sandbox.required` Bash is refused, otherwise it runs unsandboxed and the notice says so.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sysconfig
from collections.abc import Mapping
from pathlib import Path

from tether.sandbox.bwrap import SECRETS_IN_HOME, Sandbox
from tether.sandbox.denied_reads import DeniedScan, ReadDenials
from tether.sandbox.home_view import git_identity, home_toolchain_dirs
from tether.sandbox.made_refs import MADE_REFS
from tether.sandbox.outside_home import passwd_home_secrets, relocated_secrets, root_secrets
from tether.sandbox.placeholders import private_dir
from tether.sandbox.probe import SandboxStatus
from tether.sandbox.repo_content import RepoHistory
from tether.sandbox.setid_files import SetidScan
from tether.sandbox.settings import SandboxSettings
from tether.sandbox.start_patterns import swept_path
from tether.sandbox.start_sweep import StartSweep


def _outside_dev(path: Path) -> tuple[Path, ...]:
    """`path`, unless under /dev (which sandboxes get fresh: nothing there to hide)."""
    return () if path.is_relative_to("/dev") else (path,)


REQUIRED_BUT_UNAVAILABLE = "sandbox.required is set but the sandbox cannot run here"
"""How a refusal starts; the reason follows."""


def plan_sandbox(
    settings: SandboxSettings,
    status: SandboxStatus,
    *,
    workspace: Path,
    scratch_dir: Path,
    home: Path,
    tether_home: Path | None = None,
    environ: Mapping[str, str] | None = None,
    read_denials: ReadDenials | None = None,
    edit_denials: ReadDenials | None = None,
    stale_in_background: bool = False,
) -> tuple[Sandbox | None, str | None, bool]:
    """(the session's sandbox or None, a one-line notice for the user or None, whether Bash
    must be refused).

    The notice is None when all is well or the user turned the sandbox off. When Bash is
    refused the notice is also the refusal the Bash tool gives (`ToolContext.bash_refusal`).
    `sandbox.required` wins over `sandbox.enabled: false`: it promises Bash never runs
    unsandboxed. `tether_home` is hidden inside wherever it is, but for the scratch directory
    (by default it is found from a scratch directory laid out as `<home>/scratch/<session>`).
    `environ` (the process's by default) says where Claude Code's configuration is
    (`CLAUDE_CONFIG_DIR`) and which directories are on `PATH`. `read_denials`: what the
    `Read` deny rules name, hidden inside (`denied_reads.py`); `edit_denials`: what the
    `Edit` deny rules name, read-only inside (a symlink swapped between the permission
    engine's decision and the command's run cannot lead a write there).

    A session starts here, so this is also where what a killed tether left in the workspace
    (placeholders) is removed: before this returns, or, `stale_in_background`, on a thread
    that the session's first command waits for (a session's build does not wait for it).
    """
    env = os.environ if environ is None else environ
    if settings.enabled is False:
        if settings.required:
            return (
                None,
                f"{REQUIRED_BUT_UNAVAILABLE}: it is turned off (sandbox.enabled: false). "
                "Bash commands are refused.",
                True,
            )
        return None, None, False
    if not status.works:
        reason = status.reason or "the probe failed"
        if settings.required:
            return None, f"{REQUIRED_BUT_UNAVAILABLE}: {reason}. Bash commands are refused.", True
        if settings.enabled is None:
            return (
                None,
                f"The Bash sandbox is on by default but cannot run here: {reason}. Bash "
                "commands run unsandboxed (set sandbox.enabled: false to silence this, or "
                "sandbox.required: true to refuse them).",
                False,
            )
        return (
            None,
            f"sandbox.enabled is set but the sandbox cannot run here: {reason}. Bash commands "
            "run UNSANDBOXED (set sandbox.required: true to refuse them instead).",
            False,
        )
    workspace = workspace.resolve()
    scratch_dir = scratch_dir.resolve()
    extra = tuple(_setting_path(workspace, p) for p in settings.writable)
    if tether_home is None and scratch_dir.parent.name == "scratch":
        tether_home = scratch_dir.parent.parent
    own = () if tether_home is None else (tether_home.resolve(),)
    claude_dir = env.get("CLAUDE_CONFIG_DIR")
    claude = (Path(claude_dir).resolve(),) if claude_dir and Path(claude_dir).is_absolute() else ()
    home = home.resolve()
    roots = (workspace, scratch_dir, *extra)
    sandbox = Sandbox(
        workspace=workspace,
        writable=(scratch_dir, *(p for p in extra if p != scratch_dir)),
        network=settings.network,
        tmp_dir=scratch_dir / "tmp",
        # Once each: tether's home is often `~/.tether`, in the table too.
        hidden=tuple(
            dict.fromkeys(
                (
                    *(home / p for p in SECRETS_IN_HOME),
                    *own,
                    *relocated_secrets(env, SECRETS_IN_HOME, keep=roots),
                    *passwd_home_secrets(home, SECRETS_IN_HOME, keep=roots),
                    *root_secrets(),
                    *_outside_dev(private_dir()),
                )
            )
        ),
        bwrap=status.bwrap or Path("bwrap"),
        home=home,
        disable_userns=status.disable_userns,
        env_keep=settings.env,
        unix_sockets=tuple(_setting_path(workspace, p) for p in settings.unix_sockets),
        all_unix_sockets=settings.all_unix_sockets,
        scratch=scratch_dir,
        guarded=(
            *own,
            *claude,
            *_path_dirs(env.get("PATH", ""), home, workspace),
            *own_installation(roots),
        ),
        readable=tuple(_readable_path(p) for p in settings.readable),
        toolchain_dirs=tuple(home_toolchain_dirs(env, home, workspace)),
        identity=functools.partial(git_identity, home, dict(env)),
        denied_scan=(
            DeniedScan(read_denials) if read_denials is not None and read_denials.prefixes else None
        ),
        edit_scan=(
            DeniedScan(edit_denials) if edit_denials is not None and edit_denials.prefixes else None
        ),
        # The refs commands made, kept out of every later session's history (`made_refs.py`).
        start_sweep=StartSweep(
            history=RepoHistory(swept=swept_path, made_dir=own[0] / MADE_REFS if own else None)
        ),
    )
    if os.geteuid() == 0:
        sandbox = dataclasses.replace(sandbox, setid_scan=SetidScan(sandbox.writable_mounts()))
    sandbox.remove_stale_placeholders(in_background=stale_in_background)
    return sandbox, None, False


def _setting_path(workspace: Path, path: Path) -> Path:
    """A path from the settings, resolved, unless a symlink inside the workspace or /tmp leads
    it elsewhere: a command may have made that link (`ln -s ~/.ssh build` for a writable
    `build`), so the path stays as named and the sandbox, which binds nothing through a
    symlink, leaves it alone."""
    named = Path(os.path.abspath(workspace / path))
    resolved = named.resolve()
    places = (workspace, Path(os.path.realpath("/tmp")), Path("/tmp"))
    if resolved != named and any(named.is_relative_to(p) for p in places):
        return named
    return resolved


def _readable_path(path: Path) -> Path:
    """A `sandbox.readable` path with the home reached through a link resolved, so that it
    compares with the resolved home; its own last component is kept as named (a link there
    is made again inside, `home_view`)."""
    return Path(os.path.realpath(path.parent)) / path.name if path.name else path


def _path_dirs(path: str, home: Path, workspace: Path) -> tuple[Path, ...]:
    """The directories on PATH in the home: a program put there shadows one the user runs
    later. Not those of the project itself (its virtualenv's `bin`), unless the workspace
    holds the home."""
    project = workspace != home and not home.is_relative_to(workspace)
    found: list[Path] = []
    for entry in path.split(":"):
        if not entry.startswith("/"):
            continue
        directory = Path(os.path.realpath(entry))
        inside_project = project and directory.is_relative_to(workspace)
        if directory.is_relative_to(home) and directory != home and not inside_project:
            found.append(directory)
    return tuple(dict.fromkeys(found))


def own_installation(roots: tuple[Path, ...]) -> tuple[Path, ...]:
    """The directories of the interpreter running tether that lie in a writable root (tether
    installed in the workspace's `.venv`): its site-packages and scripts. A `.pth` file there
    runs at the next `tether` start, before any permission check and outside the sandbox
    (measured), as would a changed module or `bin/tether`: guarded as a whole."""
    paths = sysconfig.get_paths()
    found: list[Path] = []
    for key in ("purelib", "platlib", "scripts"):
        directory = Path(os.path.realpath(paths[key]))
        if any(directory.is_relative_to(root) for root in roots):
            found.append(directory)
    return tuple(dict.fromkeys(found))
