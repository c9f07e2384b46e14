"""Which files a command reads and writes, and a shell word as a path or a path pattern."""

from __future__ import annotations

from pathlib import Path

from tether.permissions.access import GlobPath, Target
from tether.permissions.arguments import split_arguments
from tether.permissions.commands import CommandSpec
from tether.permissions.paths import ANY, ONE, ONE_NODOT, STAR, STAR_NODOT, Token, normalize
from tether.permissions.shell_words import DYN, HOME, is_literal, readable
from tether.permissions.shell_words import ONE as ONE_MARK
from tether.permissions.shell_words import STAR as STAR_MARK


def path_target(base: Path, rest: str, word: str) -> Target:
    """A path below `base`, or the glob it stands for when it holds unknown parts."""
    if is_literal(rest):
        return normalize(base / rest)
    parts = list(base.parts[1:])
    prefix: list[str] | None = list(parts)
    pattern = False
    for segment in rest.split("/"):
        if segment in ("", "."):
            continue
        if segment == ".." and not pattern:
            if parts:
                parts.pop()
            prefix = list(parts)
            continue
        unknown = not is_literal(segment)
        if segment == ".." or DYN in segment or (unknown and segment.startswith(".")):
            prefix = None  # may climb out of anything
        pattern = pattern or unknown
        parts.append(segment)
        if not pattern and prefix is not None:
            prefix = list(parts)
    tokens = path_tokens("/" + "/".join(parts))
    return GlobPath(readable(word), tokens, Path("/", *prefix) if prefix is not None else None)


def path_tokens(path: str) -> tuple[Token, ...]:
    out: list[Token] = []
    at_start = True
    for c in path:
        if c == DYN:
            out.append(ANY)
        elif c == STAR_MARK:
            out.append(STAR_NODOT if at_start else STAR)
        elif c == ONE_MARK:
            out.append(ONE_NODOT if at_start else ONE)
        else:
            out.append("~" if c == HOME else c)
        at_start = c == "/"
    return tuple(out)


def file_arguments(argv: tuple[str, ...], spec: CommandSpec) -> tuple[list[str], list[str], bool]:
    """Files a command reads and writes, and whether it reads whole directories."""
    args = split_arguments(argv[1:], spec)
    reads = args.values(spec.read_valued)
    writes = args.values(spec.write_valued)
    files = list(args.positionals)
    role = spec.files
    recursive = "always" in spec.recursive or args.has(spec.recursive)
    if role in ("pattern_read", "sed") and not args.has(spec.pattern_options) and files:
        files = files[1:]
    if role == "pattern_read" and not files and recursive:
        files = ["."]
    if not files and spec.lists_cwd:
        files = ["."]
    if role in ("read", "pattern_read"):
        reads += files
    elif role == "write":
        writes += files
    elif role == "move":
        reads += files if args.has(spec.write_valued) else files[:-1]
        writes += files
    elif role == "copy":
        if args.has(spec.write_valued):
            reads += files
        else:
            reads += files[:-1]
            writes += files[-1:]
    elif role == "dd":
        reads += [f[3:] for f in files if f.startswith("if=")]
        writes += [f[3:] for f in files if f.startswith("of=")]
    elif role == "sed":
        edits = any(
            name in ("-i", "--in-place") or name.startswith("--in-place")
            for name, _ in args.options
        )
        reads += files
        if edits:
            writes += files
    return reads, writes, recursive
