"""What a Bash command would run, as data: the result of parsing, input to the Bash policy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Role = Literal["command", "wrapper", "privileged"]
"""How an invocation relates to the commands it runs (`inner`):

- command: a program judged on its own words; any inner commands (find -exec, trap) must be
  allowed as well.
- wrapper: only runs its inner commands (timeout, env, xargs, bash -c, eval...); it is allowed
  when they all are.
- privileged: runs them as someone else (sudo, su, doas); only a rule naming the whole command
  allows it.
"""


@dataclass(frozen=True)
class Redirect:
    op: str
    target: str
    """A word (see shell_words): may hold markers for unknown parts."""
    writes: bool


@dataclass(frozen=True)
class Produced:
    """Where the unknown words (`DYN`) of a command come from when another program names them:
    find's `{}`, the words xargs adds from `ls`. Each is a name below the directory `start`
    (a word) that matches `name` (fnmatch; one starting with a dot only when `dots`): at any
    depth, as `start/name` (`deep`, find), or directly in it, as the bare name (ls); `blanks`:
    the words were split at blanks first (xargs), so a name holding one is several words.
    produced_paths.py judges them from the disk."""

    start: str
    name: str
    deep: bool
    dots: bool
    blanks: bool
    follows: bool = False
    tests: tuple[tuple[str, str, bool], ...] = ()
    """find's name tests (`-name`, `-iname`, `-path`, `-ipath`...), each with its pattern and
    whether it is negated: a path is named when all pass."""
    """find follows symlinks below its start (`-L`): one there may lead anywhere, so the
    names are not known; without it a symlink is a name, judged by where it leads."""
    paths: bool = False
    """The names are printed as `start/name`, each a file (ls given a glob, `ls src/*.py`: a
    directory with entries among them is listed instead, so the names are not known)."""


@dataclass(frozen=True)
class Invocation:
    """One simple command as it would run, with what it runs in turn."""

    argv: tuple[str, ...]
    """Words after quote removal (shell_words markers for unknown parts); empty for a bare
    assignment or a redirection of a compound command."""
    assignments: tuple[tuple[str, str], ...] = ()
    redirects: tuple[Redirect, ...] = ()
    role: Role = "command"
    own: tuple[str, ...] | None = None
    """The words judged as the program itself when they differ from argv (find without its
    -exec clauses)."""
    inner: tuple[Invocation, ...] = ()
    reads: tuple[str, ...] = ()
    """Files a wrapper reads besides its command's own (`xargs -a FILE`)."""
    writes: tuple[str, ...] = ()
    """Files a wrapper writes (`time -o FILE`)."""
    problems: tuple[str, ...] = ()
    """Why this cannot be allowed whatever the rules say (asked instead)."""
    persistent: bool = False
    """Its assignments outlive it (`X=1` alone, `export X=1`)."""
    late: bool = False
    """It may run again after the commands that follow it in the text (in a function's body,
    a loop), so what they change (glob options: shell_globbing) may be in force."""
    unparsed_from: int | None = None
    """A wrapper whose options were not understood: its command starts somewhere at or after
    this index, so deny rules are tried on every tail."""
    produced: Produced | None = None
    """What its unknown words stand for, when each is a path another program names (find's
    `{}`); None: not known."""
    elsewhere: bool = False
    """It runs in a directory not known before it runs (find's `-execdir`: each found
    file's), not where the shell is (shell_places)."""
    chained: bool = False
    """It runs only when the invocation before it succeeded, in the same shell (`cd src &&
    make`: shell_chains), so it runs where that one left the shell."""

    @property
    def own_argv(self) -> tuple[str, ...]:
        return self.argv if self.own is None else self.own


@dataclass(frozen=True)
class Script:
    """A parsed command line: every invocation in source order (substitutions included)."""

    invocations: tuple[Invocation, ...]
    problems: tuple[str, ...] = ()
    steps: int = 0
    """The work reading it took, nested reads included (`shell_budget.py`): the same for the
    same text, whatever the parse cache held."""
