"""A session's sandbox policy and the bubblewrap command line that enforces it.

Inside: the whole file system read-only but for the workspace, the session's own temporary
directory (TMPDIR, at the same path inside and out, so that every tool sees the same files),
the scratch directory and `sandbox.writable`; in those,
the files that decide what runs later (`protected.py`) read-only, missing ones included;
the home hidden but for toolchains and `sandbox.readable` (`home_view.py`),
secret locations hidden; no capabilities and, when tether runs as root, an unprivileged uid
in a user namespace that cannot make another (the kernel's files in /proc read-only,
`kernel_files.py`, no setuid or setgid file made, `seccomp.py`, those that exist read-only,
`setid_files.py`, tether's own device files, `devices.py`, since that uid is root's outside);
no network and no unix sockets unless allowed;
secrets withheld from the environment; everything killed when tether goes.
"""

from __future__ import annotations

import atexit
import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tether.home_files import HOME_SECRETS
from tether.processes import ConfinedCommand
from tether.sandbox.bwrap_command import BwrapCommand, options_descriptor
from tether.sandbox.denied_links import DeniedLinks
from tether.sandbox.denied_reads import DeniedScan
from tether.sandbox.devices import private_devices
from tether.sandbox.envrc_sources import ENVRC_LOADS, envrc_loads
from tether.sandbox.git_sweep import GitSweep
from tether.sandbox.home_view import exposures
from tether.sandbox.installed_code import installed_code
from tether.sandbox.limits import explain_failure
from tether.sandbox.mounts import sandbox_mounts
from tether.sandbox.nested import nested_protected
from tether.sandbox.nofollow import Descriptors, fresh_directory
from tether.sandbox.placeholders import placeholders_for, remove_all_unused
from tether.sandbox.protected import HOME_PROTECTED, WORKSPACE_PROTECTED, Protected, protected_in
from tether.sandbox.refusal import SearchCut
from tether.sandbox.setid_files import SetidFound, find_setid
from tether.sandbox.start_sweep import StartSweep

SECRETS_IN_HOME: tuple[str, ...] = (
    *(p for p in HOME_SECRETS if not p.startswith(".claude/")),
    # tether's and Claude Code's own: API keys in settings, tokens, past transcripts. The
    # session's scratch directory lies under tether's and is bound again on top.
    ".tether",
    ".claude",
)
"""Paths under the home directory that sandboxed commands cannot read: a directory is covered
by an empty one, a file reads as empty."""

SANDBOX_UID = 1000
"""The uid and gid commands run as when tether runs as root (inside a user namespace that
maps it to root outside, so that root's files stay the user's own)."""

PLACEHOLDER_LINGER_S = 2.0
"""Placeholders stay this long after the workspace's last command ended, for the next one to
use, then go in the background: long enough for a burst of commands (parallel calls, a quick
sequence) to make them once, short enough that what they hide from other programs (an empty
directory at `.mcp.json`) is back to missing moments after the commands stop."""

atexit.register(remove_all_unused)


