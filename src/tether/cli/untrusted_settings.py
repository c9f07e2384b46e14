"""An untrusted workspace's settings files restricted to what they may keep: their deny and
ask rules, a restrictive `defaultMode`, `disableAllHooks: true`, `disabledMcpjsonServers`, a
sandbox's restrictive keys and neutral keys; everything else they declare (hooks, allow rules,
`env`, providers, commands, webhooks...) is listed as needing trust
(`tether.cli.workspace_review` says why and what else needs it)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Final, cast

from tether.cli.ownership import Ownership
from tether.config.settings import Settings, merge
from tether.slotted import Slotted

RESTRICTIVE_MODES = frozenset({"default", "plan", "dontAsk"})
KEPT_PERMISSIONS = ("deny", "ask")
NEUTRAL_KEYS = frozenset(
    {"model", "contextWindow", "maxOutputTokens", "disabledMcpjsonServers", "outputStyle"}
)
"""Kept as an untrusted file declares them: they run nothing (an output style is prompt text, as
the project's CLAUDE.md is)."""
NEUTRAL_TETHER_KEYS = frozenset(
    {"mcp", "subagents", "toolStats", "slowToolMs", "modelIdleTimeoutMs"}
)
RESTRICTIVE_SANDBOX = {
    "enabled": True,
    "network": False,
    "required": True,
    "failIfUnavailable": True,
}
COMMAND_KEYS = (
    "apiKeyHelper",
    "statusLine",
    "awsAuthRefresh",
    "awsCredentialExport",
    "otelHeadersHelper",
)
"""Claude Code settings whose value is a command it runs."""


class Declared(Slotted):
    """One thing a workspace file would run or grant."""

    __slots__ = ("detail", "kind", "name", "source")
    source: Final[Path]
    kind: Final[str]
    """What it is, as the user reads it: "hook", "MCP server", "allow rule"..."""
    detail: Final[str]
    name: Final[str]
    """A server's name (the summary names servers, and counts the rest)."""

    def __init__(self, source: Path, kind: str, detail: str, name: str = "") -> None:
        self.source = source
        self.kind = kind
        self.detail = detail
        self.name = name


def restrict_settings(
    settings: Settings, owners: Ownership, *, explicit: Path | None = None
) -> Settings:
    """The settings with the workspace's settings files restricted (see the module's
    docstring). `explicit`, the `--settings` file, is the user's choice: it stays whole,
    wherever it is (it is the last layer)."""
    last = len(settings.layers) - 1
    layers = tuple(
        (path, data)
        if (explicit is not None and i == last and path == explicit) or not owners.needs_trust(path)
        else (path, restrict_layer(path, data)[0])
        for i, (path, data) in enumerate(settings.layers)
    )
    merged: dict[str, Any] = {}
    for _, data in layers:
        merged = merge(merged, data)
    return replace(settings, data=merged, layers=layers)


def restrict_layer(path: Path, data: Mapping[str, Any]) -> tuple[dict[str, Any], list[Declared]]:
    """What an untrusted settings file keeps, and what it declares that needs trust."""
    kept: dict[str, Any] = {}
    declared: list[Declared] = []

    def add(kind: str, detail: object) -> None:
        declared.append(Declared(path, kind, str(detail)))

    for key, value in data.items():
        if key in NEUTRAL_KEYS:
            kept[key] = value
        elif key == "disableAllHooks":
            if value is True:
                kept[key] = value
        elif key == "permissions":
            kept[key] = _permissions(value, add) if isinstance(value, dict) else value
        elif key == "hooks":
            for hook in _hook_commands(value):
                add("hook", hook)
        elif key == "sandbox" and isinstance(value, dict):
            kept[key] = _sandbox(cast(dict[str, Any], value), add)
        elif key == "env" and isinstance(value, dict):
            for name, setting in cast(dict[str, Any], value).items():
                add("environment variable", f"{name}={setting}")
        elif key == "providers" and isinstance(value, dict):
            for name, entry in cast(dict[str, Any], value).items():
                url = (
                    cast(dict[str, Any], entry).get("base_url")
                    if isinstance(entry, dict)
                    else entry
                )
                add("model provider", f"{name}: {url}")
        elif key == "enabledPlugins" and isinstance(value, dict):
            # A plugin runs its hooks and servers: the repository's choice waits for trust.
            for plugin_id, on in cast(dict[str, Any], value).items():
                if on is True:
                    add("plugin", plugin_id)
        elif key in COMMAND_KEYS:
            command = (
                cast(dict[str, Any], value).get("command") if isinstance(value, dict) else value
            )
            add("command", f"{key}: {command}")
        elif key == "webhooks":  # every event of the session, sent where the file says
            for sink in cast(list[object], value) if isinstance(value, list) else [value]:
                url = cast(dict[str, Any], sink).get("url") if isinstance(sink, dict) else sink
                add("webhook", url)
        elif key == "tether" and isinstance(value, dict):
            block = cast(dict[str, Any], value)
            kept[key] = {k: v for k, v in block.items() if k in NEUTRAL_TETHER_KEYS}
            if "eventLog" in block:
                add("event log", block["eventLog"])
        elif key in ("sandbox", "env", "providers", "tether"):
            kept[key] = value  # the wrong type: left for the reader to report, naming the file
    return kept, declared


def _permissions(table: Mapping[str, Any], add: Any) -> dict[str, Any]:
    kept = {k: table[k] for k in KEPT_PERMISSIONS if k in table}
    allow = table.get("allow", [])
    for rule in cast(list[Any], allow) if isinstance(allow, list) else [allow]:
        add("allow rule", rule)
    mode = table.get("defaultMode")
    if mode in RESTRICTIVE_MODES or (mode is not None and not isinstance(mode, str)):
        kept["defaultMode"] = mode
    elif mode is not None:
        add("permission mode", mode)
    directories = table.get("additionalDirectories", [])
    for directory in (
        cast(list[Any], directories) if isinstance(directories, list) else [directories]
    ):
        add("additional directory", directory)
    return kept


def _sandbox(block: Mapping[str, Any], add: Any) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, value in block.items():
        if key in RESTRICTIVE_SANDBOX and value == RESTRICTIVE_SANDBOX[key]:
            kept[key] = value
        elif key == "network" and isinstance(value, dict):
            continue  # Claude Code's proxy rules: tether keeps the network off for them
        else:
            add("sandbox setting", f"{key}: {json.dumps(value)}")
    return kept


def _hook_commands(block: object) -> list[str]:
    """Each configured hook as "Event: command"; a block of another shape is still declared."""
    if not isinstance(block, dict):
        return [f"hooks: {json.dumps(block)[:200]}"]
    found: list[str] = []
    for event, groups in cast(dict[str, Any], block).items():
        for group in cast(list[Any], groups) if isinstance(groups, list) else [groups]:
            hooks = cast(dict[str, Any], group).get("hooks") if isinstance(group, dict) else group
            for hook in cast(list[Any], hooks) if isinstance(hooks, list) else [hooks]:
                command = (
                    cast(dict[str, Any], hook).get("command") if isinstance(hook, dict) else None
                )
                found.append(
                    f"{event}: {command if isinstance(command, str) else json.dumps(hook)}"
                )
    return found
