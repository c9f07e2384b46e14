"""A package runner's command line read as the runner reads it, to find what it runs by a
name on the PATH it builds (every `node_modules/.bin` from the package's directory up) and
from which package directories: npm (options anywhere before `--`, as nopt reads them, and
its commands by any unambiguous abbreviation: `npm exe`), npx, pnpm, pnpx, yarn, bun, bunx,
and each through corepack. The directory comes from `--prefix`/`-C`, `-w`/`--workspace`,
`--dir`, `--cwd`; `-ws`/`--workspaces`, `-r`, `--filter`, `yarn workspace(s)` pick packages
among the workspace's (any directory below). A shell command line (`npm exec -c`, `--call`,
`pnpm exec -c`, `bun exec`, `npm explore P -- CMD`) runs with that PATH too.

An option the tables do not know may or may not take a value (nopt reads an unknown one as a
flag, a setting the tables lack takes one): both readings are followed, and what either
runs is judged."""

from __future__ import annotations

from typing import Final

from tether.permissions.runner_tables import (
    BUN,
    BUN_OWN,
    COREPACK_TOOLS,
    FOLLOW,
    FOLLOW_ANY,
    NPM,
    NPM_ALIASES,
    NPM_COMMANDS,
    PNPM,
    PNPM_OWN,
    YARN,
    YARN_OWN,
    Grammar,
)
from tether.permissions.shell_words import is_literal, program_name
from tether.slotted import Slotted

_MAX_READINGS = 64


class RunnerCall(Slotted):
    """One reading of a package runner's command line."""

    __slots__ = ("anywhere", "code", "dirs", "words")
    words: Final[tuple[str, ...] | None]
    """The command run by a name found on the runner's PATH (`jest --ci`)."""
    code: Final[str | None]
    """A shell command line run with that PATH."""
    dirs: Final[tuple[str, ...]]
    """Package directories named on the command line, from the working directory (a
    workspace name or path, `-w X`, is one of `dirs` when it is a directory there and
    otherwise `anywhere`)."""
    anywhere: Final[bool]
    """Whether it runs in packages of the workspace not named (`-r`, `--filter`, `-ws`)."""

    def __init__(
        self,
        words: tuple[str, ...] | None,
        code: str | None,
        dirs: tuple[str, ...],
        anywhere: bool,
    ) -> None:
        self.words = words
        self.code = code
        self.dirs = dirs
        self.anywhere = anywhere


def runner_calls(argv: tuple[str, ...]) -> list[RunnerCall]:
    """What a package runner's command line runs by a name on its PATH, each reading of it;
    none when it runs nothing so."""
    if not argv or not is_literal(argv[0]):
        return []
    name = program_name(argv[0])
    args = argv[1:]
    if name == "corepack":
        tool = args[0].partition("@")[0] if args else ""
        return runner_calls((tool, *args[1:])) if tool in COREPACK_TOOLS else []
    if name == "npm":
        return _npm(args)
    if name in ("npx", "pnpx", "bunx"):
        grammar = {"npx": NPM, "pnpx": PNPM, "bunx": BUN}[name]
        return [_call(r, r.words) for r in _read(args, grammar, interleaved=False)]
    if name in ("pnpm", "yarn", "yarnpkg", "bun"):
        return _subcommand(name, args)
    return []


class _Reading(Slotted):
    __slots__ = ("anywhere", "code", "dirs", "shell", "words")
    words: Final[tuple[str, ...]]
    dirs: Final[tuple[str, ...]]
    anywhere: Final[bool]
    code: Final[tuple[str, ...]]
    shell: Final[bool]

    def __init__(
        self,
        words: tuple[str, ...],
        dirs: tuple[str, ...],
        anywhere: bool,
        code: tuple[str, ...],
        shell: bool,
    ) -> None:
        self.words = words  # the positional words, and with interleaved=False the rest
        self.dirs = dirs
        self.anywhere = anywhere
        self.code = code
        self.shell = shell


