"""`go generate`'s commands: the `//go:generate CMD` lines of the Go files of the packages it is
given (a directory, `DIR/...` and every package below it but `testdata`, `vendor` and
directories starting with `.` or `_`, or the files named; `.` when none), read as text judged as
bash in the file's directory, as make's recipes are, with go generate's own variables
(`$GOFILE`, `$GOPACKAGE`, `$GOOS`...) given. What is not read is code not read: a `-command`
alias, a package named by import path, more files than tether reads."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from tether.permissions.shell_words import is_literal

Reading = tuple[str | None, tuple[str, ...]]

_LINE = re.compile(rb"^//go:generate[ \t]+(.*?)\r?$", re.MULTILINE)
_VALUED = frozenset({"-run", "-skip", "-tags", "-C", "-mod", "-modfile", "-overlay", "-p"})
_MAX_FILES = 2000
_MAX_BYTES = 4 << 20


def go_global(args: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """go's global options before its subcommand, as go reads them for every subcommand:
    the directories `-C DIR`, `-C=DIR`, `--C DIR`, `--C=DIR` name (go changes to it before
    anything else), and the words from the subcommand on. Every such option is taken, not
    only the first go honours: each may be where the command runs."""
    places: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word in ("-C", "--C"):
            places.append(args[i + 1] if i + 1 < len(args) else "")
            i += 2
        elif word.startswith(("-C=", "--C=")):
            places.append(word.partition("=")[2])
            i += 1
        else:
            break
    return tuple(places), args[i:]


def generate_words(argv: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The directories go's `-C` moves to and the packages or files `go generate` is given
    (`.` for none); None for another command or a dry run (`-n`)."""
    places, args = go_global(argv[1:])
    if not args or args[0] != "generate":
        return None
    words: list[str] = []
    skip = False
    for word in args[1:]:
        if skip:
            skip = False
        elif word.startswith("-"):
            if word in ("-n", "--n"):
                return None
            skip = word.lstrip("-") in {v.lstrip("-") for v in _VALUED} and "=" not in word
        else:
            words.append(word)
    return places, tuple(words) or (".",)


def generate_text(real: Path, words: tuple[str, ...]) -> Reading:
    """The commands go generate runs from directory `real` for `words`, and why some are not
    read."""
    files: list[Path] = []
    unread: list[str] = []
    for word in words:
        if not is_literal(word) or not (word.startswith((".", "/")) or word.endswith(".go")):
            unread.append(f"go generate of {word}, a package tether does not read")
            continue
        path = Path(word.removesuffix("/..."))
        path = path if path.is_absolute() else real / path
        if word.endswith(".go"):
            files.append(path)
        elif word.endswith("/..."):
            files += _below(path)
        elif path.is_dir():
            files += sorted(p for p in path.glob("*.go") if p.is_file())
    if len(files) > _MAX_FILES:
        return None, ("go generate reads more Go files than tether reads",)
    commands: list[str] = []
    place = real
    for file in files:
        try:
            data = file.read_bytes()[:_MAX_BYTES]
        except OSError:
            continue
        for match in _LINE.finditer(data):
            line = match.group(1).decode("utf-8", "replace")
            if line.startswith("-command"):
                unread.append("go generate's -command aliases, which tether does not read")
                continue
            if file.parent != place:  # it runs each command in the file's directory
                place = file.parent
                commands.append(f"cd -- {shlex.quote(str(place))} || exit")
            commands.append(_expanded(line, file))
    return "\n".join(commands) or None, tuple(dict.fromkeys(unread))


def _below(top: Path) -> list[Path]:
    found: list[Path] = []
    for directory, names, files in os.walk(top):
        names[:] = [n for n in names if n not in ("testdata", "vendor") and n[:1] not in "._"]
        found += [Path(directory) / f for f in sorted(files) if f.endswith(".go")]
        if len(found) > _MAX_FILES:
            break
    return found


def _expanded(line: str, file: Path) -> str:
    """go generate's variables given their values (as bash would see the words)."""
    values = {"GOFILE": file.name, "GOPACKAGE": "main", "GOOS": "linux", "GOARCH": "amd64"}
    values |= {"GOLINE": "1", "DOLLAR": "\\$", "GOROOT": "/usr/local/go"}
    for name, value in values.items():
        line = line.replace(f"${{{name}}}", value).replace(f"${name}", value)
    return line
