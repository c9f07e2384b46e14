"""Where a Bash command's words lead as paths: the directories its relative paths may start
from, which grow as `cd` and `pushd` in the same command may move the shell, and each word as
the path (or path pattern) it stands for there."""

from __future__ import annotations

from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from tether.permissions import steps
from tether.permissions.access import FileAccess
from tether.permissions.file_targets import GlobPath, Target
from tether.permissions.paths import ANY, Token, is_below, normalize
from tether.permissions.script import Invocation
from tether.permissions.shell_globbing import DEFAULT, GlobOptions, glob_tokens
from tether.permissions.shell_words import DYN, HOME, is_literal, program_name, readable
from tether.permissions.shell_words import ONE as ONE_MARK
from tether.permissions.shell_words import STAR as STAR_MARK

_CHANGES_DIRECTORY = frozenset({"cd", "pushd", "popd"})
_TARGET_STEPS = 4
"""A word made a path from one place, in steps (steps.py)."""
_LOOKUP_STEPS = 20
"""A user's home looked up in the password database, in steps (steps.py)."""
MAX_PLACES = 8
"""The most directories kept as places a command's relative paths may start from. Each `cd`
in a branch (`cd a || cd b`) may apply or not, so the places double with each one: past this
many, a further `cd` leaves the shell somewhere unknown (its relative paths are then patterns
that may be anywhere), which keeps the work of a decision bounded."""


def _back(args: tuple[str, ...]) -> bool:
    """Whether `cd ARGS` is `cd -` (after options: `cd -P -`, `cd -- -`)."""
    words = list(args)
    while words and words[0].startswith("-") and words[0] not in ("-", "--"):
        words.pop(0)
    if words[:1] == ["--"]:
        words.pop(0)
    return words[:1] == ["-"]