def _read(args: tuple[str, ...], grammar: Grammar, *, interleaved: bool) -> list[_Reading]:
    """Each reading of `args`: options up to `--` (with `interleaved`, as nopt reads them
    among the positional words; otherwise up to the first positional word, which starts the
    rest)."""
    done: list[_Reading] = []
    todo: list[tuple[int, _Reading]] = [(0, _Reading((), (), False, (), False))]
    while todo:
        if len(done) + len(todo) > _MAX_READINGS:
            # Too many readings to follow: any word may be the command, anywhere.
            return [_Reading(args, (), True, tuple(a for a in args if " " in a), True)]
        i, at = todo.pop()
        if i >= len(args):
            done.append(at)
            continue
        arg = args[i]
        if arg == "--":
            done.append(_with(at, words=(*at.words, *args[i + 1 :])))
            continue
        if not arg.startswith("-") or arg == "-":
            if interleaved:
                todo.append((i + 1, _with(at, words=(*at.words, arg))))
            else:
                done.append(_with(at, words=(*at.words, *args[i:])))
            continue
        todo += [(i + used, found) for used, found in _option(args, i, grammar, at)]
    return done


def _option(
    args: tuple[str, ...], i: int, grammar: Grammar, at: _Reading
) -> list[tuple[int, _Reading]]:
    """The readings of the option at `args[i]`: how many words it takes, and what it sets."""
    arg = args[i]
    name, eq, attached = arg.partition("=")
    following = args[i + 1] if i + 1 < len(args) else None
    value = attached if eq else following
    used = 1 if eq else 2
    if name in grammar.flags or name in grammar.picks or name in grammar.code_flags:
        found = _with(
            at,
            anywhere=at.anywhere or name in grammar.picks,
            shell=at.shell or name in grammar.code_flags,
        )
        if not eq and following in ("true", "false"):  # nopt: `--flag false`
            return [(2, found)]
        return [(1, found)]
    exact = name in grammar.known()
    names = {name} if exact else _abbreviated(name, grammar)
    readings: list[tuple[int, _Reading]] = []
    if not exact and not eq:
        readings.append((1, at))  # a flag
    if value is None:
        return readings or [(1, at)]
    for full in names or {name}:
        readings.append((used, _valued(at, full, value, grammar)))
    return readings


def _abbreviated(name: str, grammar: Grammar) -> set[str]:
    """The options a word not known in full may abbreviate (nopt takes any unambiguous
    prefix, after one dash or two)."""
    bare = name.lstrip("-")
    if len(bare) < 2 or not name.startswith("-"):
        return set()
    return {full for full in grammar.known() if full.lstrip("-").startswith(bare)}


def _valued(at: _Reading, name: str, value: str, grammar: Grammar) -> _Reading:
    if name in grammar.dirs:
        return _with(at, dirs=(*at.dirs, value))
    if name in grammar.picks_valued:
        return _with(at, anywhere=True)
    if name in grammar.code:
        return _with(at, code=(*at.code, value))
    return at


def _with(
    at: _Reading,
    *,
    words: tuple[str, ...] | None = None,
    dirs: tuple[str, ...] | None = None,
    anywhere: bool | None = None,
    code: tuple[str, ...] | None = None,
    shell: bool | None = None,
) -> _Reading:
    return _Reading(
        at.words if words is None else words,
        at.dirs if dirs is None else dirs,
        at.anywhere if anywhere is None else anywhere,
        at.code if code is None else code,
        at.shell if shell is None else shell,
    )


def _call(reading: _Reading, words: tuple[str, ...], *, code: str | None = None) -> RunnerCall:
    if reading.shell and words:  # `pnpm exec -c 'a && b'`: the words are shell code
        code, words = " ".join(words), ()
    codes = [*reading.code, *([code] if code is not None else [])]
    return RunnerCall(words or None, "\n".join(codes) or None, reading.dirs, reading.anywhere)


