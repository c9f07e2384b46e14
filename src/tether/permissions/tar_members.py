"""`tar -xzf dist.tgz -C build`: the paths an archive on disk holds, read from its table of
contents (Python's tarfile) before the command runs, so that its extraction writes those
paths, each judged as any write is, rather than any path below `build/` (which may be a
nested `.git/hooks/` or `.claude/settings.json`: asked in every mode).

Only a plain extraction: the options below (none that renames members, runs a program, reads
another archive or follows links), one local archive, at most one `-C`, no member operands.
Only an archive whose members are plain files and directories with plain relative names
(a symlink member leads its later members anywhere; `..` climbs out), at most `MAX_MEMBERS`
of them, in a file of at most `MAX_ARCHIVE` bytes (`MAX_READ` decompressed). Anything else
stays a write of any path below the directory (bash_files). The command must not write the
archive (the judge keeps it among the files it reads before it runs: `code_files`)."""

from __future__ import annotations

import lzma
import tarfile
import zlib
from pathlib import Path

from tether.permissions.shell_words import MARKERS, is_literal, program_name

_FLAGS = frozenset("xzjJvpomk")
"""Short options of a plain extraction (`-x`, compression, verbosity, ownership, times,
keeping old files); `f` and `C` take the archive and the directory."""
_LONG = frozenset(
    {"--extract", "--get", "--gzip", "--gunzip", "--ungzip", "--bzip2", "--xz", "--verbose"}
    | {"--preserve-permissions", "--same-permissions", "--no-same-permissions"}
    | {"--no-same-owner", "--touch", "--keep-old-files", "--skip-old-files", "--overwrite"}
)
_VALUED_LONG = {"--file": "f", "--directory": "C"}
MAX_MEMBERS = 500
MAX_ARCHIVE = 16 * 1024 * 1024
MAX_READ = 64 * 1024 * 1024
"""The most bytes of the (decompressed) archive read to list it: past them, not known (a
small compressed file may stand for a huge archive)."""


class Extraction:
    """A plain extraction's archive word and the directory word it extracts into."""

    __slots__ = ("archive", "directory")

    def __init__(self, archive: str, directory: str) -> None:
        self.archive = archive
        self.directory = directory


def plain_extraction(argv: tuple[str, ...]) -> Extraction | None:
    """`tar -x -f ARCHIVE [-C DIR]` and its spellings (`tar xzf A`, `--file=A`), or None."""
    if not argv or program_name(argv[0]) not in ("tar", "gtar"):
        return None
    values: dict[str, list[str]] = {"f": [], "C": []}
    pending: list[str] = []
    extract = False
    for at, arg in enumerate(argv[1:]):
        if pending:
            values[pending.pop(0)].append(arg)
            continue
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if name in _VALUED_LONG:
                if eq:
                    values[_VALUED_LONG[name]].append(value)
                else:
                    pending.append(_VALUED_LONG[name])
            elif name in _LONG and not eq:
                extract = extract or name in ("--extract", "--get")
            else:
                return None
            continue
        letters = arg[1:] if arg.startswith("-") else arg if at == 0 else None
        if not letters:
            return None  # a member operand, `-`, or an empty word
        for i, letter in enumerate(letters):
            if letter in "fC":
                if letters[i + 1 :] and arg.startswith("-"):
                    values[letter].append(letters[i + 1 :])
                    break
                pending.append(letter)
            elif letter in _FLAGS:
                extract = extract or letter == "x"
            else:
                return None
    if pending or not extract or len(values["f"]) != 1 or len(values["C"]) > 1:
        return None
    archive, directory = values["f"][0], (values["C"] or [""])[0]
    if not is_literal(archive) or not is_literal(directory) or archive == "-":
        return None
    if ":" in archive or any(c in MARKERS for c in archive + directory):
        return None  # `HOST:FILE` is a remote archive
    return Extraction(archive, directory)


def member_names(archive: Path) -> list[str] | None:
    """The names `archive` holds, each a plain file or directory with a plain relative name;
    None when it is not such an archive, cannot be read, or is too large."""
    try:
        if not archive.is_file() or archive.stat().st_size > MAX_ARCHIVE:
            return None
        names: list[str] = []
        with tarfile.open(archive, "r:*") as tar:
            for member in tar:
                if len(names) >= MAX_MEMBERS or not (member.isfile() or member.isdir()):
                    return None
                if not _plain_name(member.name) or member.offset_data + member.size > MAX_READ:
                    return None
                names.append(member.name)
        return names
    except (OSError, tarfile.TarError, EOFError, ValueError, zlib.error, lzma.LZMAError):
        return None


def _plain_name(name: str) -> bool:
    parts = name.split("/")
    return (
        bool(name)
        and not name.startswith("/")
        and ".." not in parts
        and all(c.isprintable() and c != "\\" for c in name)
    )


def below(directory: str, name: str) -> str:
    """The word for member `name` extracted into `directory` ("" for where tar runs)."""
    return f"{directory.rstrip('/')}/{name}" if directory else name
