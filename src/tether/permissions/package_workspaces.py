"""The packages of a JavaScript workspace a manager's selector names, so that `npm -w X run
S`, `pnpm --filter X run S`, `yarn workspace X S`, `bun --filter X run S` and the runs of
every package (`npm --workspaces`, `pnpm -r`, `yarn workspaces foreach`) are judged by the
scripts they run. The workspace is the nearest directory up that declares one: its
package.json's `workspaces` (a list, or yarn's `{"packages": [...]}`) or pnpm's
`pnpm-workspace.yaml` `packages`, globs of package directories (`!` ones left out). A
selector is a package's `name` or its directory; anything else (a glob, pnpm's `...`
dependency forms, `[since]`, `{dir}`, `!x`) is not known here, and neither is a workspace
that cannot be read: the caller asks. With no workspace declared, a selector naming a
directory that holds a package.json is that package."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import yaml

EVERY = "*"
"""The selector of every package (`--workspaces`, `-r`, `foreach`)."""
_MAX_UP = 64
_MAX_PACKAGES = 256
"""Package directories one workspace may have before what it holds is not judged."""

Reader = Callable[[Path], str | None]


class Selected:
    """The package directories selected, and why some selector could not be resolved."""

    __slots__ = ("directories", "unknown")

    def __init__(self, directories: tuple[Path, ...], unknown: tuple[str, ...]) -> None:
        self.directories = directories
        self.unknown = unknown


def select_packages(start: Path, selectors: tuple[str, ...], read: Reader) -> Selected:
    """The directories of the packages `selectors` name, in the workspace found from the
    resolved directory `start`; `read` gives a file's text (None: none)."""
    found = _workspace(start, read)
    root, patterns = found if found is not None else (start, [])
    # With no workspace declared, a directory holding a package is judged as that package
    # (the manager refuses to run; its scripts are what it would run were one declared).
    directories = _directories(root, patterns, read) if found is not None else []
    if directories is None:
        return Selected((), ("its workspace's packages are too many, or cannot be listed",))
    # pnpm runs every package a name selects: two packages may share one
    names: dict[str, list[Path]] = {}
    for directory in directories:
        name = _package_name(read(directory / "package.json"))
        if name is not None:
            names.setdefault(name, []).append(directory)
    chosen: list[Path] = []
    unknown: list[str] = []
    for selector in selectors:
        if selector == EVERY:
            chosen += [root, *directories]  # the root's scripts too (pnpm -r may run them)
            continue
        by_path = [
            place.resolve()
            for base in (start, root)
            if (place := base / selector.removeprefix("./")).is_dir()
        ]
        if selector in names:
            chosen += names[selector]
        elif any(p in directories or p == root for p in by_path):
            chosen += [p for p in by_path if p in directories or p == root][:1]
        elif found is None and by_path and read(by_path[0] / "package.json") is not None:
            chosen.append(by_path[0])
        else:
            unknown.append(f"cannot tell which packages {selector!r} selects")
    return Selected(tuple(dict.fromkeys(chosen)), tuple(unknown))


def _workspace(start: Path, read: Reader) -> tuple[Path, list[str]] | None:
    for place in (start, *list(start.parents)[:_MAX_UP]):
        patterns = _declared(place, read)
        if patterns is not None:
            return place, patterns
    return None


def _declared(place: Path, read: Reader) -> list[str] | None:
    """The package globs `place` declares, or None when it declares no workspace."""
    declared: list[object] | None = None
    pnpm = read(place / "pnpm-workspace.yaml")
    if pnpm is not None:
        try:
            data: object = yaml.safe_load(pnpm)
        except yaml.YAMLError:
            return ["\0"]  # declared, not readable: matches nothing known
        packages = data.get("packages") if isinstance(data, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        declared = list(packages) if isinstance(packages, list) else []  # pyright: ignore[reportUnknownArgumentType]
    text = read(place / "package.json")
    if declared is None and text is not None:
        try:
            data = json.loads(text)
        except ValueError:
            return None
        spaces = data.get("workspaces") if isinstance(data, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(spaces, dict):
            spaces = spaces.get("packages")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(spaces, list):
            declared = list(spaces)  # pyright: ignore[reportUnknownArgumentType]
    if declared is None:
        return None
    return [p for p in declared if isinstance(p, str)]


def _directories(root: Path, patterns: list[str], read: Reader) -> list[Path] | None:
    included: dict[Path, None] = {}
    excluded: set[Path] = set()
    for pattern in patterns:
        negated = pattern.startswith("!")
        glob = pattern.removeprefix("!").removeprefix("./").rstrip("/")
        if not glob or glob.startswith("/") or ".." in glob.split("/") or "\0" in glob:
            return None
        matched: list[Path] = []
        for path in root.glob(glob):
            if "node_modules" in path.relative_to(root).parts:
                continue
            matched.append(path.resolve())
            if len(matched) + len(included) > _MAX_PACKAGES:
                return None
        if negated:
            excluded.update(matched)
        else:
            included.update(dict.fromkeys(p for p in matched if p.is_dir()))
    return [
        p
        for p in included
        if p not in excluded and p != root.resolve() and read(p / "package.json") is not None
    ]


def _package_name(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    name = data.get("name") if isinstance(data, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return name if isinstance(name, str) else None
