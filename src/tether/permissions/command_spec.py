"""The shape of what tether knows about a command (`CommandSpec`), kept apart from the tables
that fill it in (commands.py, program_commands.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

FileRole = Literal[
    "read",
    "write",
    "none",
    "mentions",
    "pattern_read",
    "copy",
    "move",
    "dd",
    "sed",
    "awk",
    "jq",
    "git",
]
"""What positional arguments are: files read, files written, nothing, words that may name
files read from elsewhere (`git show HEAD:.env`: asked when they name a denied file), a
pattern then files read (grep), sources then a destination (cp; mv and ln also write their
sources, and their content moves, so they count as read), dd's `if=`/`of=`, a sed, awk or jq
program then files read (sed's are written too with -i; jq's imports are read too), git's own
(git_policy.py)."""


@dataclass(frozen=True, eq=False)
class CommandSpec:
    files: FileRole
    valued: frozenset[str] = frozenset()
    """Options taking a separate value that is not a file (`-n 5`)."""
    read_valued: frozenset[str] = frozenset()
    """Options whose value is a file that is read (`grep -f FILE`)."""
    write_valued: frozenset[str] = frozenset()
    """Options whose value is a file that is written (`sort -o FILE`)."""
    list_valued: frozenset[str] = frozenset()
    """Options whose value is a file naming the files that are read (`--files0-from`)."""
    list_flags: frozenset[str] = frozenset()
    """Flags that make the positionals such lists (`sha256sum -c SUMS`)."""
    pattern_options: frozenset[str] = frozenset()
    """Options that give the pattern or script, so that the first positional is a file."""
    pairs: frozenset[str] = frozenset()
    """Options taking two values, a name then a value (`jq --arg NAME VALUE`)."""
    read_pairs: frozenset[str] = frozenset()
    """Options taking a name, then a file that is read (`jq --rawfile NAME FILE`)."""
    attached: frozenset[str] = frozenset()
    """Options whose value, if any, is attached (`sed -i.bak`, `gawk -d[FILE]`)."""
    runs: frozenset[str] = frozenset()
    """Options whose value is a command it runs (`rg --pre CMD`); `-o=ProxyCommand` is option
    `-o` with a value starting `ProxyCommand` (case ignored), the command after it. The command
    must be allowed itself."""
    unseen: frozenset[str] = frozenset()
    """Options with which it runs or loads code that cannot be seen (`awk -f PROG`, `pytest -p
    PLUGIN`): asked whatever the rules say. Same `-o=Key` form."""
    harmless_values: Mapping[str, tuple[str, ...]] = field(
        default_factory=dict[str, tuple[str, ...]]
    )
    """Value prefixes that make an `unseen` option harmless (`pytest -p no:cacheprovider`)."""
    inert_values: Mapping[str, frozenset[str]] = field(default_factory=dict[str, frozenset[str]])
    """Whole values with which an `unseen` option loads nothing (`vim -u NONE`)."""
    flag_writes: Mapping[str, str] = field(default_factory=dict[str, str])
    """Flags that write or delete a file of their own (`pytest --cache-clear`)."""
    name_globs: frozenset[str] = frozenset()
    """Options whose values are globs of the names it reads in every directory below its
    positionals (`pytest --doctest-glob`): a recursive read of those names."""
    removes: frozenset[str] = frozenset()
    """Flags with which the files it reads are deleted once read (`tar --remove-files`, `zip
    -m`): written too, and deleted (`ProgramUse.deletes`)."""
    deletes_valued: frozenset[str] = frozenset()
    """Options whose value is a directory it empties before use (`pytest --basetemp`): a
    write of it, and a delete of what is there (`ProgramUse.deletes`)."""
    extracts: frozenset[str] = frozenset()
    """Flags with which it writes files named inside its input, below the directory it runs in
    or the one `chdir` options lead to (`tar -x`)."""
    archive_writes: frozenset[str] = frozenset()
    """Flags with which the files of options both read and written (`tar -f ARCHIVE`) are
    written (`tar -c`, `-r`, `--delete`); without one they are only read (`tar -t`, `-x`)."""
    archive_creates: frozenset[str] = frozenset()
    """Of those, the flags with which such files are only written, not read (`tar -c`)."""
    chdir: frozenset[str] = frozenset()
    """Options whose value is a directory that the files named after it are relative to, each
    relative to the one before (`tar -C DIR FILE` reads DIR/FILE; `-C a -C b`, a/b)."""
    flags: str = ""
    """Short flags without a value that it has and that change nothing of the above."""
    long_flags: frozenset[str] = frozenset()
    plus_commands: bool = False
    """A `+CMD` argument is a command of its own language run at start (`less +!cmd`)."""
    runs_input: bool = False
    """It runs commands it reads on its input, where they are not seen (ed's `!cmd`)."""
    any_option: bool = False
    """Its options cannot make it do harm (`echo`): unknown ones are not looked at."""
    word_options: bool = False
    """Each word starting with one dash is one option, named by its first letter, whatever
    follows (xxd: `-ps` and `-postscript` are `-p`; `-c8` is `-c 8`; a valued option spelled
    out, `-cols`, takes the next word)."""
    bundle_first: bool = False
    """A first word without a dash is a bundle of options taking their values in order
    (`tar czf out.tgz dir`)."""
    read_only: bool = False
    """Runs without asking when its files are fine (the built-in allowlist)."""
    forbidden: frozenset[str] = frozenset()
    """Options that make a read-only command write or run programs; with one, it is asked
    unless a rule allows the command."""
    recursive: frozenset[str] = frozenset()
    """Options that make it read whole directory trees (`--opt=value` when only that value
    does); `always` marks commands that do."""
    follows: frozenset[str] = frozenset()
    """Options with which a recursive read follows symlinks, out of the tree it was given."""
    written_after: int | None = None
    """Positionals past this many are written (`uniq IN OUT`)."""
    links: frozenset[str] = frozenset()
    """Flags with which the copies are links to the sources (`cp -l`, `cp -s`): writing a copy
    later writes its source, so the sources count as written, as `ln`'s do."""
    symbolic: frozenset[str] = frozenset()
    """Flags with which the written files are symbolic links: a relative source is then also
    the file named from the link's directory (`ln -s ../x dir/`)."""
    writes_first: bool = False
    """The first positional is written, the others read (`zip OUT.zip FILES`)."""
    written_prefixes: bool = False
    """What it writes are name prefixes (`split FILE PREFIX` writes PREFIXaa...)."""
    default_writes: tuple[str, ...] = ()
    """Written when no positional says otherwise (`split` writes `x*`)."""
    lists_cwd: bool = False
    """With no file arguments it reads the current directory (`ls`)."""
    write_prefixed: Mapping[str, tuple[str, ...]] = field(
        default_factory=dict[str, tuple[str, ...]]
    )
    """Options whose value, after one of these prefixes, is a file or directory written
    (`pytest --cov-report=html:DIR`); a value without one writes nothing it names."""
    module_fields: Mapping[str, int] = field(default_factory=dict[str, int])
    """Options whose value's `:`-separated field N names a class by its module when dotted,
    which it imports (`pytest -W error::pkg.Warn`): code not seen, like `unseen`."""
    collects: bool = False
    """Its positionals are files and directories whose code it imports (pytest's tests and
    their `conftest.py`): outside the workspace, code no rule has seen."""
    modules: Mapping[str, str] = field(default_factory=dict[str, str])
    """`-m MODULE` runs a command described in the table under that name (`python -m pytest`)."""
    optional_valued: frozenset[str] = frozenset()
    """Of the long options taking a value, those whose value is optional (argparse's
    `nargs='?'`: `pytest --cov`, `--cov=src`, `--cov src`): the next word is not its value
    when it is an option (`--cov --cov-config=FILE`)."""

    @cached_property
    def valued_options(self) -> frozenset[str]:
        """Options taking a value, whatever it is."""
        return (
            self.valued
            | self.read_valued
            | self.write_valued
            | self.list_valued
            | self.pattern_options
            | self.pairs
            | self.read_pairs
            | self.name_globs
            | frozenset(option_of(entry) for entry in self.runs | self.unseen)
        )

    @cached_property
    def code_options(self) -> Mapping[str, tuple[tuple[str, bool], ...]]:
        """`runs` and `unseen` by option: (value key, whether it runs the rest)."""
        found: dict[str, list[tuple[str, bool]]] = {}
        for entries, runs in ((self.runs, True), (self.unseen, False)):
            for entry in entries:
                option, _, key = entry.partition("=")
                found.setdefault(option, []).append((key, runs))
        return {option: tuple(keys) for option, keys in found.items()}

    @cached_property
    def known_options(self) -> frozenset[str] | None:
        """Every option it knows, or None when unknown options do not matter."""
        if self.any_option or not self.read_only:
            return None
        return (
            self.valued_options
            | self.attached
            | self.forbidden
            | self.long_flags
            | self.list_flags
            | self.removes
            | self.deletes_valued
            | self.extracts
            | self.links
            | self.symbolic
            | frozenset(self.flag_writes)
            | frozenset(option_of(entry) for entry in self.recursive | self.follows)
        )

    @cached_property
    def long_options(self) -> frozenset[str]:
        """Every long option the spec names, in any role: an exact one is that option,
        never an abbreviation of a longer one (`jq --slurp` is no `--slurpfile`)."""
        every = (
            self.valued_options
            | self.attached
            | self.forbidden
            | self.long_flags
            | self.list_flags
            | self.removes
            | self.deletes_valued
            | self.extracts
            | self.archive_writes
            | self.archive_creates
            | self.chdir
            | self.links
            | self.symbolic
            | frozenset(self.flag_writes)
            | frozenset(option_of(entry) for entry in self.recursive | self.follows)
        )
        return frozenset(name for name in every if name.startswith("--"))


def option_of(entry: str) -> str:
    return entry.partition("=")[0]


def names(*names: str) -> frozenset[str]:
    return frozenset(names)


def words(text: str) -> list[str]:
    return text.split()
