"""A command's options as a set, for deny and ask rules: `rm -rf *` must also stop
`rm -fr x`, `rm -r -f x`, `rm -Rf x`, `rm -rfv x`, `rm --recursive --force x` and
`rm x -rf` (GNU tools and git take options after positionals too).

A command is split into its head (the program, and the subcommand for programs that have
them: `git push`, `npm run`), its options as atoms (each letter of a short bundle, each long
option, folded to one name per meaning through `OPTION_ALIASES`, an abbreviation
`--rec` to every long option it may abbreviate), and its other words. A rule matches when its
head is the command's, its atoms are a subset of the command's, and its other words, as a
pattern, match the command's. Allow rules never match this way: extra options can make a
command do more than the rule allowed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from tether.permissions.star_patterns import StarPattern
from tether.slotted import Slotted

_RECURSIVE_FORCE = {"-R": ("-r",), "--recursive": ("-r",), "--force": ("-f",)}
OPTION_ALIASES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "rm": {**_RECURSIVE_FORCE, "--dir": ("-d",), "--verbose": ("-v",), "--interactive": ("-i",)},
    "cp": {**_RECURSIVE_FORCE, "-a": ("-a", "-r"), "--archive": ("-a", "-r")},
    "mv": {"--force": ("-f",)},
    "ln": {"--symbolic": ("-s",), "--force": ("-f",)},
    # Not `-r`: to chmod that is a mode (remove read permission).
    **{name: {"--recursive": ("-R",)} for name in ("chmod", "chown", "chgrp")},
    "git push": {
        "--force": ("-f",),
        "--force-with-lease": ("-f",),
        "--force-if-includes": ("-f",),
        "--delete": ("-d",),
        "--mirror": ("--mirror", "-f"),
    },
    "git clean": {"--force": ("-f",), "--dry-run": ("-n",)},
    "git checkout": {"--force": ("-f",)},
    "git branch": {"-D": ("-d", "-f"), "--delete": ("-d",), "--force": ("-f",)},
    "git reset": {},
    "npm install": {"--global": ("-g",), "--force": ("-f",)},
    "npm publish": {"--force": ("-f",)},
    "pip install": {"--upgrade": ("-U",)},
}
"""Per program (or `program subcommand`), the spellings of one option and the meanings they
stand for (`git branch -D` is `--delete --force`). A short option not listed is its own
meaning; so is a long one."""

SUBCOMMAND_PROGRAMS = frozenset(
    {"git", "npm", "pnpm", "yarn", "cargo", "docker", "podman", "kubectl", "helm", "pip"}
    | {"pip3", "uv", "go", "gh", "apt", "apt-get", "brew", "systemctl", "terraform"}
)
"""Programs whose first word past the options is a subcommand, part of the head."""
WORD_OPTIONS = frozenset({"find"})
"""Programs whose single-dash options are whole words (`find -delete`), not letter bundles."""
GIT_VALUED_GLOBALS = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
)


class OptionForm(Slotted):
    __slots__ = ("head", "options", "words")
    head: Final[tuple[str, ...]]
    options: Final[frozenset[str]]
    words: Final[tuple[str, ...]]
    """The words that are not options, in order."""

    def __init__(
        self, head: tuple[str, ...], options: frozenset[str], words: tuple[str, ...]
    ) -> None:
        self.head = head
        self.options = options
        self.words = words


def option_form(words: Sequence[str]) -> OptionForm | None:
    """`words` (a simple command, quotes removed) as a head, option atoms and other words."""
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    rest = list(words[1:])
    head = [program]
    if program in SUBCOMMAND_PROGRAMS:
        while rest and rest[0].startswith("-") and rest[0] != "--":
            valued = program == "git" and rest[0] in GIT_VALUED_GLOBALS
            rest = rest[2:] if valued else rest[1:]
        if rest:
            head.append(rest.pop(0))
    aliases = OPTION_ALIASES.get(" ".join(head), {})
    options: set[str] = set()
    others: list[str] = []
    only_words = False
    for word in rest:
        if only_words or word == "-" or not word.startswith("-") or len(word) < 2:
            others.append(word)
        elif word == "--":
            only_words = True
        else:
            options |= option_atoms(program, word, aliases)
    return OptionForm(tuple(head), frozenset(options), tuple(others))


def is_option(word: str) -> bool:
    """Whether `option_form` reads `word` (before any `--`) as options rather than a word."""
    return word != "-" and word.startswith("-") and len(word) >= 2 and word != "--"


def option_atoms(program: str, word: str, aliases: Mapping[str, tuple[str, ...]]) -> set[str]:
    """The meanings one option word of `program` stands for (`-rf`: `-r`, `-f`)."""
    if word.startswith("--"):
        return _long_atoms(word.partition("=")[0], aliases)
    if program in WORD_OPTIONS:
        return {word}
    return {
        meaning for letter in word[1:] for meaning in aliases.get("-" + letter, ("-" + letter,))
    }


def _long_atoms(name: str, aliases: Mapping[str, tuple[str, ...]]) -> set[str]:
    found = set(aliases.get(name, (name,)))
    if len(name) > 3:
        # getopt takes any unambiguous prefix (`--recur`); every long option it may
        # abbreviate counts, the safe side for a deny rule.
        for option, meanings in aliases.items():
            if option.startswith(name) and option.startswith("--"):
                found.update(meanings)
    return found


class OptionRule(Slotted):
    """A deny or ask rule's command pattern in option-set form."""

    __slots__ = ("head", "options", "words")
    head: Final[tuple[str, ...]]
    options: Final[frozenset[str]]
    words: Final[StarPattern]
    """The rule's other words as a pattern over the command's other words."""

    def __init__(self, head: tuple[str, ...], options: frozenset[str], words: StarPattern) -> None:
        self.head = head
        self.options = options
        self.words = words

    def matches(self, form: OptionForm) -> bool:
        return (
            form.head == self.head
            and self.options <= form.options
            and self.words.fullmatch(" ".join(form.words))
        )
