"""What a file check is about: a literal path, or a pattern (`GlobPath`) when a word holds
parts known only at run time; and a literal path as a decision sees it (`Located`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tether.permissions.paths import Tokens


@dataclass(frozen=True)
class GlobPath:
    """A path known only as a pattern (`src/*.py`, `$HOME/.ssh/id_rsa`)."""

    word: str
    """As the user wrote it, for messages."""
    tokens: Tokens
    """The absolute path as glob tokens (paths.py), `..` folded."""
    prefix: Path | None
    """A directory the pattern cannot leave, as written (`..` not folded, resolved when
    judged), or None when it could be anywhere."""
    rest: Tokens = ()
    """The pattern below `prefix` (or `listed_from`), as tokens."""
    listed_from: Path | None = None
    """The pattern's leading literal directories, as written, where what it matches on disk
    is looked for (glob_disk.py), also when it may climb out of them (`d/.x?/y`)."""

    def __str__(self) -> str:
        """The word as written: what a reason that names the pattern shows (a Path shows
        its path the same way)."""
        return self.word


@dataclass(frozen=True)
class Located:
    """A literal path as a decision sees it."""

    written: Path
    """As written, `..` folded (what a rule naming it means)."""
    real: Path | None
    """What the kernel opens; None when that is not known."""
    forms: tuple[Path, ...]
    """Every path rules are matched against: as written, resolved, and what a process
    directory's path may stand for."""
    unknown: str = ""
    """Why `real` is not known."""

    def shown(self, target: Path) -> str:
        """For messages: as written, and where it leads when a symlink takes it elsewhere."""
        if self.real is None or self.real == self.written:
            return self.written.as_posix()
        return f"{target.as_posix()} (that is {self.real.as_posix()})"


Target = Path | GlobPath


CONTENTS_PROBE = "\x00"
"""A name no rule spells out: a rule matching `dir/<probe>` covers every file in `dir`, so
reading or writing `dir` itself (a listing, a search, `rm -r`) is covered too."""


def with_contents(paths: tuple[Path, ...]) -> tuple[Path, ...]:
    """`paths`, and each with the probe below it (`CONTENTS_PROBE`)."""
    return (*paths, *(p / CONTENTS_PROBE for p in paths))
