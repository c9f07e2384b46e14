"""The modules mocha's own configuration makes it load, read as its options are: the first
of `.mocharc.yml`, `.mocharc.yaml`, `.mocharc.json`, `.mocharc.jsonc` (comments removed)
in the directory it starts in, and package.json's `mocha` key, give `require`, `import`,
`spec`, `file`, `ui` and `reporter` values; those written as paths (`./x`, `../x`, `/x`)
are code mocha runs, judged as `mocha -r PATH` is (outside the workspace: code not seen;
a denied file: denied). A JavaScript rc file (`.mocharc.js`) is the project's code, as its
tests are: writing one is asked (config_writers.py), so what runs is what the user let be
written. `--config FILE` and `--no-config` leave the discovery out (FILE is judged as a
loaded module itself)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import yaml

_RC_FILES = (".mocharc.yml", ".mocharc.yaml", ".mocharc.json", ".mocharc.jsonc")
_KEYS = ("require", "import", "spec", "file", "ui", "reporter")
_UNREADABLE = "\0unreadable"
_COMMENTS = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)

Reader = Callable[[Path], str | None]


def mocha_rc_loads(directory: Path, args: tuple[str, ...], read: Reader) -> tuple[str, ...]:
    """The paths (absolute) of the modules mocha's configuration in `directory` names, given
    mocha's arguments `args`; a word not literal (`$`) for a configuration it cannot read."""
    if any(a in ("--no-config", "--config") or a.startswith("--config=") for a in args):
        return ()
    found: list[str] = []
    rc = next((directory / n for n in _RC_FILES if read(directory / n) is not None), None)
    if rc is not None:
        found += _values(_parsed(rc, read(rc) or ""))
    package = read(directory / "package.json")
    if package is not None:
        data = _parsed(directory / "package.json", package)
        found += _values(data.get("mocha") if isinstance(data, dict) else None)  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    if _UNREADABLE in found:
        return ("$",)
    return tuple(
        str(directory / value) if not value.startswith("/") else value
        for value in dict.fromkeys(found)
        if value.startswith(("./", "../", "/", "~")) or value in (".", "..")
    )


def _parsed(path: Path, text: str) -> object:
    try:
        if path.suffix in (".yml", ".yaml"):
            return yaml.safe_load(text)
        if path.suffix == ".jsonc":
            text = _COMMENTS.sub(lambda m: m.group() if m.group().startswith('"') else "", text)
        return json.loads(text)
    except (ValueError, yaml.YAMLError):
        return {_KEYS[0]: _UNREADABLE}


def _values(config: object) -> list[str]:
    if not isinstance(config, dict):
        return []
    found: list[str] = []
    for key in _KEYS:
        value = config.get(key)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        values = value if isinstance(value, list) else [value]  # pyright: ignore[reportUnknownVariableType]
        found += [v for v in values if isinstance(v, str)]  # pyright: ignore[reportUnknownVariableType]
    return found
