"""A session's sandbox policy and the bubblewrap command line that enforces it.

Inside: the whole file system read-only but for the workspace, the session's own temporary
directory (TMPDIR, at the same path inside and out, so that every tool sees the same files),
the scratch directory and `sandbox.writable`; in those,
the files that decide what runs later (`protected.py`) read-only, missing ones included;
the home hidden but for toolchains and `sandbox.readable` (`home_view.py`),
secret locations hidden; no capabilities and, when tether runs as root, an unprivileged uid
in a user namespace that cannot make another (the kernel's files in /proc read-only,
`kernel_files.py`, and no setuid or setgid file made, `seccomp.py`, since that uid is root's
outside); no network and no unix sockets unless allowed;
secrets withheld from the environment; everything killed when tether goes.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tether.home_files import HOME_SECRETS
from tether.processes import ConfinedCommand
from tether.sandbox import seccomp
from tether.sandbox.environment import withheld
from tether.sandbox.home_view import exposures, home_mounts, home_view
from tether.sandbox.kernel_files import kernel_mounts
from tether.sandbox.limits import explain_failure
from tether.sandbox.nofollow import Descriptors, Found, fresh_directory
from tether.sandbox.placeholders import Placeholders, placeholders_for, remove_all_unused
from tether.sandbox.protected import (
    HOME_PROTECTED,
    WORKSPACE_PROTECTED,
    Protected,
    nested_protected,
    protected_in,
)
from tether.sandbox.toolchain_credentials import toolchain_credentials

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

RUNTIME_DIRS = (Path("/run"), Path("/var/run"))
"""Where system services keep their unix sockets; covered when the network is off."""

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

    @functools.cached_property
    def env_set(self) -> tuple[tuple[str, str], ...]:
        return self.identity()

    def shown_in_home(self) -> list[Path]:
        """The places of the home shown read-only, present now, shallowest first."""
        secrets = _secret_prefixes(self.home) if self.home is not None else ()
        return exposures(self.home, self.readable, self.toolchain_dirs, secrets)

    @property
    def socket_filter(self) -> bool:
        """Whether `socket(AF_UNIX)` fails inside (seccomp); else /run is covered, if anything."""
        return not self.all_unix_sockets and not self.unix_sockets and seccomp.supported()

    @property
    def vsock_filter(self) -> bool:
        """Whether `socket(AF_VSOCK)` fails inside (seccomp): with the network off, since a
        network namespace does not cut vsock (the hypervisor, a host channel)."""
        return not self.network and seccomp.supported()

    @property
    def refused_families(self) -> tuple[int, ...]:
        """The socket families the seccomp filter refuses (none: no filter)."""
        return (seccomp.AF_UNIX,) * self.socket_filter + (seccomp.AF_VSOCK,) * self.vsock_filter

    def wrap(self, argv: list[str], cwd: Path) -> ConfinedCommand:
        """The bwrap command line that runs `argv` in `cwd` under this policy, with the
        descriptors it needs; `finished` lets its placeholders go (they stay for the next
        command a moment, `placeholders.py`)."""
        fresh_directory(self.tmp_dir)
        placeholders = placeholders_for(self.workspace)
        placeholders.claim()
        lock_fd = placeholders.hold()
        fds = [lock_fd]
        reached = Descriptors()
        try:
            args = [str(self.bwrap)]
            for mount in self._mounts(placeholders, reached):
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
            if seccomp.supported():
                program = os.memfd_create("tether-seccomp", 0)
                fds.append(program)
                os.write(program, seccomp.sandbox_filter(self.refused_families))
                os.lseek(program, 0, os.SEEK_SET)
                args += ["--seccomp", str(program)]
            for name in withheld(os.environ, self.env_keep):
                args += ["--unsetenv", name]
            for name, value in self.env_set:
                args += ["--setenv", name, value]
            args += ["--setenv", "TMPDIR", str(self.tmp_dir), "--chdir", str(cwd), "--", *argv]
        except BaseException:
            reached.close_all()
            for fd in fds:
                os.close(fd)
            placeholders.release(self.placeholder_linger_s)
            raise

        def finished(returncode: int, output: str) -> str | None:
            placeholders.release(self.placeholder_linger_s)
            return explain_failure(self, returncode, output)

        return ConfinedCommand(args, pass_fds=tuple(fds), on_finished=finished)

    def close(self) -> None:
        """At the session's end (its background commands stopped): remove the placeholders
        no sandbox of the workspace uses now, without lingering."""
        placeholders_for(self.workspace).remove_now(just_ended=True)

    def remove_stale_placeholders(self) -> None:
        """At a session's start: remove what a tether killed while its commands ran left in
        this workspace (from the journal, or marked), unless a sandbox of it runs now."""
        stale = [path for path, entry in self.protected_paths() if entry.placeholder is not None]
        placeholders_for(self.workspace).remove_unused(stale=stale)

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
            found += nested_protected(root)
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

    def _mounts(self, placeholders: Placeholders, reached: Descriptors) -> list[list[str]]:
        """Binds and covers, shallower paths first: bwrap applies them in order, so each path
        ends up under its most specific rule (a workspace inside ~/.config stays visible; a
        ~/.ssh inside a workspace that is the home directory stays hidden); at equal depth in
        the order of `_COVER`, `_SHOWN`, `_WRITABLE`, `_PROTECTED`.

        Every bind is of a path reached without following a symlink (`nofollow.py`), by its
        descriptor where bwrap takes one: a command cannot redirect a bind by replacing a
        directory with a link between two commands. What is not reached is not bound."""
        mounts: dict[str, tuple[int, int, list[str]]] = {}
        by_fd = _binds_by_fd(self.bwrap)

        def add(path: Path, rank: int, mount: list[str]) -> None:
            mounts[str(path)] = (len(path.parts), rank, mount)

        def bind(path: Path, found: Found, *, read_only: bool, rank: int | None = None) -> None:
            if by_fd:
                flag = "--ro-bind-fd" if read_only else "--bind-fd"
                mount = [flag, str(reached.use(found)), str(path)]
            else:
                mount = ["--ro-bind" if read_only else "--bind", str(path), str(path)]
            add(path, rank if rank is not None else (_PROTECTED if read_only else _WRITABLE), mount)

        # Missing: nothing to bind. Blocked: a symlink a command made in a writable parent
        # (`sandbox.writable` inside the workspace, TMPDIR...): left as a link. The home, when
        # it is a writable root, is shown read-only and its folders are writable (`home_view`).
        roots = self.writable_mounts()
        binds = [
            (p, f) for p in roots if p != self.home and isinstance(f := reached.reach(p), Found)
        ]
        home = home_mounts(self.home, roots, reached)
        binds += home.folders
        writable = [path for path, _ in binds]
        # Most candidates do not exist: one lstat each before resolving the few that do.
        shown = self.shown_in_home()
        view = home_view(
            home,
            hidden=[p.resolve() for p in self.hidden if os.path.lexists(p)],
            candidates=shown,
            writable=writable,
            reached=reached,
            inside=[p.resolve() for p in toolchain_credentials(self.home, shown)],
        )
        not_writable = [*view.covers, *(path for path, _ in view.shown)]
        if home.read_only_home is not None:
            not_writable.append(home.root)
        for target in view.covers:
            if target.is_dir():
                add(target, _COVER, ["--tmpfs", str(target)])
            elif target.exists():
                # A device bind, so that the file reads as empty rather than failing (bwrap's
                # other binds forbid device access); writes vanish into /dev/null.
                add(target, _COVER, ["--dev-bind", "/dev/null", str(target)])
        if home.read_only_home is not None:
            bind(home.root, home.read_only_home, read_only=True, rank=_SHOWN)
        for path, found in view.shown:
            bind(path, found, read_only=True, rank=_SHOWN)
        for path, text in view.links:
            add(path, _SHOWN, ["--symlink", text, str(path)])
        if not self.network and not self.all_unix_sockets:
            for run in RUNTIME_DIRS:
                if run.is_dir() and not run.is_symlink():
                    add(run, _COVER, ["--tmpfs", str(run)])
            for socket in self.unix_sockets:
                if isinstance(found := reached.reach(socket), Found):
                    bind(socket, found, read_only=False)
        for path, found in binds:
            bind(path, found, read_only=False)
        bound: list[tuple[str, int]] = []
        """Protected paths bound read-only: as a prefix (`/a/b/`) and their depth."""

        def protect(path: Path, entry: Protected, *, follow: bool) -> None:
            under = _deepest(path, writable)
            if under is None:
                return
            depth = len(under.parts)
            cover = _deepest(path, not_writable)
            if cover is not None and len(cover.parts) > depth:
                return  # hidden (writes vanish with the sandbox) or shown read-only
            text = str(path)
            if any(text.startswith(prefix) and parts >= depth for prefix, parts in bound):
                return  # inside a protected path already bound read-only
            found = reached.reach(path)
            if entry.only_missing and isinstance(found, Found):
                return
            # Missing with only real directories before it: the placeholder (and the
            # directories it needs) cannot land outside.
            missing = found == "missing" and entry.placeholder is not None
            if missing and placeholders.ensure(path, entry):
                reached.forget_missing()
                found = reached.reach(path)
            if found == "blocked" and follow:
                # A symlink on the way: what it leads to is protected where it is, if that is
                # in a writable place itself (reached without a link, no placeholder made);
                # elsewhere it is read-only already, and a dangling link needs nothing.
                with contextlib.suppress(OSError, ValueError):
                    real = Path(os.path.realpath(path))
                    if real != path:
                        entry = Protected(entry.path, entry.directory, None, entry.why)
                        protect(real, entry, follow=False)
                return
            if not isinstance(found, Found):
                return
            pins = [(pin, reached.reach(pin)) for pin in _between(under, path)]
            bound.append((str(path).rstrip("/") + "/", len(path.parts)))
            for pin, pin_found in pins:
                # A mount point cannot be renamed: `mv .git x` would otherwise move the
                # protected config aside and let a new .git/config take its place.
                if isinstance(pin_found, Found):
                    bind(pin, pin_found, read_only=False)
            bind(path, found, read_only=True)

        candidates = {str(path): (path, entry) for path, entry in self.protected_paths()}
        for path, entry in sorted(candidates.values(), key=lambda c: len(c[0].parts)):
            protect(path, entry, follow=True)
        ordered = sorted(mounts.values(), key=lambda m: (m[0], m[1]))
        # The home's covers read-only once everything inside them is mounted: the directories
        # bwrap made there for the binds cannot be renamed away (taking the workspace or the
        # scratch directory with them), and a write to the home fails instead of vanishing.
        tmpfs = [str(c) for c in home.covers if str(c) in mounts and mounts[str(c)][1] == _COVER]
        sealed = [["--remount-ro", c] for c in tmpfs if mounts[c][2][0] == "--tmpfs"]
        return [
            ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"],
            *kernel_mounts(),
            *(m[2] for m in ordered),
            *sealed,
        ]


_COVER, _SHOWN, _WRITABLE, _PROTECTED = range(4)
"""Mount order at equal depth: a cover first, then a path shown read-only in it, then a
writable bind (a path the user made writable is one they mean to use), then a protected
read-only bind (which no setting lifts)."""


@functools.cache
def _secret_prefixes(home: Path) -> tuple[str, ...]:
    """The credential places of `home`, each as a prefix (`/home/u/.ssh/`)."""
    return tuple(f"{home / p}/" for p in SECRETS_IN_HOME)


def _binds_by_fd(program: Path) -> bool:
    """Whether bwrap has `--bind-fd` (0.5 and later): it then checks that what it mounted is
    the descriptor's file. Older ones get the same walked paths, bound by name."""
    return "--ro-bind-fd" in bwrap_help(program)


