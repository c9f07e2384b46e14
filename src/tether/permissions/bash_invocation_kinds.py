"""What kind of program an invocation runs, as the Bash judge (bash_policy) asks: one git
runs from PATH for a subcommand of its own, one named by a path that may lead anywhere, a
system program, one the read-only allowlist covers; and whether a command line holds a
command, besides a build runner, that may write the files the runner reads
(`may_generate`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

from tether.permissions.bash_files import program_use
from tether.permissions.bash_rules import all_invocations
from tether.permissions.commands import COMMANDS, SYSTEM_BIN_DIRS
from tether.permissions.git_policy import git_delegate
from tether.permissions.interpreter_scripts import is_query
from tether.permissions.produced_paths import PRODUCED_WORD
from tether.permissions.script import Invocation
from tether.permissions.shell_words import DYN, program_name, shown

_WRITING_NOTHING = frozenset(
    {"export", "cd", "pushd", "popd", "set", "unset", "echo", "printf", "true", "false"}
    | {":", "test", "[", "[[", "local", "declare", "typeset", "readonly", "shopt", "alias"}
    | {"umask", "ulimit", "sleep", "wait", "pwd", "type", "command", "hash", "exit", "return"}
)
"""Builtins that write no file but through a redirection (which the judge sees)."""


def may_generate(invocations: Iterable[Invocation]) -> bool:
    """Whether more than one command of the line may write files: a build runner's file
    absent now may then be written before it runs (`./configure && make`)."""
    writers = 0
    for inv in all_invocations(tuple(invocations)):
        if inv.role != "command" or not inv.argv or inv.inner:
            continue  # `X=1` alone, a redirection (seen by the judge), a wrapper: what it runs
        writers += program_name(inv.argv[0]) not in _WRITING_NOTHING
    return writers > 1


_GENERATORS = frozenset(
    {"configure", "Configure", "config.status", "autogen.sh", "bootstrap", "bootstrap.sh"}
    | {"autoreconf", "automake", "cmake", "ccmake", "qmake", "meson", "Makefile.PL", "gn"}
)
"""Programs and scripts that (re)write a directory's build files: `./configure` the Makefile
(from Makefile.in), autogen.sh and autoreconf what configure makes it from, cmake, qmake,
meson and `perl Makefile.PL` theirs."""
_GENERATOR_HOSTS = frozenset({"sh", "bash", "dash", "zsh", "perl", "python3", "python"})
_NOT_GENERATING = frozenset({"--build", "-E", "-P", "--version", "--help", "--install"})


def regenerator(invocations: Iterable[Invocation]) -> str | None:
    """The first program of the line that rewrites build files (`./configure`, `sh
    autogen.sh`, `cmake .`; not `cmake --build`), or None: a build runner after it runs
    the file as rewritten, not the one there now."""
    for inv in all_invocations(tuple(invocations)):
        if inv.role != "command" or not inv.argv:
            continue
        names = [program_name(inv.argv[0])]
        if names[0] in _GENERATOR_HOSTS and len(inv.argv) > 1:
            names.append(program_name(inv.argv[1]))
        for name in names:
            if name in _GENERATORS and not _NOT_GENERATING & set(inv.argv[1:]):
                return name
    return None


def delegated(inv: Invocation) -> tuple[int, tuple[str, ...]] | None:
    """`git SUB ...` where git runs the program `git-SUB` from PATH (git_policy)."""
    argv = inv.own_argv
    if inv.role != "command" or not argv or program_name(argv[0]) != "git":
        return None
    return git_delegate(argv)


def named_by_path(inv: Invocation) -> bool:
    """A program named by a path that may lead out of the workspace (`/x/tool`, `../x`), not
    found by its name: it may be anything."""
    program = shown(inv.argv[0]) if inv.argv else ""
    return program.startswith(("/", "~")) or ".." in program


def system_program(inv: Invocation) -> bool:
    program = shown(inv.argv[0])
    return "/" not in program or str(PurePosixPath(program).parent) in SYSTEM_BIN_DIRS


def allowlisted(inv: Invocation) -> bool:
    """Whether the built-in allowlist covers the program itself (its files are checked apart)."""
    argv = inv.own_argv
    if inv.produced is not None:
        # Paths another program names are no options (produced_paths.py): files judged apart.
        argv = tuple(PRODUCED_WORD if word == DYN else word for word in argv)
    if inv.writes or not system_program(inv):
        return False
    if is_query(argv):
        return True  # `python3 --version`: no code runs
    name = program_name(argv[0])
    spec = COMMANDS.get(name)
    if spec is None or not spec.read_only:
        # find's own words (its -exec commands are judged apart; -delete and -fprint are
        # writes, seen above).
        return name == "find"
    use = program_use(argv)
    return use is not None and use.read_only
