"""A session's sandbox policy and the bubblewrap command line that enforces it.

Inside: the whole filesystem read-only; the workspace, the session's scratch directory and
any extra writable paths bound read-write; the session's private temporary directory both at
its own path (TMPDIR) and over /tmp, so that a file one command leaves in /tmp is there for the
next but the machine's /tmp is neither seen nor touched; secret locations in the home
directory covered; no network unless allowed; everything killed when tether goes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SECRETS_IN_HOME: tuple[str, ...] = (
    ".ssh",
    ".aws",
    ".config",
    ".gnupg",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".azure",
    ".gcloud",
    ".password-store",
    ".local/share/keyrings",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    # tether's and Claude Code's own homes: API keys in settings, tokens, past transcripts.
    # The session's scratch directory lies under tether's and is bound again on top.
    ".tether",
    ".claude",
)
"""Paths under the home directory that sandboxed commands cannot read: a directory is covered
by an empty one, a file reads as empty."""


@dataclass(frozen=True)
class Sandbox:
    """A ready policy for one session; `wrap` is the `command_wrapper` the Bash tool takes."""

    workspace: Path
    writable: tuple[Path, ...]
    """Writable besides the workspace and `tmp_dir` (the scratch directory is one of them)."""
    network: bool
    tmp_dir: Path
    """The session's private temporary directory: TMPDIR, and /tmp, inside the sandbox."""
    hidden: tuple[Path, ...]
    """Candidates to hide; those that exist when a command starts are covered."""
    bwrap: Path = Path("bwrap")

    def wrap(self, argv: list[str], cwd: Path) -> list[str]:
        """The bwrap command line that runs `argv` in `cwd` under this policy."""
        self.tmp_dir.mkdir(parents=True, exist_ok=True)
        args = [
            str(self.bwrap),
            "--ro-bind", "/", "/",
            "--dev", "/dev",
            "--proc", "/proc",
            "--bind", str(self.tmp_dir), "/tmp",
        ]  # fmt: skip
        for mount in _ordered_mounts(self):
            args += mount
        args += ["--unshare-all"]
        if self.network:
            args += ["--share-net"]
        args += [
            # No --new-session: the command must stay in the process group tether kills on
            # timeout or Ctrl+C, or a command caught mid-start escapes it. Terminal injection
            # (what --new-session guards against) needs a controlling terminal, and the sandbox
            # has none: tether starts it in a new session of its own, stdin from /dev/null.
            "--die-with-parent",
            "--setenv", "TMPDIR", str(self.tmp_dir),
            "--chdir", str(cwd),
            "--",
            *argv,
        ]  # fmt: skip
        return args


def _ordered_mounts(sandbox: Sandbox) -> list[list[str]]:
    """Binds and covers, shallower paths first: bwrap applies them in order, so each path ends
    up under the most specific rule (a workspace inside ~/.config stays visible; a ~/.ssh
    inside a workspace that is the home directory stays hidden). At equal depth the writable
    bind comes last: a path the user made writable is one they mean to use."""
    mounts: list[tuple[int, int, list[str]]] = []
    for path in sandbox.hidden:
        target = path.resolve()
        if target.is_dir():
            mounts.append((len(target.parts), 0, ["--tmpfs", str(target)]))
        elif target.exists():
            # A device bind, so that the file reads as empty rather than failing (bwrap's
            # other binds forbid device access); writes vanish into /dev/null.
            mounts.append((len(target.parts), 0, ["--dev-bind", "/dev/null", str(target)]))
    required = (sandbox.workspace, sandbox.tmp_dir)
    for path in required:
        mounts.append((len(path.parts), 1, ["--bind", str(path), str(path)]))
    for path in sandbox.writable:
        if path not in required:
            # A writable path that does not exist (yet) is skipped, not an error.
            mounts.append((len(path.parts), 1, ["--bind-try", str(path), str(path)]))
    mounts.sort(key=lambda m: (m[0], m[1]))
    return [m[2] for m in mounts]
