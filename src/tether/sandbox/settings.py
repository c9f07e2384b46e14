"""The `sandbox` settings block, read from the merged settings.

tether's own keys are `enabled`, `network`, `writable`, `readable`, `required` and `env`.
Claude Code's block has the same name and `enabled`, so a repository set up for it works as
is; of its other keys, `failIfUnavailable` means `required`, a `network` object (its domain
proxy, which tether does not have) leaves the network cut but its `allowUnixSockets` (paths)
and `allowAllUnixSockets` are honoured, and the rest are ignored.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from tether.protocol import ConfigError
from tether.slotted import Slotted


class SandboxSettings(Slotted):
    """What the user asked of the Bash sandbox."""

    __slots__ = (
        "all_unix_sockets",
        "enabled",
        "env",
        "network",
        "readable",
        "required",
        "unix_sockets",
        "writable",
    )
    enabled: Final[bool | None]
    """True or False when set; None (not set) means on wherever it works."""
    network: Final[bool]
    """Whether sandboxed commands may use the network (loopback included)."""
    writable: Final[tuple[Path, ...]]
    """Paths writable besides the workspace, the scratch directory and the private TMPDIR;
    `~` is expanded, relative paths start at the workspace."""
    readable: Final[tuple[Path, ...]]
    """Places in the home, hidden in the sandbox, shown there read-only (`~/.gitconfig`, a
    toolchain `home_view.HOME_TOOLCHAINS` does not know); absolute or starting with `~`.
    Credential places inside one stay hidden unless named themselves. A workspace's own
    settings need the user's trust to set it (`cli.workspace_review`)."""
    required: Final[bool]
    """Refuse to run Bash at all rather than run it unsandboxed."""
    env: Final[tuple[str, ...]]
    """Environment variables passed to sandboxed commands although their names say they hold
    secrets (`sandbox.env: ["GITHUB_TOKEN"]`); all others of that kind are withheld."""
    unix_sockets: Final[tuple[Path, ...]]
    """Unix sockets sandboxed commands may reach (`sandbox.network.allowUnixSockets`)."""
    all_unix_sockets: Final[bool]
    """No unix socket is blocked (`sandbox.network.allowAllUnixSockets`)."""

    def __init__(
        self,
        enabled: bool | None = None,
        network: bool = False,
        writable: tuple[Path, ...] = (),
        readable: tuple[Path, ...] = (),
        required: bool = False,
        env: tuple[str, ...] = (),
        unix_sockets: tuple[Path, ...] = (),
        all_unix_sockets: bool = False,
    ) -> None:
        self.enabled = enabled
        self.network = network
        self.writable = writable
        self.readable = readable
        self.required = required
        self.env = env
        self.unix_sockets = unix_sockets
        self.all_unix_sockets = all_unix_sockets


def parse_sandbox_settings(data: Mapping[str, Any], *, source: str = "settings") -> SandboxSettings:
    """Read the `sandbox` object of the merged settings `data` (the whole settings, not the
    block). A value of the wrong type is a `ConfigError` naming the key and `source`."""
    block = data.get("sandbox")
    if block is None:
        return SandboxSettings()
    if not isinstance(block, Mapping):
        raise ConfigError(f"{source}: sandbox must be an object, not {_shown(block)}")
    sandbox: Mapping[str, Any] = block
    return SandboxSettings(
        enabled=_optional_bool(sandbox, "enabled", source),
        network=_network(sandbox, source),
        writable=_paths(sandbox, "writable", source),
        readable=_readable(sandbox, source),
        required=bool(_optional_bool(sandbox, "required", source))
        or bool(_optional_bool(sandbox, "failIfUnavailable", source)),
        env=tuple(str(p) for p in _strings(sandbox, "env", source)),
        unix_sockets=_paths(_network_object(sandbox), "allowUnixSockets", source),
        all_unix_sockets=bool(
            _optional_bool(_network_object(sandbox), "allowAllUnixSockets", source)
        ),
    )


def _network_object(block: Mapping[str, Any]) -> Mapping[str, Any]:
    value = block.get("network")
    return value if isinstance(value, Mapping) else {}  # pyright: ignore[reportUnknownVariableType]


def _strings(block: Mapping[str, Any], key: str, source: str) -> tuple[str, ...]:
    value = block.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
        raise ConfigError(f"{source}: sandbox.{key} must be a list of names, not {_shown(value)}")
    items: list[str] = value
    return tuple(items)


def _optional_bool(block: Mapping[str, Any], key: str, source: str) -> bool | None:
    value = block.get(key)
    if value is None or isinstance(value, bool):
        return value
    raise ConfigError(f"{source}: sandbox.{key} must be true or false, not {_shown(value)}")


def _network(block: Mapping[str, Any], source: str) -> bool:
    value = block.get("network")
    if isinstance(value, Mapping):
        # Claude Code's form: domain rules for a proxy. Without that proxy the only safe
        # reading is the default, network off.
        return False
    return bool(_optional_bool(block, "network", source))


def _paths(block: Mapping[str, Any], key: str, source: str) -> tuple[Path, ...]:
    value = block.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
        raise ConfigError(
            f"{source}: sandbox.{key} must be a list of paths (strings), not {_shown(value)}"
        )
    items: list[str] = value
    return tuple(Path(os.path.expanduser(p)) for p in items)


def _readable(block: Mapping[str, Any], source: str) -> tuple[Path, ...]:
    """`sandbox.readable`: each path absolute once `~` is expanded (a relative one would name
    a place in the workspace, which is in view already), normalised."""
    paths = _paths(block, "readable", source)
    for path in paths:
        if not path.is_absolute() or "\0" in str(path):
            raise ConfigError(
                f"{source}: sandbox.readable entries must be absolute paths or start with ~/, "
                f"not {_shown(str(path))}"
            )
    return tuple(Path(os.path.normpath(p)) for p in paths)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
