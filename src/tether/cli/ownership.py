"""Whose a file is, the workspace's or the user's own: by the path it was found at, never by
where it resolves (a link is the repository's choice)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path


@dataclass(frozen=True)
class Ownership:
    """Tells the workspace's files from the user's own, by the path a file was found at.

    A file found through the workspace (at `<workspace>/...`, or in a directory above it up to
    the repository's root) is the workspace's wherever it resolves: a link is the repository's
    choice. It is the user's own only when that path is inside one of the user's own places
    (`~/.claude`, `$TETHER_HOME`, `~/.claude.json`) and the workspace is not below that place:
    with the home directory as the workspace, `~/.claude/settings.json` is found both ways and
    is the user's; a workspace below `~/.claude` (a plugin's clone) or below `$TETHER_HOME` is
    someone else's code like any other. Files found elsewhere (the user's own places, a
    `--settings` file, tether's own) need no trust.
    """

    workspace: Path
    user_home: Path
    tether_home: Path

    def needs_trust(self, path: Path) -> bool:
        """Whether `path`, as found, is the workspace's (see the class's docstring)."""
        found = path.expanduser().absolute()  # `..` is not folded: a link may come before it
        if not any(within(found, root) for root in self._project_roots):
            return False
        return not self._users(found)

    def _users(self, found: Path) -> bool:
        if ".." in found.parts:
            return False
        workspace = forms(self.workspace)
        for place in self._places:
            if any(within(found, form) for form in place) and not any(
                w != form and within(w, form) for w in workspace for form in place
            ):
                return True
        return False

    @cached_property
    def _project_roots(self) -> tuple[Path, ...]:
        """The workspace and the directories above it up to its repository's root (the nearest
        holding `.git`), never the home directory or above it unless it is the workspace."""
        real = real_path(self.workspace)
        home = real_path(self.user_home)
        roots = [*forms(self.workspace)]
        top = next((d for d in (real, *real.parents) if (d / ".git").exists()), real)
        for directory in real.parents:
            if not within(directory, top) or directory == home or directory in home.parents:
                break
            roots.append(directory)
        return tuple(roots)

    @cached_property
    def _places(self) -> tuple[tuple[Path, ...], ...]:
        """Each of the user's own places, in every form it may be found at."""
        return tuple(
            forms(place)
            for place in (
                self.user_home / ".claude",
                self.tether_home,
                self.user_home / ".claude.json",
            )
        )


def links_out(
    workspace: Path, relatives: Iterable[Path], owners: Ownership
) -> list[tuple[Path, str]]:
    """Links that take the workspace's configuration (`relatives`) outside the workspace, with
    where they lead: dangling ones too, as what they lead to may change without the repository
    changing (a command run in the sandbox can fill a link into `/tmp`). Each link once."""
    inside = real_path(workspace)
    found: dict[Path, str] = {}
    for relative in relatives:
        link = _first_link(workspace, relative)
        if link is None or link in found or not owners.needs_trust(link):
            continue
        target = real_path(link)
        if not within(target, inside):
            found[link] = f"{target}" if target.exists() else f"{target} (absent)"
    return list(found.items())


def _first_link(workspace: Path, relative: Path) -> Path | None:
    """The first component of `workspace / relative` that is a symbolic link."""
    path = workspace
    for part in relative.parts:
        path = path / part
        if path.is_symlink():
            return path
        if not path.exists():
            return None
    return None


def forms(path: Path) -> tuple[Path, ...]:
    """A path as given (made absolute), with its directory resolved, and resolved whole."""
    given = path.expanduser().absolute()
    forms = [given, real_path(given.parent) / given.name, real_path(given)]
    return tuple(dict.fromkeys(forms))


def within(path: Path, root: Path) -> bool:
    """Whether `path` is `root` or below it, by its components as written."""
    return path.parts[: len(root.parts)] == root.parts


def real_path(path: Path) -> Path:
    """`path` resolved as far as it can be (a missing file or a loop leaves the rest as is)."""
    try:
        return path.expanduser().resolve()
    except (OSError, RuntimeError):
        return path.absolute()
