"""The merge strategy a stopped rebase or cherry-pick runs at the user's next `--continue`
outside: `rebase-merge/strategy` and `sequencer/opts`'s `options.strategy` name it, and git
runs `git-merge-<name>` for any but its built-ins, so a name with a `/`, or one that is not
git's, can run a file of the workspace. A strategy a command set to such a name is put back as
it was at the session's first command (removed if there was none), the file as the command
left it kept beside (`*.tether-disabled`). The strategy's options (`strategy_opts`,
`options.strategy-option`) are arguments of a built-in then, and are left.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from tether.sandbox.git_state import read_at, read_state, replace_at
from tether.sandbox.nofollow import open_directory
from tether.sandbox.verified_objects import git
from tether.slotted import Slotted

BUILT_IN = frozenset({"ort", "recursive", "resolve", "octopus", "ours", "subtree"})
"""git's strategies that run no program of their name (`git merge -s`)."""
FILES = (("rebase-merge", "strategy"), ("sequencer", "opts"))
_MAX = 1_000_000


def strategies(git_dir: Path, name: str, data: bytes) -> tuple[str, ...]:
    """The strategies the file `name` (`strategy` or `opts`) with `data` names, as git reads
    them: a one-line file with its trailing blanks dropped, or a config file's keys."""
    if name == "strategy":
        value = data.rstrip().decode("utf-8", "surrogateescape")
        return (value,) if value else ()
    args = ["config", "--file", "-", "-z", "--get-all", "options.strategy"]
    out = git(git_dir, args, data) or b""
    return tuple(v.decode("utf-8", "surrogateescape") for v in out.split(b"\0") if v)


def _read(directory: int, name: str) -> bytes | None:
    return read_at(directory, name, _MAX)


class Strategies(Slotted):
    """A session's view of its repositories' stopped merges' strategies."""

    __slots__ = ("first",)
    first: dict[str, tuple[bytes, tuple[str, ...]]]
    """Per file: its bytes and the strategies it named at the session's first command."""

    def __init__(self, first: dict[str, tuple[bytes, tuple[str, ...]]] | None = None) -> None:
        self.first = {} if first is None else first

    def record(self, git_dirs: Iterable[Path]) -> None:
        for git_dir in git_dirs:
            for state, name in FILES:
                if (data := read_state(git_dir / state, name, _MAX)) is not None:
                    path = os.fspath(git_dir / state / name)
                    self.first[path] = (data, strategies(git_dir, name, data))

    def sweep(self, git_dirs: Iterable[Path]) -> list[str]:
        """Put back the strategies commands set that are not git's; what was done."""
        told: list[str] = []
        for git_dir in git_dirs:
            for state, name in FILES:
                with contextlib.suppress(OSError):
                    if (note := self._undo(git_dir, state, name)) is not None:
                        told.append(note)
        return told

    def _undo(self, git_dir: Path, state: str, name: str) -> str | None:
        directory = open_directory(git_dir / state)
        if directory is None:  # none, or a link: `SequencerTodos` moves that aside
            return None
        try:
            if not _exists(directory, name):
                return None
            path = git_dir / state / name
            first = self.first.get(os.fspath(path))
            data = _read(directory, name)
            if data is not None:
                named = strategies(git_dir, name, data)
                if all(s in BUILT_IN for s in named) or (first and named == first[1]):
                    return None
            else:
                named = ()  # a link or not a file: git would follow it
            if name == "strategy":
                kept = first[0] if first else None
            else:
                kept = _without_strategy(git_dir, data or b"", first[1] if first else ())
            aside = replace_at(directory, name, kept)
            return (
                f"put back the merge strategy of {path} that a command set to "
                f"{', '.join(named) or 'a link'} (git would run it outside the sandbox at the "
                f"next --continue; as the command left it: {path.with_name(aside)})"
            )
        finally:
            os.close(directory)


def _exists(directory: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=directory, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _without_strategy(git_dir: Path, data: bytes, first: tuple[str, ...]) -> bytes | None:
    """`data`, a sequencer's options, with `options.strategy` as in `first` (none: unset),
    written by git; None when git cannot (then the options go: git continues with defaults)."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "opts"
        copy.write_bytes(data)
        file = ["config", "--file", os.fspath(copy)]
        if git(git_dir, [*file, "--unset-all", "options.strategy"], b"") is None:
            return None
        for strategy in first:
            if git(git_dir, [*file, "--add", "options.strategy", strategy], b"") is None:
                return None
        return copy.read_bytes()
