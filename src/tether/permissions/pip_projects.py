"""The local code a Python project's own files name, which pip and uv build with it: the
dependencies of a `pyproject.toml` (`[project]` dependencies, optional ones and dependency
groups, `[build-system]` requires) given as paths or `file:` URLs (`opkg @ file:///x`), uv's
`[tool.uv.sources]` (`path = "/x"`, `file:` URLs and git URLs) and the indexes and directories
uv takes packages from (`find-links`, `index-url`, `[[tool.uv.index]]`, the same under
`[pip]` in `uv.toml`): each as the path it names, from the project's directory. A file that
cannot be read as TOML names nothing here (pip and uv refuse it)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, cast

from tether.permissions.pip_sources import local_source

_MAX_TEXT = 256 * 1024
_INDEX_KEYS = ("find-links", "index-url", "extra-index-url", "url")


def project_sources(project: Path) -> list[str]:
    """The local code `project/pyproject.toml` names (its dependencies and uv's settings)."""
    data = _toml(project / "pyproject.toml")
    own = _table(data, "project")
    requirements = [*_strings(own.get("dependencies"))]
    for extra in _table(own, "optional-dependencies").values():
        requirements += _strings(extra)
    for group in _table(data, "dependency-groups").values():
        requirements += _strings(group)
    requirements += _strings(_table(data, "build-system").get("requires"))
    found = [local_source(r) for r in requirements]
    places = [_joined(project, f) for f in found if f is not None]
    return [*places, *uv_settings(project, _table(_table(data, "tool"), "uv"))]


def uv_config_sources(directory: Path, top: Path) -> list[str]:
    """The local code uv's configuration names for a command run in `directory`: each
    `uv.toml` and pyproject `[tool.uv]` from there up to `top` (uv reads the nearest; any
    of them here)."""
    found: list[str] = []
    for place in (directory, *directory.parents):
        found += uv_settings(place, _toml(place / "uv.toml"))
        found += uv_settings(place, _table(_table(_toml(place / "pyproject.toml"), "tool"), "uv"))
        if place == top or not place.is_relative_to(top):
            break
    return found


def uv_settings(base: Path, uv: dict[str, Any]) -> list[str]:
    """The local places uv settings name: sources, indexes, find-links (also under `[pip]`)."""
    values: list[str] = []
    for section in (uv, _table(uv, "pip")):
        for key in _INDEX_KEYS:
            values += _strings(section.get(key))
        for index in _list(section.get("index")):
            values += _strings(_dict(index).get("url"))
    for source in _table(uv, "sources").values():
        for entry in _list(source) if isinstance(source, list) else [source]:
            table = _dict(entry)
            values += [
                f"file:{p}" if not p.startswith("file:") else p for p in _strings(table.get("path"))
            ]
            values += _strings(table.get("url")) + _strings(table.get("git"))
    found = [local_source(v) for v in values]
    return [_joined(base, f) for f in found if f is not None]


def _joined(base: Path, place: str) -> str:
    return place if place.startswith(("/", "~")) else (base / place).as_posix()


def _toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            text = file.read(_MAX_TEXT + 1)
        if len(text) > _MAX_TEXT:
            return {}
        return tomllib.loads(text.decode())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    return _dict(data.get(key))


def _dict(value: object) -> dict[str, Any]:
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def _list(value: object) -> list[object]:
    return cast(list[object], value) if isinstance(value, list) else []


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in _list(value) if isinstance(v, str)]
