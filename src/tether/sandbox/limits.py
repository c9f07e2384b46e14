"""What the model is told about the sandbox: its limits in the system prompt, and, when a
command fails, which of them most likely stopped it (rather than a misleading message such as
pip's "could not find a version that satisfies the requirement")."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tether.sandbox.bwrap import Sandbox

_NETWORK_FAILURES = re.compile(
    r"network is unreachable|temporary failure in name resolution|could not resolve|"
    r"name or service not known|failed to resolve|getaddrinfo|no address associated|"
    r"connection refused|failed to establish a new connection|could not connect|"
    r"unable to access '?https?://|no matching distribution|could not fetch|"
    r"connecterror|network error|enotfound|eai_again",
    re.IGNORECASE,
)
_READ_ONLY = re.compile(r"read-only file system|is a directory", re.IGNORECASE)
"""A protected path that is missing is an empty read-only directory inside: writing it as a
file says "Is a directory"."""
_NOT_PERMITTED = re.compile(
    r"operation not permitted|permission denied|must be superuser|are you root", re.IGNORECASE
)


_HOME_MISSING = re.compile(
    r"no such file or directory|not found|does not exist|cannot open|can't open|"
    r"could not open|unable to (?:open|read|load)|permission denied",
    re.IGNORECASE,
)


def _names_home(sandbox: Sandbox, output: str) -> bool:
    """Whether the output names a path of the home (as `~/...` or in full) that the sandbox
    hides: not in the workspace, another writable place, or a place shown."""
    home = sandbox.home
    if home is None:
        return False
    named = re.finditer(rf"(?:~|{re.escape(str(home))})(/[^\s'\":]*)", output)
    places = (*sandbox.writable_mounts(), *sandbox.shown_in_home())
    in_view = [p for p in places if p.is_relative_to(home) and p != home]
    if home in sandbox.writable_mounts():
        return any(m.group(1).startswith("/.") for m in named)
    return any(not any((home / m.group(1)[1:]).is_relative_to(v) for v in in_view) for m in named)


def describe(sandbox: Sandbox) -> str:
    """A short paragraph for the system prompt, built from the session's actual policy."""
    writable = ["the workspace", "/tmp", f"TMPDIR ({sandbox.tmp_dir})"]
    writable += [str(p) for p in sandbox.writable if p != sandbox.scratch]
    network = (
        "The network is available."
        if sandbox.network
        else "The network is off (no internet, no localhost): package installs (pip, npm, "
        "cargo), downloads, git fetch/push and API calls fail; ask the user to run those."
    )
    allowed = ", ".join(map(str, sandbox.unix_sockets))
    sockets = (
        ""
        if sandbox.all_unix_sockets
        else " Unix sockets (docker, databases, agents) cannot be reached"
        + (f", except {allowed}." if allowed else ".")
    )
    return (
        "Sandbox: every Bash command runs in a sandbox. "
        f"{network}{sockets} Writes are possible only in {', '.join(writable)}; everything "
        "else is read-only. Files that configure what runs later are read-only even there "
        "and cannot be created (a missing one is an empty read-only directory while the "
        "command runs): .git/config, .git/hooks, .tether/, .claude/, .mcp.json, editor "
        "settings (.vscode/, .idea/), and in a writable home its startup files (.bashrc, "
        ".profile, .gitconfig, ~/.claude.json...); `git init` fails for the same reason. Commands "
        "run without root or capabilities (no sudo, mount, chown) and secret environment "
        f"variables are withheld. {home_hidden(sandbox)} When a command fails because of "
        "this, say so to the user instead of working around it."
    )


def home_hidden(sandbox: Sandbox) -> str:
    """What the home looks like inside, and how the user shows more of it."""
    if sandbox.home is None:
        return "Secrets in the home directory read as empty."
    home = sandbox.home
    if home in sandbox.writable_mounts():
        seen = (
            f"The home directory ({home}) is the workspace: its top-level files are read-only, "
            "its folders writable, and its dot files and directories hidden"
        )
    else:
        seen = (
            f"The home directory ({home}) is hidden: it looks empty (writes there vanish) but "
            "for the workspace"
        )
    return (
        f"{seen}, except toolchains shown read-only (~/.local/bin, pyenv, nvm, rustup, "
        "cargo and go binaries, the virtualenv and PATH directories in it). ~/.gitconfig is "
        "hidden too (the git identity is passed in the environment). If a command needs "
        "another file from the home, ask the user to add its path to `sandbox.readable` in "
        "the settings (it is then shown read-only)."
    )


def explain_failure(sandbox: Sandbox, returncode: int, output: str) -> str | None:
    """One line for the model when a sandboxed command failed, naming the limit it most
    likely met; None when it succeeded or nothing in its output points at the sandbox."""
    if returncode == 0:
        return None
    if not sandbox.network and _NETWORK_FAILURES.search(output):
        return (
            "The network is off in the sandbox: downloads, package installs (pip, npm...) and "
            "connections cannot work here; ask the user to run this command outside."
        )
    if sandbox.home is not None and _HOME_MISSING.search(output) and _names_home(sandbox, output):
        return (
            "The sandbox hides the home directory: only the workspace, toolchains and the "
            "paths in `sandbox.readable` are there (read-only). Ask the user to add what this "
            "command needs from the home to `sandbox.readable` in the settings."
        )
    if _READ_ONLY.search(output):
        return (
            "The sandbox makes this path read-only: writes are allowed only in the workspace, "
            "/tmp and the listed writable paths, and never to files that configure what runs "
            "later (.git/config, .git/hooks, .tether/, .claude/, .mcp.json, editor settings)."
        )
    if _NOT_PERMITTED.search(output):
        return (
            "The sandbox may have refused this: commands run without root or capabilities "
            "(no sudo, mount, chown to others), and unix sockets cannot be reached."
        )
    return None