@dataclass
class ShellPlaces:
    """The directories a command's relative paths may start from."""

    files: FileAccess
    cdpath: bool = False
    """The command may set CDPATH: a relative `cd` may go anywhere (the Bash tool runs with
    it empty)."""
    cwds: dict[Path | None, None] = field(default_factory=dict[Path | None, None])
    """Where the relative paths of the command being judged may start (None: somewhere
    unknown, after `cd $X`), in the order found: every place in `everywhere`, or, for a
    command chained to a `cd` before it (`cd src && make`: `follow`), where that `cd` led."""
    everywhere: dict[Path | None, None] = field(default_factory=dict[Path | None, None])
    """Every place the line may have left the shell in so far. Only grows, up to `MAX_PLACES`
    and then None: a `cd` inside a subshell or a branch may or may not apply."""

    back: bool = False
    """`cd -` goes back to a place already kept: nothing in the command may give OLDPWD (or
    PWD, which cd copies to it) a value of its own (shell_steady), and the Bash tool starts
    each command with OLDPWD set to where it starts. Otherwise it may go anywhere."""
    named_from: dict[Path | None, None] | None = None
    """While a command runs in a directory not known (`elsewhere`): the places the paths
    another program names for it start from (find's `{}`)."""

    logical: bool = False
    """Nothing in the line may turn on bash's physical mode (`set -P`, `set -o physical`):
    a `cd` without `-P` is logical (shell_chains.cd_stays_logical)."""

    settled: bool = False
    """Nothing but a `cd` has run before the command being judged, and nothing in the line
    runs beside another (`&`, shell_chains.runs_alone): the directories on disk are as
    they are now."""

    options: GlobOptions = DEFAULT
    """The glob options that may be on where the words being judged are expanded
    (shell_globbing; the judge sets them command by command)."""

    _homes: dict[str, Path | None] = field(default_factory=dict[str, Path | None])
    _top: Invocation | None = None
    """The command of the line itself being judged (`follow`), whose `cd` moves the shell
    for a command chained to it."""

    def __post_init__(self) -> None:
        self.cwds[self.files.ctx.cwd] = None
        self.everywhere[self.files.ctx.cwd] = None

    def follow(self, inv: Invocation, *, chains: bool) -> None:
        """Before judging `inv`, a command of the line itself (not one a wrapper runs): where
        it may run. Chained to the one before (`Invocation.chained`), where that one left the
        shell; otherwise anywhere the line may have led. `chains` is False when a function,
        an alias or code out of sight may change what `cd` does (shell_steady)."""
        for place in self.cwds:
            _keep(self.everywhere, place)
        self._top = inv if chains else None
        if not (chains and inv.chained):
            self.cwds = dict(self.everywhere)

    def targets(self, word: str, cwds: dict[Path | None, None] | None = None) -> list[Target]:
        """The paths (or patterns) `word` may stand for: one per place it may start from
        (`cwds`, the shell's by default)."""
        cwds = self.cwds if cwds is None else cwds
        ctx = self.files.ctx
        if not word:
            return []
        if word.startswith(HOME):
            name, _, rest = word[1:].partition("/")
            if name in ("+", "-") and self.back:
                # `~+` is $PWD, the shell's directory; `~-` $OLDPWD, one it was in (or where
                # the line started): steady when nothing in the line sets them.
                cwds = cwds if name == "+" else {**self.everywhere, **cwds}
                return self.targets(rest or ".", cwds)
            home = ctx.home if not name else self._user_home(name)
            if home is not None:
                return [path_target(home, rest, word, self.options)]
            if not name or name[0] in "+-" or name.isdigit():  # the directory stack
                return [GlobPath(readable(word), (ANY, "/", *self._tokens(rest)), None)]
            word = "~" + word[1:]  # no such user: bash leaves the word as written
        if word.startswith("/"):
            return [path_target(Path("/"), word, word, self.options)]
        if word.startswith(DYN):
            return [GlobPath(readable(word), self._tokens(word), None)]
        targets: list[Target] = []
        steps.spend(_TARGET_STEPS * len(cwds))
        for cwd in cwds:
            if cwd is None:
                targets.append(GlobPath(readable(word), (ANY, "/", *self._tokens(word)), None))
            else:
                targets.append(path_target(cwd, word, word, self.options))
        return targets

    def inside(self, word: str) -> bool:
        """Whether every path `word` stands for leads inside the workspace as the kernel
        reaches it (symlinks followed, as the file tools resolve a path); not when one may
        be anywhere or cannot be resolved."""
        targets = self.targets(word)
        return bool(targets) and all(
            isinstance(target, Path)
            and (real := self.files.real(target)) is not None
            and is_below(real, self.files.ctx.write_roots)
            for target in targets
        )

    @contextmanager
    def elsewhere(self) -> Generator[None]:
        """While a command runs in a directory not known before it runs (find's `-execdir`:
        each found file's): its relative paths may start anywhere, and hg, git or make find
        their repository or makefile there, so `.` is not the workspace. The paths named for
        it (find's `{}`) still start where the shell is."""
        kept, named = self.cwds, self.named_from
        self.named_from = named if named is not None else kept
        self.cwds = {None: None}
        try:
            yield
        finally:
            self.cwds, self.named_from = kept, named

    def named_targets(self, word: str) -> list[Target]:
        """The paths `word`, a path another program names (find's `{}`), may stand for."""
        return self.targets(word, self.named_from)

    def _tokens(self, word: str) -> tuple[Token, ...]:
        return path_tokens(word, self.options)

    def _user_home(self, name: str) -> Path | None:
        """`~name` (a lookup in the password database, once per name in a decision)."""
        if name not in self._homes:
            steps.spend(_LOOKUP_STEPS)
            self._homes[name] = tilde_home(name, self.files.ctx.user_home)
        return self._homes[name]

    def track(self, inv: Invocation) -> None:
        """Where `cd`/`pushd` may leave the shell. bash's cd is logical (`cd link/..` folds
        `..` on the path as written) unless `-P`; the kernel then resolves later relative
        paths from the real directory (the resolver does, from the logical path). The
        physical directory is kept too, for `set -P` and a later `cd ..`."""
        if not inv.argv or program_name(inv.argv[0]) not in _CHANGES_DIRECTORY:
            self.settled = False
            return
        back = program_name(inv.argv[0]) == "cd" and _back(inv.argv[1:])
        top = inv is self._top
        if back and self.back:
            # `cd -` goes to OLDPWD: where the shell was before this command's last `cd`, a
            # place already here, or where the command started (the Bash tool sets OLDPWD
            # to it). Nothing new, but any of them.
            if top:
                self.cwds = dict(self.everywhere)
            return
        target, physical = cd_target(program_name(inv.argv[0]), inv.argv[1:])
        relative = target is not None and not target.startswith(("/", HOME, "./", "../"))
        if target is None or (self.cdpath and relative and target not in (".", "..")):
            target = None
        found = self.targets(target) if target is not None else [None]
        places: list[Path | None] = []
        for directory in found:
            if isinstance(directory, Path):
                real = self.files.real(directory)
                if physical:
                    places.append(real)
                elif self._lands_logically(directory):
                    places.append(normalize(directory))
                else:
                    places += [normalize(directory), real]
            else:
                places.append(None)
        if top and None not in places:
            # What follows chained to it runs where it led, nowhere else. Led somewhere not
            # known, the places before stay too: `cd $DIR && cat .env` is denied as the
            # workspace's `.env`, where the shell may still be.
            self.cwds = {}
        for place in places:
            _keep(self.cwds, place)
            _keep(self.everywhere, place)

    def _lands_logically(self, directory: Path) -> bool:
        """Whether a logical `cd` to `directory` surely lands in its path with `..` folded as
        written (`cd homelink/..` is where homelink is): bash changes to that when it is a
        directory, and only when that fails to the physical one, the same place unless the
        path climbs with `..`. Sure then when nothing in the line makes cd physical, and
        the path does not climb, or its folded form is a directory now that nothing before
        the `cd` can have taken away: one that holds where the command starts (the line
        cannot take it away without taking that), or any when only `cd`s ran before it
        (`cd homelink/../src` is the workspace's src)."""
        if not self.logical:
            return False
        if ".." not in directory.parts:
            return True
        folded, cwd = normalize(directory), self.files.ctx.cwd
        return folded.is_dir() and (self.settled or folded == cwd or folded in cwd.parents)


