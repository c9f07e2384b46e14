"""Layered settings: user, project, local, then an explicit file; lists merge, later scalars win.

Claude Code's files are read as well as tether's own, so a repository set up for it works as is.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from tether import bounded_json
from tether.config.project import project_directories
from tether.config.settings_faults import usable_file
from tether.config.settings_keys import key_notes
from tether.config.trust import remembered_settings
from tether.outside_text import encodable_value
from tether.relocated_files import RelocatedFile
from tether.text_files import UnreadableFile, read_text_file

if TYPE_CHECKING:
    from tether.protocol import ConfigError


def tether_home(env: Mapping[str, str] | None = None) -> Path:
    """Where tether keeps its own files; `TETHER_HOME` moves it (tests set it)."""
    env = os.environ if env is None else env
    configured = env.get("TETHER_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".tether"


def sessions_home(env: Mapping[str, str] | None = None) -> Path:
    """Where session files are kept (in its `projects/<slug>/`): Claude Code's
    `CLAUDE_CONFIG_DIR` when it is set, as Claude Code keeps them there (the Agent SDK's
    session helpers read them there, and it puts a session resumed from a session store
    there); otherwise `tether_home`."""
    env = os.environ if env is None else env
    configured = env.get("CLAUDE_CONFIG_DIR")
    return Path(configured).expanduser() if configured else tether_home(env)


SETTING_SOURCES = ("user", "project", "local")
"""Claude Code's names for the layers of settings files (`--setting-sources`)."""


def settings_files(
    project: Path,
    *,
    home: Path,
    user_home: Path | None = None,
    explicit: Path | None = None,
    admits: Callable[[Path], bool] | None = None,
    start: Path | None = None,
) -> list[Path]:
    """Candidate files, lowest precedence first: the user's, the project's, the local ones,
    then `explicit` (`--settings`). The user's remembered answers for the project
    (`tether.config.trust.remembered_settings`) come after its local files, as part of the
    local layer. With `start` (the directory tether started in, below the project's root): the
    project files of each directory from the root down to it, deeper ones later
    (`tether.config.project`). `admits` leaves out the files of the sources not read
    (`--setting-sources`); the explicit file is always read."""
    user_home = user_home or Path.home()
    directories = project_directories(project, start) if start is not None else [project]
    layers = {
        "user": [user_home / ".claude" / "settings.json", home / "settings.json"],
        "project": [
            *(d / ".claude" / "settings.json" for d in directories),
            *(d / ".tether" / "settings.json" for d in directories),
        ],
        "local": [
            *(d / ".claude" / "settings.local.json" for d in directories),
            *(d / ".tether" / "settings.local.json" for d in directories),
            remembered_settings(home, project),
        ],
    }
    files = [
        path for name in SETTING_SOURCES for path in layers[name] if admits is None or admits(path)
    ]
    if explicit is not None:
        files.append(explicit)
    return files


@dataclass(frozen=True)
class Settings:
    """The merged settings and the files they came from."""

    data: Mapping[str, Any] = field(default_factory=dict[str, Any])
    layers: tuple[tuple[Path, Mapping[str, Any]], ...] = ()
    """Each file's own content, lowest precedence first: for what must know where a value came
    from (permission rules are relative to their settings file; a deny anywhere is final)."""
    notes: tuple[str, ...] = ()
    """Settings paths skipped for the user to hear about (a link to a file not there)."""

    @property
    def model(self) -> str | None:
        value = self.data.get("model")
        return value if isinstance(value, str) and value else None

    @property
    def env(self) -> dict[str, str]:
        """The `env` table: variables applied to tether's own process and its tools; a value
        that is no string is spelt as JSON spells it (`true`, `null`), as Claude Code does."""
        value = self.data.get("env", {})
        if not isinstance(value, dict):
            return {}
        return {
            str(k): v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
            for k, v in cast(dict[str, object], value).items()
        }

    @property
    def context_window(self) -> int | None:
        value = self.data.get("contextWindow")
        return value if isinstance(value, int) and value > 0 else None

    @property
    def max_output_tokens(self) -> int | None:
        value = self.data.get("maxOutputTokens")
        return value if isinstance(value, int) and value > 0 else None

    @property
    def providers(self) -> Mapping[str, Any]:
        value = self.data.get("providers", {})
        return value if isinstance(value, dict) else {}


