"""What the model is told about the sandbox: its limits in the system prompt, and, when a
command fails, which of them most likely stopped it (rather than a misleading message such as
pip's "could not find a version that satisfies the requirement").

A note is added only when the output carries the sandbox's own mark, not a word that ordinary
failures share: the network note wants a resolver or connection error as libc, Node or curl
word it (a program printing "getaddrinfo" is not one), the read-only note wants EROFS or
"Is a directory" at a path the sandbox protects (`cat src` on a directory is not one). Each
note says what to do only if the limit is really what stopped the command.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tether.sandbox.installed_code import is_installed_path
from tether.sandbox.protected import GIT_DIR_PROTECTED, WORKSPACE_PROTECTED

if TYPE_CHECKING:
    from tether.sandbox.bwrap import Sandbox

_NETWORK_FAILURES = re.compile(
    # strerror and gai_strerror as glibc and musl print them, in the case they print them.
    r"Network is unreachable|Temporary failure in name resolution|Name or service not known|"
    r"No address associated with hostname|Connection refused|Try again|"
    # curl and git; Node's error codes; Python's socket errors.
    r"Could not resolve (?:host|proxy)|\b(?:EAI_AGAIN|ENOTFOUND|ENETUNREACH|ECONNREFUSED)\b|"
    r"\[Errno -[23]\]|\[Errno (?:101|111)\]"
)
_READ_ONLY = re.compile(r"Read-only file system", re.IGNORECASE)
_BUSY = re.compile(r"Device or resource busy", re.IGNORECASE)
"""A read-only bind is a mount point: renaming or removing it fails so."""
_IS_A_DIRECTORY = re.compile(r"^.*Is a directory.*$", re.IGNORECASE | re.MULTILINE)
"""A protected path that is missing is an empty read-only directory inside: writing it as a
file says "Is a directory"; the line must also name a protected path."""
_PROTECTED_NAMES = frozenset(
    {e.path.split("/")[0] for e in WORKSPACE_PROTECTED}
    | {e.path for e in GIT_DIR_PROTECTED}
    | {".git"}
)
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
    writable = ["the workspace", f"TMPDIR ({sandbox.tmp_dir}, this session's own)"]
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
        "else is read-only, /tmp included (put temporary files in $TMPDIR, which the other "
        "tools see at the same path). Files that configure what runs later are read-only "
        "even there and cannot be created (a missing one is an empty read-only directory, "
        "or an empty file that keeps no write, while the command runs): .git/config, "
        ".git/hooks, .tether/, .claude/, .mcp.json, editor settings (.vscode/, .idea/), git "
        "hook managers' configuration (lefthook, lint-staged, pre-commit...), and in a "
        "writable home its startup files (.bashrc, .profile, .gitconfig, ~/.claude.json...); "
        "so is installed code (a virtual "
        "environment's site-packages and bin, node_modules), which runs outside later: "
        "installing packages (pip install, npm install) fails here, so ask the user to run "
        "installs with the sandbox off; `git init` fails for the same reason, and "
        "a branch made from a remote one records no upstream (use `--no-track`). "
        "Commands run without root or capabilities (no sudo, mount, chown, setuid or setgid "
        "bits, kernel settings) and secret environment variables are withheld. "
        f"{home_hidden(sandbox)}{_denied(sandbox)} When a command fails because of one of these "
        "limits, say so to the user instead of working around it; other failures are "
        "ordinary errors to fix as usual."
    )


def _denied(sandbox: Sandbox) -> str:
    if sandbox.denied_scan is None:
        return ""
    return (
        " What the Read deny rules name is hidden from every command too (a file reads as "
        "empty, a directory as empty), whichever program or script reads it."
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
            f"The home directory ({home}) is hidden: it looks empty and read-only but "
            "for the workspace"
        )
    return (
        f"{seen}, except toolchains shown read-only (~/.local/bin, pyenv, nvm, rustup, "
        "cargo and go binaries, the virtualenv and PATH directories in it). ~/.gitconfig is "
        "hidden too (the git identity is passed in the environment). If a command needs "
        "another file from the home, ask the user to add its path to `sandbox.readable` in "
        "the settings (it is then shown read-only)."
    )


_CONFIG_UNWRITTEN = re.compile(
    r"could not (?:write|lock|commit) config file (?P<path>\S+): "
    r"(?:Read-only file system|Device or resource busy|Is a directory|Permission denied)"
)
"""git failing to write a config file the sandbox keeps read-only: it renames its lock over
the file (a bind mount: EBUSY), or writes beside a read-only one."""
_TRACKING = re.compile(
    r"[Bb]ranch '(?P<branch>[^']+)' set up to track "
    r"(?:remote branch '(?P<name>[^']+)' from '(?P<remote>[^']+)'|'(?P<upstream>[^']+)')"
)


def config_unwritten(output: str) -> str | None:
    """The note for a git command that could not write a config file the sandbox keeps
    read-only, whatever its exit status: git 2.39 creates the branch of `git switch -c x
    origin/x` all the same, exits 0 and says it tracks the upstream, which it does not."""
    found = _CONFIG_UNWRITTEN.search(output)
    if found is None:
        return None
    note = (
        f"git could not write {found['path']}: the sandbox keeps git's configuration "
        "read-only (it decides what git runs later, as in Claude Code's sandbox), so what "
        "git meant to record there (an upstream, a remote, a setting) was not recorded; "
        "the rest of what the command did stands."
    )
    tracking = _TRACKING.search(output)
    if tracking is not None:
        upstream = tracking["upstream"] or f"{tracking['remote']}/{tracking['name']}"
        note += (
            f" Branch '{tracking['branch']}' does not track '{upstream}', whatever git "
            "printed: ask the user to run `git branch "
            f"--set-upstream-to={upstream} {tracking['branch']}` outside the sandbox if it "
            "should; create branches from a remote one with `--no-track` here."
        )
    return note


def explain_failure(sandbox: Sandbox, returncode: int, output: str) -> str | None:
    """One line for the model when a sandboxed command failed, naming the limit it most
    likely met; None when it succeeded or nothing in its output points at the sandbox
    (but for git's configuration left unwritten: `config_unwritten`)."""
    if (unwritten := config_unwritten(output)) is not None:
        return unwritten
    if returncode == 0:
        return None
    installed = _names_installed(sandbox, output)
    if not sandbox.network and _NETWORK_FAILURES.search(output):
        return (
            "The network is off in the sandbox: if this command needed it (a download, a "
            "package install, a connection), it cannot work here; ask the user to run it "
            f"outside.{_INSTALLS if installed or _AN_INSTALL.search(output) else ''}"
        )
    if installed and (_READ_ONLY.search(output) or _BUSY.search(output)):
        return _INSTALLED_READ_ONLY
    if sandbox.home is not None and _HOME_MISSING.search(output) and _names_home(sandbox, output):
        return (
            "The sandbox hides the home directory: only the workspace, toolchains and the "
            "paths in `sandbox.readable` are there (read-only). Ask the user to add what this "
            "command needs from the home to `sandbox.readable` in the settings."
        )
    if _READ_ONLY.search(output) or any(
        _names_protected(line) for line in _IS_A_DIRECTORY.findall(output)
    ):
        return (
            "The sandbox makes this path read-only: writes are allowed only in the workspace, "
            "TMPDIR and the listed writable paths (not /tmp), and never to files that "
            "configure what runs later (.git/config, .git/hooks, .tether/, .claude/, "
            ".mcp.json, editor settings, hook managers' configuration)."
        )
    if _NOT_PERMITTED.search(output):
        return (
            "If the sandbox refused this: commands run without root or capabilities (no sudo, "
            "mount, chown to others, setuid or setgid bits), and unix sockets cannot be "
            "reached."
        )
    return None


_INSTALLED_READ_ONLY = (
    "The sandbox keeps installed code read-only: a virtual environment's site-packages and "
    "bin, and node_modules, because their code runs outside the sandbox later (the user's "
    "next python, pytest or npm test), so a change made inside would run there. Installing "
    "or upgrading packages (pip install, npm install) cannot work here: ask the user to run "
    "it with the sandbox off (outside this session)."
)
_AN_INSTALL = re.compile(
    r"\b(?:pip|npm|pnpm|yarn|uv|poetry|pipenv)\b|satisfies the requirement|node_modules|"
    r"site-packages"
)
"""A failure's output that looks like a package install's (pip's, npm's...)."""
_INSTALLS = (
    " Installing into the workspace's environments or node_modules would fail here even "
    "with the network: they are read-only in the sandbox because their code runs outside "
    "later; ask the user to run the install with the sandbox off."
)


def _names_installed(sandbox: Sandbox, output: str) -> bool:
    """Whether a path in the output lies in installed code the sandbox keeps read-only."""
    return any(
        is_installed_path(word, sandbox.workspace)
        for line in output.splitlines()
        for word in re.split(r"[\s'\"`:,;()\[\]]+", line)
    )


def _names_protected(line: str) -> bool:
    """Whether a path on `line` has a component the sandbox protects (`.mcp.json`,
    `.git/hooks/pre-commit`, `.claude/settings.json`)."""
    for word in re.split(r"[\s'\"`:,;()\[\]]+", line):
        if not _PROTECTED_NAMES.isdisjoint(word.split("/")):
            return True
    return False