def _keep(places: dict[Path | None, None], place: Path | None) -> None:
    """`place` among `places`, which hold at most `MAX_PLACES`: past them, somewhere unknown."""
    if place not in places and len(places) >= MAX_PLACES:
        place = None
    places[place] = None


def path_target(base: Path, rest: str, word: str, options: GlobOptions = DEFAULT) -> Target:
    """A path below `base`, as written (`..` is applied by the resolver, after the symlinks
    before it), or the glob it stands for when it holds unknown parts, under the shell's glob
    `options` (shell_globbing). `rest` stays below `base` even when it starts with a slash
    (`~//x` is `~/x`, as bash reads it)."""
    rest = rest.lstrip("/")
    if is_literal(rest):
        return base / rest
    segments = [s for s in rest.split("/") if s not in ("", ".")]
    fixed = 0
    while is_literal(segments[fixed]):
        fixed += 1
    head, tail = segments[:fixed], segments[fixed:]
    directory = base.joinpath(*head)
    tail_text = "/".join(tail)
    below = path_tokens(tail_text, options)
    climbing = [i for i, s in enumerate(tail) if _may_climb(s)]
    if climbing:
        # `*/../.env`, `$X/../.env`, `.*/x`: what follows may start anywhere (a glob may match
        # a symlink, `..` after it leaves where it led), so no `..` stays in the pattern for
        # rules, which name folded paths, to miss.
        after = tail[climbing[-1] + 1 :]
        tokens = (ANY, "/", *path_tokens("/".join(after), options)) if after else (ANY,)
        return GlobPath(readable(word), tokens, None, below, directory)
    tokens = path_tokens(normalize(directory).as_posix().rstrip("/") + "/" + tail_text, options)
    if any(DYN in s for s in tail):  # a variable's text may hold `/`: no directory bounds it
        return GlobPath(readable(word), tokens, None, below, directory)
    return GlobPath(readable(word), tokens, directory, below, directory)


def _may_climb(segment: str) -> bool:
    """Whether a segment after a glob or a variable may be `..`: `..` itself, or a pattern
    starting with a dot that can match it (`.*`, `.?`, `.$X`; not `.e*x`). Bash matches `..`
    only with a leading dot written out, whatever dotglob says."""
    if segment == "..":
        return True
    if is_literal(segment) or segment[0] != ".":
        return False
    pattern = segment.replace(STAR_MARK, "*").replace(ONE_MARK, "?").replace(DYN, "*")
    return "[" in pattern or fnmatchcase("..", pattern)  # a class: taken as able to


def tilde_home(name: str, user_home: Callable[[str], Path | None]) -> Path | None:
    """The directory `~name` stands for: a user's home; None for the directory stack (`~+`,
    `~-`, `~N`: only the running shell knows) and for an unknown user."""
    if name[0] in "+-" or name.isdigit():
        return None
    return user_home(name)


def cd_target(program: str, args: tuple[str, ...]) -> tuple[str | None, bool]:
    """Where `cd`/`pushd` goes (None: not known, as for `popd`, `cd -`, `pushd +1`, a
    non-literal word), and whether physically (`-P`: symlinks resolved, not folded)."""
    physical = False
    words = list(args)
    while words and words[0].startswith("-") and words[0] != "-":
        option = words.pop(0)
        if option == "--":
            break
        if program != "cd" or not set(option[1:]) <= set("LPe@"):
            return None, False  # `pushd -n`, an option not known: not followed here
        for letter in option[1:]:
            physical = {"P": True, "L": False}.get(letter, physical)
    if program == "popd":
        return None, False
    target = words[0] if words else HOME
    if not is_literal(target) or target == "-" or (target[0] in "+-" and target[1:].isdigit()):
        return None, False
    return target, physical


def path_tokens(path: str, options: GlobOptions = DEFAULT) -> tuple[Token, ...]:
    """A word as glob tokens: a glob does not start a name with a dot unless `options` say
    so (shell_globbing)."""
    steps.spend(len(path) // 8)  # a character at a time (steps.py)
    return glob_tokens(path, options)
