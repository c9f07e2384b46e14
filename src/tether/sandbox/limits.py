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
        "run without root or capabilities (no sudo, mount, chown), secrets in the home "
        "directory read as empty and secret environment variables are withheld. When a "
        "command fails because of this, say so to the user instead of working around it."
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