@functools.cache
def bwrap_help(program: Path) -> str:
    """What `bwrap --help` prints (its options), asked once per process and program: start-up
    waits for the probe, which needs it twice. "" when it cannot be run."""
    try:
        done = subprocess.run(
            [str(program), "--help"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout + done.stderr


def _unique(paths: tuple[Path, ...]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(paths))


def _meets_any(path: Path, roots: tuple[Path, ...]) -> bool:
    """Whether `path` is one of `roots`, lies in one or holds one."""
    text = str(path).rstrip("/") + "/"
    return any(
        text.startswith(r) or r.startswith(text) for r in (str(r).rstrip("/") + "/" for r in roots)
    )


def _deepest(path: Path, roots: tuple[Path, ...] | list[Path]) -> Path | None:
    """The deepest of `roots` that is `path` or holds it."""
    text = str(path)
    best: Path | None = None
    for root in roots:
        r = str(root)
        if (text == r or text.startswith(r.rstrip("/") + "/")) and (
            best is None or len(root.parts) > len(best.parts)
        ):
            best = root
    return best


def _between(root: Path, path: Path) -> list[Path]:
    """The directories strictly between `root` and `path`, shallowest first."""
    if not path.is_relative_to(root):
        return []
    parts = path.relative_to(root).parts[:-1]
    return [root.joinpath(*parts[: i + 1]) for i in range(len(parts))]
