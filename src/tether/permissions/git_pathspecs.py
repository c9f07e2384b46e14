"""git's pathspecs as the path patterns they are, and git's staging commands as the recursive
reads they are.

A pathspec is a pattern, not a path (gitglossary): `'*.env'` matches `.env` at any depth
(its `*` crosses `/` and matches a leading dot), a directory matches everything below it,
and magic changes the rest: `:(top)` or `:/` (from the repository's top), `:(literal)`,
`:(icase)`, `:(glob)`, `:(attr:...)`, `:(exclude)`, `:!`, `:^`. Each is turned into a word
with shell_words markers, a wildcard as text not known (wider than git: it may hold `/`).

Staging copies the contents of every file a pathspec covers into the object store, where
`git show :.env`, `git cat-file` and a push read them: `git add`, `commit -a` and `commit
PATHS`, `stash` (its pathspecs, or the whole tree), `update-index`, `hash-object`. Their
files are reads, recursive: a deny rule that could match a file below is asked or denied as
for any other reader. Which files git ignores is not known here (it would take reading
`.gitignore` files), so ignored files count too.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from tether.permissions.arguments import split_arguments
from tether.permissions.command_spec import CommandSpec
from tether.permissions.command_spec import names as _s
from tether.permissions.shell_words import DYN, is_literal

_WILDCARDS = "*?["
_ALL_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class Pathspec:
    """What one pathspec word names: `word` (shell_words markers) below git's directory, or
    below the repository's top (`top`); None for an exclusion."""

    word: str
    top: bool = False


def pathspec(word: str) -> Pathspec | None:
    """The pattern `word` stands for as a pathspec."""
    if not is_literal(word):
        return Pathspec(word)
    magic, rest = _magic(word)
    if magic is None:
        return Pathspec(DYN)  # a form of magic not known: any path
    if "exclude" in magic:
        return None
    literal = "literal" in magic
    out: list[str] = []
    i = 0
    while i < len(rest):
        c = rest[i]
        if not literal and c in _WILDCARDS:
            out.append(DYN)
            if c == "[" and (end := _class_end(rest, i)) > 0:
                i = end
        elif "icase" in magic and c.lower() in _ALL_LETTERS:
            out.append(DYN)
        else:
            out.append(c)
        i += 1
    # Git folds `..` in a pathspec by its text, not through the file system as the kernel
    # would: `:(literal)*/..` is the whole tree, whatever `*` is on disk.
    text = posixpath.normpath("".join(out).rstrip("/") or ".")
    return Pathspec(text, top="top" in magic)


def pathspec_words(words: list[str]) -> list[str]:
    """Each pathspec as a word below git's directory (one from the repository's top as one
    below any directory), exclusions left out."""
    found: list[str] = []
    for word in words:
        spec = pathspec(word)
        if spec is None:
            continue
        if not spec.top:
            found.append(spec.word)
        else:
            found.append(DYN if spec.word == "." else DYN + "/" + spec.word)
    return found


def _class_end(text: str, start: int) -> int:
    """Where the bracket expression opened at `start` closes (fnmatch), or -1."""
    j = start + 1
    if j < len(text) and text[j] in "!^":
        j += 1
    if j < len(text) and text[j] == "]":
        j += 1
    return text.find("]", j)


def _magic(word: str) -> tuple[frozenset[str] | None, str]:
    """The magic words a pathspec starts with (None when one is not known), and the pattern
    after them."""
    if not word.startswith(":"):
        return frozenset(), word
    if word.startswith(":("):
        end = word.find(")")
        if end < 0:
            return None, word
        names = {part.strip().partition(":")[0] for part in word[2:end].split(",")}
        known = {"top", "literal", "icase", "glob", "attr", "exclude"}
        return (frozenset(names) if names <= known else None), word[end + 1 :]
    short = {"/": "top", "!": "exclude", "^": "exclude"}
    i = 1
    found: set[str] = set()
    while i < len(word) and word[i] in short:
        found.add(short[word[i]])
        i += 1
    if i < len(word) and word[i] == ":":
        i += 1
    return frozenset(found), word[i:]


@dataclass
class Staged:
    """The files a staging command copies into the object store."""

    words: list[str] = field(default_factory=list[str])
    """Pathspec words below git's directory."""
    top: list[str] = field(default_factory=list[str])
    """Pathspec words below the repository's top ("." for the whole tree)."""


_STAGE_ALL = {
    "add": _s("-A", "--all", "-u", "--update", "--renormalize"),
    "commit": _s("-a", "--all"),
}
_VALUED = {
    "add": _s("--chmod"),
    "commit": _s("-m", "--message", "-C", "-c", "--author", "--date", "--fixup", "--squash")
    | _s("-F", "--file", "-t", "--template", "--cleanup", "-S", "--gpg-sign", "--trailer"),
    "stash": _s("-m", "--message"),
    "update-index": _s("--cacheinfo", "--chmod"),
    "hash-object": _s("-t", "--path"),
}
_FROM_INPUT = _s("--stdin", "--stdin-paths", "--index-info")
"""Options that take the paths from the input: any file."""
_STASH_PUSH = _s("push", "save")


def staged(subcommand: str, args: tuple[str, ...]) -> Staged | None:
    """What `git SUBCOMMAND ARGS` stages, or None when it stages nothing."""
    valued = _VALUED.get(subcommand)
    if valued is None:
        return None
    parsed = split_arguments(args, CommandSpec("none", valued=valued))
    positionals = list(parsed.positionals)
    if subcommand == "stash":
        if positionals and positionals[0] not in _STASH_PUSH:
            return None  # list, show, pop, apply, drop...
        positionals = positionals[1:] if positionals else []
        if "save" in parsed.positionals[:1]:
            positionals = []  # `stash save MESSAGE`
    found = Staged()
    if parsed.has(_FROM_INPUT):
        found.words.append(DYN)
    for word in positionals:
        spec = pathspec(word)
        if spec is not None:
            (found.top if spec.top else found.words).append(spec.word)
    if positionals and not found.words and not found.top:
        found.words.append(".")  # only exclusions: everything else below here
    everything = subcommand == "stash" or parsed.has(_STAGE_ALL.get(subcommand, frozenset()))
    if everything and not found.words and not found.top:
        found.top.append(".")
    return found
