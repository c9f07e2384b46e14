"""The modules mocha's own configuration makes it load, read as mocha 10 reads it: the first
of `.mocharc.cjs`, `.mocharc.js`, `.mocharc.yaml`, `.mocharc.yml`, `.mocharc.jsonc`,
`.mocharc.json` found in the directory it starts in or the nearest parent holding one
(mocha's find-up), and the `mocha` key of the nearest package.json (or of the one `package`
names). Keys are read under every name mocha's parser accepts (its aliases, `r` for
`require`, and camelCase); `require`, `spec`, `file`, `ui` and `reporter` values are paths
from the directory mocha starts in whether or not written with `./` (mocha tries the file
first: `require: out/p.js` loads ws/out/p.js), judged as `mocha -r PATH` is (outside the
workspace: code not seen; a denied file: denied). `node-option` values and the keys mocha
does not know (it hands node's own flags to node: `loader:`) are node's options. A
JavaScript rc file is code: it is among the loads (inside the workspace, writing one is
asked: config_writers.py). `--config FILE` and `--no-config` leave the discovery out (FILE
is judged as a loaded module itself)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

_RC_FILES = (
    *(".mocharc.cjs", ".mocharc.js", ".mocharc.yaml", ".mocharc.yml"),
    *(".mocharc.jsonc", ".mocharc.json"),
)
"""mocha 10's CONFIG_FILES, in the order it tries them in each directory."""
_CODE_RC = (".cjs", ".js")
_PATH_KEYS = ("require", "spec", "file", "ui", "reporter")
_ALIASES = {
    **dict.fromkeys(("A",), "async-only"),
    **dict.fromkeys(("b",), "bail"),
    **dict.fromkeys(("c", "colors"), "color"),
    **dict.fromkeys(("f",), "fgrep"),
    **dict.fromkeys(("globals",), "global"),
    **dict.fromkeys(("g",), "grep"),
    **dict.fromkeys(("exclude",), "ignore"),
    **dict.fromkeys(("i",), "invert"),
    **dict.fromkeys(("j",), "jobs"),
    **dict.fromkeys(("C",), "no-colors"),
    **dict.fromkeys(("n",), "node-option"),
    **dict.fromkeys(("p",), "parallel"),
    **dict.fromkeys(("R",), "reporter"),
    **dict.fromkeys(("reporter-options", "O"), "reporter-option"),
    **dict.fromkeys(("r",), "require"),
    **dict.fromkeys(("s",), "slow"),
    **dict.fromkeys(("S",), "sort"),
    **dict.fromkeys(("t", "timeouts"), "timeout"),
    **dict.fromkeys(("u",), "ui"),
    **dict.fromkeys(("w",), "watch"),
}
"""mocha 10's run-option-metadata aliases, each to its option's own name."""
_MOCHA_KEYS = frozenset(
    (
        *("extension", "file", "global", "ignore", "node-option", "reporter-option", "require"),
        *("spec", "watch-files", "watch-ignore", "allow-uncaught", "async-only", "bail"),
        *("check-leaks", "color", "delay", "diff", "dry-run", "exit", "fail-zero"),
        *("pass-on-failing-test-suite", "forbid-only", "forbid-pending", "full-trace"),
        *("inline-diffs", "invert", "list-interfaces", "list-reporters", "no-colors"),
        *("parallel", "recursive", "sort", "watch", "retries", "jobs", "config", "fgrep"),
        *("grep", "package", "reporter", "ui", "slow", "timeout", "no-config", "no-package"),
        *("no-opts", "opts", "colors", "$0", "_"),
    )
)
"""mocha 10's own options (run-option-metadata types); any other key it hands to node when
node knows it as a flag."""
_UNREADABLE = "\0unreadable"
_COMMENTS = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")

Reader = Callable[[Path], str | None]


@dataclass(frozen=True)
class MochaConfig:
    """What mocha's configuration makes it load: `paths` (absolute, or `$` for a
    configuration it cannot read) and `node_options` (`--require=X`, as node reads them)."""

    paths: tuple[str, ...] = ()
    node_options: tuple[str, ...] = ()


def mocha_rc_loads(directory: Path, args: tuple[str, ...], read: Reader) -> MochaConfig:
    """What mocha's configuration for a run from `directory` loads, given its arguments."""
    if any(a in ("--no-config", "--config") or a.startswith("--config=") for a in args):
        return MochaConfig()
    configs: list[object] = []
    code: list[str] = []
    rc = _found_up(directory, _RC_FILES, read)
    if rc is not None and rc.suffix in _CODE_RC:
        code.append(str(rc))
    elif rc is not None:
        configs.append(_parsed(rc, read(rc) or ""))
    named = next((_values(c).get("package") for c in configs if _values(c).get("package")), None)
    package = directory / named[0] if named else _found_up(directory, ("package.json",), read)
    if named:
        code.append(str(package))
    text = read(package) if package is not None else None
    if package is not None and text is not None:
        data = _parsed(package, text)
        configs.append(data.get("mocha") if isinstance(data, dict) else None)  # pyright: ignore[reportUnknownMemberType]
    paths: list[str] = list(code)
    node: list[str] = []
    for config in configs:
        values = _values(config)
        if any(_UNREADABLE in found for found in values.values()):
            return MochaConfig(paths=("$",))
        for key, found in values.items():
            if key in _PATH_KEYS:
                paths += [v if v.startswith(("/", "~")) else str(directory / v) for v in found]
            elif key == "node-option":
                node += ["--" + v.removeprefix("--") for v in found]
            elif key not in _MOCHA_KEYS:
                node += [f"--{key.removeprefix('v8-')}={v}" for v in found]
    return MochaConfig(tuple(dict.fromkeys(paths)), tuple(node))


def _found_up(directory: Path, names: tuple[str, ...], read: Reader) -> Path | None:
    """The first of `names` in `directory` or the nearest parent holding one (find-up)."""
    for place in (directory, *directory.parents):
        found = next((place / n for n in names if read(place / n) is not None), None)
        if found is not None:
            return found
    return None


def _parsed(path: Path, text: str) -> object:
    try:
        if path.suffix in (".yml", ".yaml"):
            return yaml.safe_load(text)
        if path.suffix == ".jsonc":
            text = _COMMENTS.sub(lambda m: m.group() if m.group().startswith('"') else "", text)
        return json.loads(text)
    except (ValueError, yaml.YAMLError):
        return {"require": _UNREADABLE}


def _values(config: object) -> dict[str, list[str]]:
    """Each option's values under its own name (aliases and camelCase read as mocha's parser
    reads them); a value not a word nor a list of words is the option's text all the same."""
    if not isinstance(config, dict):
        return {}
    found: dict[str, list[str]] = {}
    for key, value in config.items():  # pyright: ignore[reportUnknownVariableType]
        name = _CAMEL.sub(lambda m: "-" + m.group(1).lower(), str(key))  # pyright: ignore[reportUnknownArgumentType]
        name = _ALIASES.get(str(key), _ALIASES.get(name, name))  # pyright: ignore[reportUnknownArgumentType]
        values = value if isinstance(value, list) else [value]  # pyright: ignore[reportUnknownVariableType]
        words = [v if isinstance(v, str) else json.dumps(v) for v in values]  # pyright: ignore[reportUnknownVariableType]
        found.setdefault(name, []).extend(words)
    return found