def npm_command(word: str) -> str | None:
    """The npm command a word names, as npm reads it (an alias, a unique abbreviation of a
    command or an alias, camelCase as kebab-case); None when none."""
    if any(c.isupper() for c in word):
        word = "".join(f"-{c.lower()}" if c.isupper() else c for c in word)
    if word in NPM_COMMANDS:
        return word
    if word in NPM_ALIASES:
        return NPM_ALIASES[word]
    if not word:
        return None
    found = {n for n in (*NPM_COMMANDS, *NPM_ALIASES) if n.startswith(word)}
    if len(found) != 1:
        return None
    (full,) = found
    return NPM_ALIASES.get(full, full)


def _npm(args: tuple[str, ...]) -> list[RunnerCall]:
    found: list[RunnerCall] = []
    for reading in _read(args, NPM, interleaved=True):
        command = npm_command(reading.words[0]) if reading.words else None
        rest = reading.words[1:]
        if command == "exec":
            if rest or reading.code:
                found.append(_call(reading, rest))
        elif command == "explore" and rest:
            # `npm explore PKG -- CMD`: CMD runs in the shell in node_modules/PKG.
            at = _with(reading, dirs=(*reading.dirs, f"node_modules/{rest[0]}"))
            found.append(_call(at, (), code=" ".join(rest[1:]) or None))
    return found


def _subcommand(name: str, args: tuple[str, ...]) -> list[RunnerCall]:
    """pnpm, yarn and bun: their options, a command, its own options, then what it runs; a
    name not one of the runner's commands runs that program (bun: as `bun run`)."""
    grammar = {"pnpm": PNPM, "bun": BUN}.get(name, YARN)
    own = {"pnpm": PNPM_OWN, "bun": BUN_OWN}.get(name, YARN_OWN)
    found: list[RunnerCall] = []
    for reading in _read(args, grammar, interleaved=False):
        if not reading.words:
            continue
        first, rest = reading.words[0], reading.words[1:]
        if name != "pnpm" and first == "workspace" and rest:  # yarn workspace NAME CMD
            found += _again(name, _with(reading, anywhere=True), rest[1:])
        elif name != "pnpm" and first == "workspaces" and rest[:1] == ("foreach",):
            found += _again(name, _with(reading, anywhere=True), rest[1:], grammar=FOLLOW_ANY)
        elif first == "exec" and name == "bun":
            found.append(_call(reading, (), code=" ".join(rest) or None))
        elif first in ("exec", "x", "run") if name != "pnpm" else first == "exec":
            if first == "x" and name == "yarn":
                continue
            found += _again(name, reading, rest, grammar=grammar, command=False)
        elif first not in own:
            found.append(_call(reading, reading.words))
    if name == "bun":  # `bun run src/a.js`, `bun x.ts`: a file bun runs itself
        return [
            c for c in found if not c.words or ("/" not in c.words[0] and "." not in c.words[0])
        ]
    return found


def _again(
    name: str,
    reading: _Reading,
    rest: tuple[str, ...],
    *,
    grammar: Grammar | None = None,
    command: bool = True,
) -> list[RunnerCall]:
    """What follows a command that runs another (`yarn workspace W CMD`, `pnpm exec CMD`):
    with `command`, read as the runner's command line again; otherwise as the command run,
    after the options `grammar` knows."""
    if command and grammar is not None:
        rest = next(iter(r.words for r in _read(rest, grammar, interleaved=False)), ())
    if command:
        return [
            RunnerCall(c.words, c.code, (*reading.dirs, *c.dirs), reading.anywhere or c.anywhere)
            for c in _subcommand(name, rest)
        ]
    found: list[RunnerCall] = []
    for inner in _read(rest, grammar or FOLLOW, interleaved=False):
        merged = _Reading(
            inner.words,
            (*reading.dirs, *inner.dirs),
            reading.anywhere or inner.anywhere,
            (*reading.code, *inner.code),
            reading.shell or inner.shell,
        )
        if merged.words or merged.code:
            found.append(_call(merged, merged.words))
    return found
