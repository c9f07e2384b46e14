"""Permission updates a client answers a question with (Claude Code's `updatedPermissions`),
applied to the session's own rules and directories.

Rules are added, replaced or removed for one behavior (allow, deny or ask) among those the
session's answers have given; they count from the next decision on, a deny over any allow.
Those for a settings file (`localSettings`...) are returned to be kept as well.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from tether.permissions import parse_rule
from tether.permissions.rules import RuleKind
from tether.protocol import ConfigError, PermissionChange

SAVED_DESTINATIONS = frozenset({"localSettings", "projectSettings", "userSettings"})
"""Where a client asks a rule to be saved: tether keeps it as it keeps the user's "always
allow" answers (the workspace's remembered settings), never in a file the repository ships."""


@dataclass
class Applied:
    directories: tuple[Path, ...]
    """The directories the file tools may use besides the workspace, after the changes."""
    saved: list[tuple[RuleKind, str]] = field(default_factory=list[tuple[RuleKind, str]])
    """Rules to keep for later sessions too."""
    problems: list[str] = field(default_factory=list[str])
    """Why an entry was left out (a rule that cannot be read)."""


def apply_changes(
    rules: dict[RuleKind, list[str]],
    directories: tuple[Path, ...],
    changes: Sequence[PermissionChange],
    *,
    base: Path,
) -> Applied:
    """Apply `changes` to the session's `rules` (changed in place) and `directories`;
    a relative directory is taken from `base`."""
    applied = Applied(directories)
    for change in changes:
        if change.type in ("addDirectories", "removeDirectories"):
            named = [_directory(d, base) for d in change.directories]
            if change.type == "addDirectories":
                kept = applied.directories
                applied.directories = (*kept, *(d for d in dict.fromkeys(named) if d not in kept))
            else:
                applied.directories = tuple(d for d in applied.directories if d not in named)
            continue
        if change.type == "setMode":
            continue  # the caller switches modes (and reports the switch)
        valid = _readable(change, applied.problems)
        held = rules.setdefault(change.behavior, [])
        if change.type == "addRules":
            held.extend(r for r in valid if r not in held)
        elif change.type == "replaceRules":
            held[:] = list(dict.fromkeys(valid))
        else:
            held[:] = [r for r in held if r not in valid]
        if change.destination in SAVED_DESTINATIONS and change.type != "removeRules":
            applied.saved.extend((change.behavior, r) for r in valid)
    return applied


def _readable(change: PermissionChange, problems: list[str]) -> list[str]:
    valid: list[str] = []
    for text in change.rules:
        try:
            parse_rule(text, change.behavior, source="a permission update", project_root=None)
        except ConfigError as e:
            problems.append(f"{e}; this rule is not applied")
            continue
        valid.append(text)
    return valid


def _directory(text: str, base: Path) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else base / path


def with_rule_edited(
    layers: Sequence[tuple[Path, Mapping[str, Any]]],
    path: Path,
    kind: RuleKind,
    rule: str,
    *,
    add: bool,
) -> tuple[tuple[Path, Mapping[str, Any]], ...]:
    """The settings layers with one rule of the layer read from `path` added or removed (a
    layer is added for a file not read yet), not whatever else the file says now."""
    edited = list(layers)
    index = next((i for i, (p, _) in enumerate(edited) if p == path), None)
    data: Mapping[str, Any] = edited[index][1] if index is not None else {}
    table = data.get("permissions")
    rules = dict(cast(Mapping[str, Any], table)) if isinstance(table, Mapping) else {}
    held = rules.get(kind)
    listed = [r for r in cast(list[object], held) if r != rule] if isinstance(held, list) else []
    rules[kind] = [*listed, rule] if add else listed
    layer = (path, {**data, "permissions": rules})
    if index is None:
        edited.append(layer)
    else:
        edited[index] = layer
    return tuple(edited)
