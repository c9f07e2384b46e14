"""The files `cp`, `mv`, `ln` and `install` read and write, in every operand form coreutils
takes: `-t DIR`/`--target-directory=DIR` (any abbreviation: `--targ=DIR`), `-T` (the last
operand is the file itself), several sources into a directory, and `ln`'s single operand (a
link in the current directory named after its source). Each source is read; what is written
is the file each source lands as. A symbolic link's relative target is named from the link's
directory, as the kernel will resolve it (`ln -s ../secrets/key src/`): read, and written
when the link is (the source as named from here is read too, the safe side)."""

from __future__ import annotations

from dataclasses import dataclass

from tether.permissions.shell_words import HOME


@dataclass(frozen=True)
class Transfer:
    sources: tuple[str, ...]
    written: tuple[str, ...]
    """The files the sources land as (for a last operand that may be a file or a directory,
    both)."""
    targets: tuple[str, ...]
    """What the written files lead to: the sources, or for symbolic links each relative
    source as named from the link's directory."""


def transfer(
    files: list[str], directories: list[str], *, no_directory: bool, symbolic: bool
) -> Transfer:
    """`files` are the positionals, `directories` the `-t` values; `no_directory` is `-T`."""
    pairs: list[tuple[str, str]] = []
    ambiguous = False
    if directories:
        sources = files
        pairs = [(s, _below(d, _name(s))) for d in directories for s in sources]
    elif len(files) == 1:
        sources = files
        pairs = [(files[0], _name(files[0]))]
    elif files:
        sources, last = files[:-1], files[-1]
        directory = len(files) > 2 or last.endswith("/") or _name(last) in (".", "..")
        ambiguous = not (directory or no_directory)
        pairs = [] if directory else [(s, last) for s in sources]
        if not no_directory:
            pairs += [(s, _below(last, _name(s))) for s in sources]
    else:
        sources = []
    targets = list(sources)
    if symbolic:
        # `ln -s ../x NAME` when NAME may be a new file, not a directory: the `..` below it
        # folded as written, or a missing NAME would make every such link unknown.
        targets = []
        for source, written in pairs:
            target = _below(_parent(written), source) if _relative(source) else source
            targets.append(_folded(target) if ambiguous and written != files[1] else target)
    return Transfer(
        tuple(sources),
        tuple(dict.fromkeys(w for _, w in pairs)),
        tuple(dict.fromkeys(targets)),
    )


def _name(word: str) -> str:
    return word.rstrip("/").rpartition("/")[2] or word


def _parent(word: str) -> str:
    return word.rstrip("/").rpartition("/")[0]


def _relative(word: str) -> bool:
    return not word.startswith(("/", HOME))


def _below(base: str, word: str) -> str:
    if not base or not _relative(word):
        return word
    return base.rstrip("/") + "/" + word


def _folded(path: str) -> str:
    kept: list[str] = []
    for part in path.split("/"):
        if part == ".." and kept and kept[-1] not in ("", ".."):
            kept.pop()
        elif part != ".":
            kept.append(part)
    return "/".join(kept) or "."
