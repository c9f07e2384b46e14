"""What tether knows about common commands, as data: which arguments are files read or written,
which commands are read-only enough to run without asking, which variables change what runs.

Kept deliberately small: a command missing here is not trusted, it is asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Literal

FileRole = Literal["read", "write", "none", "pattern_read", "copy", "move", "dd", "sed"]
"""What positional arguments are: files read, files written, nothing, a pattern then files read
(grep), sources then a destination (cp; mv and ln also write their sources, and their content
moves, so they count as read), dd's `if=`/`of=`, sed's script then files (written too with
-i)."""


@dataclass(frozen=True)
class CommandSpec:
    files: FileRole
    valued: frozenset[str] = frozenset()
    """Options taking a separate value that is not a file (`-n 5`)."""
    read_valued: frozenset[str] = frozenset()
    """Options whose value is a file that is read (`grep -f FILE`)."""
    write_valued: frozenset[str] = frozenset()
    """Options whose value is a file that is written (`sort -o FILE`)."""
    pattern_options: frozenset[str] = frozenset()
    """Options that give the pattern, so that the first positional is a file (`grep -e`)."""
    read_only: bool = False
    """Runs without asking when its files are fine (the built-in allowlist)."""
    forbidden: frozenset[str] = frozenset()
    """Options that make a read-only command write or run programs; with one, it is asked."""
    recursive: frozenset[str] = frozenset()
    """Options that make it read whole directory trees; `always` marks commands that do."""
    max_files: int | None = None
    """More positionals than this and it writes (`uniq IN OUT`), so it is not read-only."""
    lists_cwd: bool = False
    """With no file arguments it reads the current directory (`ls`)."""


def _s(*names: str) -> frozenset[str]:
    return frozenset(names)


def _names(text: str) -> list[str]:
    return text.split()


_GREP = CommandSpec(
    "pattern_read",
    valued=_s("-m", "-A", "-B", "-C", "-d", "-D", "--max-count", "--after-context")
    | _s("--before-context", "--context", "--include", "--exclude", "--exclude-dir", "--label")
    | _s("--binary-files", "--directories", "--devices", "--group-separator"),
    read_valued=_s("-f", "--file", "--exclude-from"),
    pattern_options=_s("-e", "--regexp", "-f", "--file"),
    read_only=True,
    recursive=_s("-r", "-R", "--recursive", "--dereference-recursive", "--directories"),
)
_RG = CommandSpec(
    "pattern_read",
    valued=_s("-m", "-A", "-B", "-C", "-g", "-t", "-T", "-j", "-M", "-d", "-E", "--glob")
    | _s("--iglob", "--type", "--type-not", "--type-add", "--max-count", "--context")
    | _s("--after-context", "--before-context", "--threads", "--max-columns", "--max-depth")
    | _s("--encoding", "--color", "--colors", "--sort", "--sortr", "--max-filesize", "-r")
    | _s("--replace", "--context-separator", "--field-match-separator", "--path-separator"),
    read_valued=_s("-f", "--file", "--ignore-file"),
    pattern_options=_s("-e", "--regexp", "-f", "--file"),
    read_only=True,
    forbidden=_s("--pre", "--pre-glob", "--hostname-bin"),
    recursive=_s("always"),
)
_READ = CommandSpec("read", read_only=True)

COMMANDS: Mapping[str, CommandSpec] = {
    # Read-only, and their files are checked as reads.
    "cat": _READ,
    "tac": _READ,
    "nl": CommandSpec("read", valued=_s("-b", "-i", "-s", "-v", "-w", "-n"), read_only=True),
    "head": CommandSpec("read", valued=_s("-n", "-c", "--lines", "--bytes"), read_only=True),
    "tail": CommandSpec(
        "read", valued=_s("-n", "-c", "-s", "--lines", "--bytes", "--pid"), read_only=True
    ),
    "wc": CommandSpec("read", read_valued=_s("--files0-from"), read_only=True),
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": _RG,
    "ls": CommandSpec(
        "read",
        valued=_s("-I", "-w", "-T", "--ignore", "--hide", "--width", "--format", "--sort"),
        read_only=True,
        lists_cwd=True,
    ),
    "tree": CommandSpec(
        "read",
        valued=_s("-L", "-P", "-I", "--filelimit"),
        write_valued=_s("-o"),
        read_only=True,
        forbidden=_s("-o"),
        lists_cwd=True,
    ),
    "stat": CommandSpec("read", valued=_s("-c", "--format", "--printf"), read_only=True),
    "file": CommandSpec(
        "read", valued=_s("-F", "-e"), read_only=True, forbidden=_s("-C", "--compile")
    ),
    "du": CommandSpec(
        "read",
        valued=_s("-d", "-B", "-t", "--max-depth", "--exclude"),
        read_only=True,
        lists_cwd=True,
    ),
    "df": CommandSpec("read", valued=_s("-t", "-x", "-B"), read_only=True),
    "diff": CommandSpec(
        "read",
        valued=_s("-U", "-C", "-I", "-x", "--label", "--unified", "--context"),
        read_valued=_s("-X", "--exclude-from", "--from-file", "--to-file"),
        read_only=True,
        recursive=_s("-r", "--recursive"),
    ),
    "cmp": CommandSpec("read", valued=_s("-i", "-n"), read_only=True),
    "comm": _READ,
    "cut": CommandSpec(
        "read", valued=_s("-b", "-c", "-d", "-f", "--output-delimiter"), read_only=True
    ),
    "sort": CommandSpec(
        "read",
        valued=_s("-k", "-t", "-S", "--key", "--field-separator", "--buffer-size"),
        read_valued=_s("--files0-from"),
        write_valued=_s("-o", "--output"),
        read_only=True,
        forbidden=_s("-o", "--output", "--compress-program", "-T", "--temporary-directory"),
    ),
    "uniq": CommandSpec("read", valued=_s("-f", "-s", "-w"), read_only=True, max_files=1),
    "rev": _READ,
    "od": CommandSpec("read", valued=_s("-A", "-j", "-N", "-t"), read_only=True),
    "strings": CommandSpec("read", valued=_s("-n", "-t", "-e"), read_only=True),
    "md5sum": _READ,
    "sha1sum": _READ,
    "sha256sum": _READ,
    "sha512sum": _READ,
    "cksum": _READ,
    "base64": CommandSpec("read", valued=_s("-w", "--wrap"), read_only=True, max_files=1),
    "jq": CommandSpec(
        "pattern_read",
        valued=_s("--arg", "--argjson", "--indent", "--tab"),
        read_valued=_s("-f", "--from-file", "--slurpfile", "--rawfile"),
        pattern_options=_s("-f", "--from-file"),
        read_only=True,
    ),
    # Read-only, no file arguments.
    **dict.fromkeys(
        _names(
            "echo printf pwd true false : sleep whoami id uname basename dirname which type "
            "seq tr test [ cd pushd popd dirs realpath readlink nproc command"
        ),
        CommandSpec("none", read_only=True),
    ),
    "date": CommandSpec("none", read_only=True, forbidden=_s("-s", "--set", "-f", "--file")),
    # Readers that are not trusted to run without asking, but whose files are still checked.
    "less": CommandSpec("read", valued=_s("-p", "-x", "-y", "-z", "-b", "-h")),
    "more": CommandSpec("read"),
    "bat": CommandSpec("read", valued=_s("-l", "-r", "-H", "--language", "--line-range")),
    "view": CommandSpec("read"),
    "xxd": CommandSpec("read", valued=_s("-c", "-g", "-l", "-s", "-o")),
    "hexdump": CommandSpec("read", valued=_s("-n", "-s", "-e"), read_valued=_s("-f")),
    "awk": CommandSpec(
        "pattern_read",
        valued=_s("-F", "-v", "--field-separator", "--assign"),
        read_valued=_s("-f", "--file"),
        pattern_options=_s("-f", "--file"),
    ),
    "gawk": CommandSpec("pattern_read", valued=_s("-F", "-v"), read_valued=_s("-f")),
    "source": CommandSpec("read"),
    ".": CommandSpec("read"),
    "ag": CommandSpec("pattern_read", recursive=_s("always")),
    "ack": CommandSpec("pattern_read", recursive=_s("always")),
    "scp": CommandSpec("copy", valued=_s("-P", "-i", "-o", "-F", "-c", "-l", "-S", "-J")),
    "rsync": CommandSpec(
        "copy", valued=_s("-e", "--rsh", "--exclude", "--include"), recursive=_s("always")
    ),
    "tar": CommandSpec("read", valued=_s("-C", "--directory"), recursive=_s("always")),
    "zip": CommandSpec("read", recursive=_s("-r", "--recurse-paths")),
    # Writers: their files are checked as writes (outside the workspace: asked). Only options
    # known to take a value are listed: a flag taken for one would hide the path after it.
    **dict.fromkeys(_names("rm rmdir unlink tee"), CommandSpec("write")),
    "shred": CommandSpec("write", valued=_s("-n", "-s", "--iterations", "--size")),
    "touch": CommandSpec(
        "write", valued=_s("-d", "-t", "--date"), read_valued=_s("-r", "--reference")
    ),
    "mkdir": CommandSpec("write", valued=_s("-m", "--mode", "--context")),
    "truncate": CommandSpec(
        "write", valued=_s("-s", "--size"), read_valued=_s("-r", "--reference")
    ),
    **dict.fromkeys(
        _names("chmod chown chgrp"),
        CommandSpec("write", valued=_s("--from"), read_valued=_s("--reference")),
    ),
    "cp": CommandSpec(
        "copy",
        valued=_s("-S", "--suffix", "--sparse"),
        write_valued=_s("-t", "--target-directory"),
        recursive=_s("-r", "-R", "-a", "--recursive", "--archive"),
    ),
    "install": CommandSpec(
        "copy",
        valued=_s("-m", "-o", "-g", "--mode", "--owner", "--group"),
        write_valued=_s("-t", "--target-directory"),
    ),
    "mv": CommandSpec(
        "move",
        valued=_s("-S", "--suffix"),
        write_valued=_s("-t", "--target-directory"),
    ),
    "ln": CommandSpec("move", valued=_s("-S", "--suffix"), write_valued=_s("-t")),
    "dd": CommandSpec("dd"),
    "sed": CommandSpec(
        "sed",
        valued=_s("-l", "--line-length"),
        read_valued=_s("-f", "--file"),
        pattern_options=_s("-e", "--expression", "-f", "--file"),
    ),
}
"""Commands by name (a path's last component: `/usr/bin/rm` is `rm`)."""

ACCEPT_EDITS_COMMANDS = frozenset({"mkdir", "touch", "rm", "rmdir", "mv", "cp"})
"""In acceptEdits mode these run without asking when every file they touch is inside the
workspace (sed is left out: its scripts can run commands and write other files)."""

SYSTEM_BIN_DIRS = frozenset(
    {"/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"}
)
"""`/usr/bin/rm` is `rm` for allow rules; `./rm` or `/tmp/rm` is not (for deny rules any path
counts)."""


@dataclass(frozen=True)
class GitSubcommand:
    forbidden: frozenset[str] = frozenset()
    positionals: Literal["any", "none_unless_list", "first_in"] = "any"
    first: frozenset[str] = field(default_factory=frozenset[str])
    bare: bool = True
    """With "first_in": whether the subcommand alone only reads (`git remote` lists, `git stash`
    stashes)."""
    requires_one_of: frozenset[str] = frozenset()


_GIT_OUTPUT = _s("--output", "-o", "--ext-diff", "--textconv", "--no-index")
GIT_READ_ONLY: Mapping[str, GitSubcommand] = {
    **dict.fromkeys(
        _names(
            "status log show diff rev-parse ls-files ls-tree blame describe shortlog cat-file "
            "show-ref rev-list merge-base name-rev for-each-ref count-objects version"
        ),
        GitSubcommand(forbidden=_GIT_OUTPUT),
    ),
    "grep": GitSubcommand(forbidden=_s("-O", "--open-files-in-pager", "--ext-grep")),
    "branch": GitSubcommand(
        forbidden=_s("-d", "-D", "-m", "-M", "-c", "-C", "-u", "-f", "-t", "--delete", "--move")
        | _s("--copy", "--force", "--set-upstream-to", "--unset-upstream", "--track")
        | _s("--edit-description", "--no-track", "--create-reflog"),
        positionals="none_unless_list",
    ),
    "tag": GitSubcommand(
        forbidden=_s("-d", "-a", "-s", "-u", "-f", "-m", "-F", "-e", "--delete", "--annotate")
        | _s("--sign", "--force", "--message", "--file", "--local-user", "--edit"),
        positionals="none_unless_list",
    ),
    "remote": GitSubcommand(positionals="first_in", first=_s("show", "get-url")),
    "stash": GitSubcommand(positionals="first_in", first=_s("list", "show"), bare=False),
    "worktree": GitSubcommand(positionals="first_in", first=_s("list"), bare=False),
    "reflog": GitSubcommand(positionals="first_in", first=_s("show")),
    "config": GitSubcommand(
        forbidden=_s("--add", "--unset", "--unset-all", "--replace-all", "--edit", "-e")
        | _s("--rename-section", "--remove-section"),
        requires_one_of=_s("--get", "--get-all", "--get-regexp", "--list", "-l")
        | _s("--get-urlmatch"),
    ),
}
"""git subcommands that only read, with the options that would make them write or run
something (`--output`, external diff and text conversion programs)."""

GIT_SAFE_GLOBAL_OPTIONS = frozenset(
    {"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects"}
)
"""git options allowed before a read-only subcommand; others (`-c`, `-C`, `--git-dir`,
`--exec-path`...) change configuration or location, so the command is asked."""

GIT_LIST_OPTIONS = _s("-l", "--list")

DANGEROUS_VARIABLES = _names(
    "PATH LD_* DYLD_* BASH_ENV ENV SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND IFS CDPATH "
    "GLOBIGNORE BASH_FUNC_* BASH_LOADABLES_PATH HOME XDG_CONFIG_HOME GIT_* PYTHON* "
    "*_OPTIONS *_OPTS NODE_PATH PERL5* PERLLIB RUBYOPT RUBYLIB GEM_* BUNDLE_* NPM_CONFIG_* "
    "npm_config_* YARN_* CARGO_* RUSTC* RUSTDOC* CC CXX CPP LD AR MAKEFLAGS MFLAGS GOFLAGS "
    "GOPROXY GOPATH PAGER MANPAGER GIT_PAGER EDITOR VISUAL LESSOPEN LESSCLOSE SSH_ASKPASS "
    "SUDO_ASKPASS BROWSER PIP_* UV_* TERMINFO* GCONV_PATH LOCPATH MALLOC_* TMPDIR "
    "SSH_AUTH_SOCK GNUPGHOME DOCKER_* KUBECONFIG JAVA_HOME CLASSPATH RIPGREP_CONFIG_PATH"
)
"""Variables whose value changes which program runs or what it loads: a command that sets one
is asked, not looked through (`PATH=/tmp/evil:$PATH git status`)."""


def is_dangerous_variable(name: str) -> bool:
    base = name.split("[", 1)[0]
    return any(fnmatchcase(base, pattern) for pattern in DANGEROUS_VARIABLES)


SUBSCRIPT_NAME_BUILTINS = frozenset(
    {"read", "declare", "typeset", "local", "export", "readonly", "unset", "mapfile"}
    | {"readarray", "getopts", "wait", "let", "printf", "test", "[", "[["}
)
"""Builtins that take variable names: a name with an array subscript (`a[$(cmd)]`) makes bash
evaluate the subscript, which can run commands."""