def load_settings(files: Sequence[Path], *, required: Path | None = None) -> Settings:
    """Read and merge the files that exist. A broken file is an error naming it and the spot;
    `required` (the --settings file) must exist. In any file, that one too, a key of the wrong
    type or out of range is left out with a note naming the file and the key, and the rest of
    the file holds (`tether.config.settings_faults`).

    Anything at a settings path that cannot be read as one (a directory, a FIFO, a file that
    is not UTF-8, too large or unreadable) stops the start with one line: going on without it
    could drop its deny rules, and the user believes they hold. A link to a file that is not
    there (yet) holds nothing: it is skipped, and noted."""
    merged: dict[str, Any] = {}
    layers: list[tuple[Path, Mapping[str, Any]]] = []
    notes: list[str] = []
    for path in files:
        try:
            text = read_text_file(path)
        except UnreadableFile as e:
            if os.path.islink(path) and not os.path.exists(path) and path != required:
                notes.append(f"settings file {e.path} {e.reason}; skipped")
                continue
            raise _config_error(
                f"settings file {e.path} {e.reason}. It may hold deny rules, so tether does "
                "not start without it: fix it or move it away."
            ) from None
        if text is None:
            if path == required:
                raise _config_error(f"settings file not found: {path}")
            continue
        data = _json_object(path, text)
        # As Claude Code keeps the rest of a file around an entry that does not validate
        # (the --settings file too): only what cannot be used is left out, each named.
        data, faults = usable_file(path, data)
        notes.extend(faults)
        notes.extend(key_notes(path, data))
        merged = merge(merged, data)
        layers.append((path, data))
    return Settings(merged, tuple(layers), tuple(notes))


def with_layer(settings: Settings, path: Path, data: Mapping[str, Any]) -> Settings:
    """`settings` with one more layer on top (`--settings '{...}'`, named by `path`), its
    values that cannot be used left out with a warning each, as a file's are."""
    data, faults = usable_file(path, data)
    notes = (*settings.notes, *faults, *key_notes(path, data))
    return Settings(merge(settings.data, data), (*settings.layers, (path, data)), notes)


def relocated(settings: Settings, source: Path, target: Path) -> Settings:
    """`settings` read from the workspace `source`, as if its files were at the same places
    in `target` (a worktree of it): what is relative to a settings file then is to `target`;
    messages still name the file read (`file_name`)."""

    def moved(path: Path) -> Path:
        if not path.is_relative_to(source):
            return path
        place = RelocatedFile(target / path.relative_to(source))
        place.read_from = path
        return place

    layers = tuple((moved(path), data) for path, data in settings.layers)
    return Settings(settings.data, layers, settings.notes)


def parse_settings_json(text: str, label: str) -> dict[str, Any]:
    """A settings object given as JSON text; a `ConfigError` naming `label` when it is not."""
    try:
        data = encodable_value(bounded_json.loads(text))  # "\ud800" spelt in JSON, or argv bytes
    except json.JSONDecodeError as e:
        raise _config_error(f"{label} is not valid JSON: {bounded_json.error_text(e)}") from None
    if not isinstance(data, dict):
        raise _config_error(f"{label} must be a JSON object, not {type(data).__name__}")
    return data  # pyright: ignore[reportUnknownVariableType]


def merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        old = out.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            out[key] = merge(old, value)  # pyright: ignore[reportUnknownArgumentType]
        elif isinstance(old, list) and isinstance(value, list):
            out[key] = [*old, *(v for v in value if v not in old)]
        else:
            out[key] = value
    return out


def _json_object(path: Path, text: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        data = encodable_value(bounded_json.loads(text))  # "\ud800" spelt in JSON
    except bounded_json.NestedTooDeep as e:  # nested deeper than any settings file
        raise _config_error(f"settings file {path} is not usable: it is {e}") from None
    except json.JSONDecodeError as e:
        raise _config_error(
            f"settings file {path} is not valid JSON: {bounded_json.error_text(e)}"
        ) from None
    if not isinstance(data, dict):
        raise _config_error(
            f"settings file {path} must hold a JSON object, not {type(data).__name__}"
        )
    return data  # pyright: ignore[reportUnknownVariableType]


def _config_error(message: str) -> ConfigError:
    # Imported on use: tether.protocol loads pydantic (~100 ms), and the REPL reads
    # `tether_home` before its prompt is drawn.
    from tether.protocol import ConfigError

    return ConfigError(message)