@dataclass(frozen=True)
class Sandbox:
    """A ready policy for one session; `wrap` is the `command_wrapper` the Bash tool takes."""

    workspace: Path
    writable: tuple[Path, ...]
    """Writable besides the workspace and `tmp_dir` (the scratch directory is one)."""
    network: bool
    tmp_dir: Path
    """The session's temporary directory, TMPDIR inside (visible to every tool at the same
    path). The machine's /tmp is read-only inside: other users' and other projects' files
    there (a clone's `.git/config`, a workspace's `.claude/settings.json`) are out of reach."""
    hidden: tuple[Path, ...]
    """Candidates to hide; those that exist when a command starts are covered."""
    bwrap: Path = Path("bwrap")
    home: Path | None = None
    """The user's home: its own protected files are guarded when it is writable."""
    disable_userns: bool = False
    """bwrap has `--disable-userns` (0.8 and later): nothing inside can make a user namespace."""
    env_keep: tuple[str, ...] = ()
    """`sandbox.env`: variables passed although their names say they are secrets."""
    unix_sockets: tuple[Path, ...] = ()
    """`sandbox.network.allowUnixSockets`: sockets reachable although unix sockets are off."""
    all_unix_sockets: bool = False
    """`sandbox.network.allowAllUnixSockets`: no socket filter at all."""
    scratch: Path | None = None
    """The session's scratch directory (writable, but not a place with protected files)."""
    guarded: tuple[Path, ...] = ()
    """Read-only as a whole, and not to be created, wherever they are writable: tether's home,
    Claude Code's configuration directory, the home's directories on PATH."""
    placeholder_linger_s: float = PLACEHOLDER_LINGER_S
    """How long placeholders stay once no command of the workspace runs (`placeholders.py`)."""
    readable: tuple[Path, ...] = ()
    """`sandbox.readable`: places in the hidden home shown read-only."""
    toolchain_dirs: tuple[Path, ...] = ()
    """The environment's `PATH` directories and virtualenv in the home: shown read-only."""
    identity: Callable[[], tuple[tuple[str, str], ...]] = field(
        default=tuple, compare=False, repr=False
    )
    """Gives the variables set inside: the user's git identity, as `~/.gitconfig` is hidden.
    Asked at the first command (`env_set`): it runs git, about 20 ms a session that runs no
    command would pay at its start. Compared through `env_set`, what it gives."""

    setid_scan: Callable[[tuple[Path, ...]], SetidFound] = field(
        default=find_setid, compare=False, repr=False
    )
    """Finds the setuid and setgid files under the writable roots, bound read-only (as root:
    `setid_files.py`); the session's walk starts in the background once its first response
    begins, or at its first command."""
    devices: Callable[[], Path | None] = field(default=private_devices, compare=False, repr=False)
    """Gives the directory of tether's own device nodes, bound over bwrap's (as root:
    `devices.py`), or None: bwrap's, the machine's own, stay."""
    denied_scan: DeniedScan | None = field(default=None, compare=False, repr=False)
    """Finds, at each command, what the `Read` deny rules name, hidden inside
    (`denied_reads.py`); None: no such rule."""
    edit_scan: DeniedScan | None = field(default=None, compare=False, repr=False)
    """Finds, at each command, what the `Edit` deny rules name under the writable roots,
    bound read-only (`mounts.edit_denied`); None: no such rule."""
    denied_links: DeniedLinks = field(default_factory=DeniedLinks, compare=False, repr=False)
    """Finds, at each command, the other names (hard links) of hidden files in view, hidden
    too (`denied_links.py`)."""
    git_sweep: GitSweep = field(default_factory=GitSweep, compare=False, repr=False)
    start_sweep: StartSweep = field(default_factory=StartSweep, compare=False, repr=False)
    """Moves aside the start-up files commands made where no mount guards them
    (`start_sweep.py`)."""
    nested_projects: set[str] = field(default_factory=set[str], compare=False, repr=False)
    """The nested projects found so far (`nested.py`): guarded while they are projects, even
    where the bounded search for them stops short."""
    """Disables the git config and hooks the session's commands made (`git_sweep.py`)."""

    @functools.cached_property
    def env_set(self) -> tuple[tuple[str, str], ...]:
        return self.identity()

    @functools.cached_property
    def setid_search(self) -> SetidFound:
        """The setuid and setgid files under the writable roots, found once a session, and
        the notice if the search was cut short by its bounds."""
        return self.setid_scan(self.writable_mounts())

    @property
    def setid_files(self) -> tuple[Path, ...]:
        return self.setid_search.files

    def shown_in_home(self) -> list[Path]:
        """The places of the home shown read-only, present now, shallowest first."""
        secrets = secret_prefixes(self.home) if self.home is not None else ()
        return exposures(self.home, self.readable, self.toolchain_dirs, secrets)

    @property
    def socket_filter(self) -> bool:
        """Whether `socket(AF_UNIX)` fails inside (seccomp); else /run is covered, if anything."""
        from tether.sandbox import seccomp  # with the first command: no start-up's cost

        return not self.all_unix_sockets and not self.unix_sockets and seccomp.supported()

    @property
    def vsock_filter(self) -> bool:
        """Whether `socket(AF_VSOCK)` fails inside (seccomp): with the network off, since a
        network namespace does not cut vsock (the hypervisor, a host channel)."""
        from tether.sandbox import seccomp  # with the first command: no start-up's cost

        return not self.network and seccomp.supported()

    @property
    def refused_families(self) -> tuple[int, ...]:
        """The socket families the seccomp filter refuses (none: no filter)."""
        from tether.sandbox import seccomp  # with the first command: no start-up's cost

        return (seccomp.AF_UNIX,) * self.socket_filter + (seccomp.AF_VSOCK,) * self.vsock_filter

    def wrap(self, argv: list[str], cwd: Path) -> ConfinedCommand:
        """The bwrap command line that runs `argv` in `cwd` under this policy, with the
        descriptors it needs; `finished` lets its placeholders go (they stay for the next
        command a moment, `placeholders.py`)."""
        fresh_directory(self.tmp_dir)
        # What a background command made since the last sweep goes before this one starts.
        self.git_sweep.sweep(self.writable_mounts())
        if self.git_sweep.before is None:
            protected = [path for path, _ in self.protected_paths()]
            self.git_sweep.started(self.writable_mounts(), protected)
        if self.git_sweep.cut is not None:
            # Fail closed: a repository the walk did not reach keeps what a command wrote.
            raise SearchCut(self.git_sweep.cut)
        self.start_sweep.started(
            self.project_roots(),
            tuple(p for p in (self.tmp_dir, self.scratch) if p is not None),
            repos=(*self.project_roots(), *self.git_sweep.first_repos),
            stats=self.git_sweep.stats,
        )
        if self.start_sweep.cut is not None:
            self.start_sweep.ended()
            raise SearchCut(self.start_sweep.cut)
        placeholders = placeholders_for(self.workspace)
        placeholders.claim()
        lock_fd = placeholders.hold()
        fds = [lock_fd]
        reached = Descriptors()
        try:
            args: list[str] = []
            for mount in sandbox_mounts(self, placeholders, reached):
                args += mount
            fds += reached.release()
            args += ["--unshare-all", "--unshare-user"]
            if self.network:
                args += ["--share-net"]
            if self.disable_userns:
                args += ["--disable-userns"]
            args += ["--cap-drop", "ALL"]
            if os.geteuid() == 0:
                args += ["--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
            # No --new-session: the command must stay in the process group tether kills on
            # timeout or Ctrl+C. Terminal injection (what it guards against) needs a
            # controlling terminal, and the sandbox has none (tether starts it in a session of
            # its own, stdin from /dev/null).
            args += ["--die-with-parent", "--sync-fd", str(lock_fd)]
            from tether.sandbox import seccomp

            if seccomp.supported():
                program = os.memfd_create("tether-seccomp", 0)
                fds.append(program)
                os.write(program, seccomp.sandbox_filter(self.refused_families))
                os.lseek(program, 0, os.SEEK_SET)
                args += ["--seccomp", str(program)]
            # No --setenv or --unsetenv: the environment is bwrap's own (`environment`), so
            # that bwrap, pid 1 inside with its /proc/1/environ and cmdline in sight, holds
            # nothing the command may not.
            args += ["--chdir", str(cwd)]
            # The options go through a descriptor (`--args`, NUL-separated), not the command
            # line: bwrap is pid 1 inside, and its /proc/1/cmdline would name every hidden
            # and protected path. bwrap reads the descriptor and closes it before the command
            # starts.
            options = options_descriptor(args)
            fds.append(options)
        except BaseException:
            reached.close_all()
            for fd in fds:
                os.close(fd)
            placeholders.release(self.placeholder_linger_s)
            self.start_sweep.ended()
            raise

        def finished(returncode: int, output: str) -> str | None:
            placeholders.release(self.placeholder_linger_s)
            notes = [explain_failure(self, returncode, output)]
            self.git_sweep.sweep(self.writable_mounts())
            notes.append(self.git_sweep.take_note())
            self.start_sweep.sweep(self.project_roots(), self.git_sweep.repos_now)
            self.start_sweep.ended()
            notes.append(self.start_sweep.take_note())
            return "\n".join(n for n in notes if n) or None

        def checkpoint() -> str | None:
            # A background command's output is read: what it made so far goes now, before
            # the model (or the user, told of it) runs git outside.
            self.git_sweep.sweep(self.writable_mounts())
            self.start_sweep.sweep(self.project_roots(), self.git_sweep.repos_now)
            notes = (self.git_sweep.take_note(), self.start_sweep.take_note())
            return "; ".join(n for n in notes if n) or None

        return BwrapCommand(
            [str(self.bwrap), "--args", str(options), "--", *argv],
            options=args,
            pass_fds=tuple(fds),
            on_finished=finished,
            environment=self.environment,
            on_checkpoint=checkpoint,
        )

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """The environment a command gets when it would get `env` outside: the secrets
        withheld (`environment.py`, `sandbox.env` kept), the git identity and TMPDIR set.
        bwrap is started with it: bwrap itself is pid 1 inside, and the environment a
        process was started with stays readable in its /proc/<pid>/environ whatever it
        unsets later."""
        from tether.sandbox.environment import git_config_pairs, withheld

        gone = set(withheld(env, self.env_keep))
        kept = git_config_pairs({name: v for name, v in env.items() if name not in gone})
        return kept | dict(self.env_set) | {"TMPDIR": str(self.tmp_dir)}

    def close(self) -> None:
        """At the session's end (its background commands stopped): remove the placeholders
        no sandbox of the workspace uses now, without lingering."""
        placeholders_for(self.workspace).remove_now(just_ended=True)
        self.git_sweep.sweep(self.writable_mounts())
        self.start_sweep.sweep(self.project_roots(), self.git_sweep.repos_now)

    def remove_stale_placeholders(self, *, in_background: bool = False) -> None:
        """At a session's start: remove what a tether killed while its commands ran left in
        this workspace (from the journal, or marked), unless a sandbox of it runs now.
        `in_background`: on a thread, which this process's next command waits for."""
        placeholders = placeholders_for(self.workspace)
        if in_background:
            placeholders.remove_stale_soon(self._stale_candidates)
        else:
            placeholders.remove_unused(stale=self._stale_candidates())

    def _stale_candidates(self) -> list[Path]:
        return [path for path, entry in self.protected_paths() if entry.placeholder is not None]

    def writable_mounts(self) -> tuple[Path, ...]:
        """Every path bound writable (some may not exist)."""
        return _unique((self.workspace, self.tmp_dir, *self.writable))

    def project_roots(self) -> tuple[Path, ...]:
        """Writable directories guarded as projects: the workspace and the extra writable
        ones, but for the session's own scratch and temporary directories."""
        skip = {self.tmp_dir, self.scratch}
        return tuple(
            root
            for root in _unique((self.workspace, *self.writable))
            if root not in skip or root == self.workspace
        )

    def protected_paths(self) -> list[tuple[Path, Protected]]:
        """Every path to keep read-only, wherever it is: the projects' tables (projects nested
        in them too), the home's table, the guarded directories. Which of them are writable,
        and so bound, is for `_mounts` to say."""
        found: list[tuple[Path, Protected]] = []
        for root in self.project_roots():
            found += protected_in(root, WORKSPACE_PROTECTED)
            found += nested_protected(root, self.nested_projects)
        found = self.start_sweep.history.guarded(found)  # a checkout writes the rest
        for root in self.project_roots():
            found += installed_code(root)
        envrcs = [str(p) for p, _ in found if p.name == ".envrc" and p.is_file()]
        found += [(Path(p), ENVRC_LOADS) for p in envrc_loads(envrcs)]
        writable = self.writable_mounts()
        # Most sessions write nowhere near the home: its table then costs nothing.
        if self.home is not None and _meets_any(self.home, writable):
            found += protected_in(self.home, HOME_PROTECTED)
        found += [
            (p, Protected(p.name, True, "", "guarded as a whole"))
            for p in self.guarded
            if _meets_any(p, writable)
        ]
        return found


@functools.cache
def secret_prefixes(home: Path) -> tuple[str, ...]:
    """The credential places of `home`, each as a prefix (`/home/u/.ssh/`)."""
    return tuple(f"{home / p}/" for p in SECRETS_IN_HOME)


def _unique(paths: tuple[Path, ...]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(paths))


def _meets_any(path: Path, roots: tuple[Path, ...]) -> bool:
    """Whether `path` is one of `roots`, lies in one or holds one."""
    text = str(path).rstrip("/") + "/"
    return any(
        text.startswith(r) or r.startswith(text) for r in (str(r).rstrip("/") + "/" for r in roots)
    )
