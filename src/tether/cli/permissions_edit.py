"""`/permissions add|remove`: the user's own edits of permission rules, written where Claude
Code's /permissions writes them, and in force from the next call on.

`/permissions add allow|ask|deny RULE [--local|--project|--user]` keeps the rule in
`.claude/settings.local.json` (the default, as Claude Code's first choice: this project, not
checked in; `.claude/.gitignore` names it), `.claude/settings.json` (checked in) or
`~/.claude/settings.json` (every project).
`/permissions remove RULE` takes it out of whichever of those files (and tether's remembered
"always allow" answers for the workspace) hold it. Only the rule typed changes in the session:
what else a workspace's file says is not read in by the edit (an untrusted workspace's allow
rules stay out)."""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast, get_args

from rich.text import Text

from tether import bounded_json
from tether.cli.terminal_text import terminal_safe
from tether.config.local_files import ignore_local_files
from tether.config.settings import tether_home
from tether.config.trust import remembered_settings
from tether.core.session import Session
from tether.permissions import parse_rule
from tether.permissions.rules import RuleKind
from tether.protocol import ConfigError

USAGE = "/permissions add allow|ask|deny RULE [--local|--project|--user] · /permissions remove RULE"
DESTINATIONS = {"--local": "local", "--project": "project", "--user": "user"}


def settings_file(where: str, workspace: Path, user_home: Path) -> Path:
    """The settings file Claude Code keeps a rule of that scope in."""
    if where == "user":
        return user_home / ".claude" / "settings.json"
    name = "settings.local.json" if where == "local" else "settings.json"
    return workspace / ".claude" / name


def edit_permissions(session: Session, args: str, *, user_home: Path) -> Text:
    """Carry out `/permissions add ...` or `/permissions remove ...`: what changed, or why
    nothing did."""
    gate = session.agent.gate
    if gate is None:
        return Text("✗ This session has no permission rules to edit.", style="red")
    workspace = session.agent.tool_context.workspace
    verb, _, rest = args.strip().partition(" ")
    words = rest.split()
    where = "local"
    if words and words[-1] in DESTINATIONS:
        where = DESTINATIONS[words[-1]]
        rest = rest.strip()[: -len(words[-1])]
    if verb == "add":
        kind, _, rule = rest.strip().partition(" ")
        rule = rule.strip()
        if kind not in get_args(RuleKind) or not rule:
            return Text(f"Usage: {USAGE}", style="yellow")
        problem = _unreadable(rule, cast(RuleKind, kind))
        if problem is not None:
            return Text(f"✗ {problem}", style="red")
        path = settings_file(where, workspace, user_home)
        try:
            _write(path, lambda rules: _with_rule(rules, kind, rule))
            if where == "local":  # this machine's, as Claude Code keeps it out of git
                ignore_local_files(path.parent, path.name)
        except (OSError, ConfigError) as e:
            return Text(f"✗ {terminal_safe(str(e))}", style="red")
        gate.edit_rule(path, cast(RuleKind, kind), rule, add=True)
        return Text(f"✓ Added {kind} rule {terminal_safe(rule)} to {_shown(path)}", style="green")
    if verb in ("remove", "rm"):
        rule = rest.strip()
        if not rule:
            return Text(f"Usage: {USAGE}", style="yellow")
        return _remove(session, rule, workspace, user_home)
    return Text(f"Usage: {USAGE}", style="yellow")


def _remove(session: Session, rule: str, workspace: Path, user_home: Path) -> Text:
    gate = session.agent.gate
    assert gate is not None
    files = [settings_file(w, workspace, user_home) for w in ("local", "project", "user")]
    files.append(remembered_settings(tether_home(), workspace))
    removed: list[str] = []
    for path in files:
        kinds = _kinds_holding(path, rule)
        if not kinds:
            continue
        try:
            _write(path, lambda rules: _without_rule(rules, rule))
        except (OSError, ConfigError) as e:
            return Text(f"✗ {terminal_safe(str(e))}", style="red")
        for kind in kinds:
            gate.edit_rule(path, kind, rule, add=False)
            removed.append(f"{kind} rule from {_shown(path)}")
    if not removed:
        return Text(
            f"✗ No settings file /permissions edits holds the rule {terminal_safe(rule)} "
            "(/permissions lists where each rule comes from).",
            style="red",
        )
    return Text(f"✓ Removed {terminal_safe(rule)}: " + "; ".join(removed), style="green")


def _unreadable(rule: str, kind: RuleKind) -> str | None:
    try:
        parse_rule(rule, kind, source="/permissions", project_root=None)
    except ConfigError as e:
        return str(e)
    return None


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        loaded = bounded_json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ConfigError(f"cannot update {path}: {e}") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"cannot update {path}: it is not a JSON object")
    return cast(dict[str, Any], loaded)


def _write(path: Path, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Rewrite the `permissions` of the settings file at `path` with `change`."""

    def changed(data: dict[str, Any]) -> None:
        table = data.get("permissions")
        rules = dict(cast(dict[str, Any], table)) if isinstance(table, dict) else {}
        data["permissions"] = change(rules)

    update_settings(path, changed)


def update_settings(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Change the settings file at `path` in place with `change`, atomically, keeping
    everything else it holds; `ConfigError` when it cannot be read as a JSON object."""
    data = _read(path)
    change(data)
    # A link (into a dotfiles repository) is written through, not replaced by a file; the
    # file keeps its mode (one made read-only is refused, not made writable again).
    target = path.resolve() if path.is_symlink() else path
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else None
        if mode is not None and (not mode & 0o222 or not os.access(target, os.W_OK)):
            raise PermissionError(errno.EACCES, "the file is read-only", str(target))
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        if mode is not None:
            temporary.chmod(mode)
        os.replace(temporary, target)
    except OSError as e:
        temporary.unlink(missing_ok=True)
        raise ConfigError(f"cannot write {target}: {e.strerror or e}") from None


def _with_rule(rules: dict[str, Any], kind: str, rule: str) -> dict[str, Any]:
    held = _listed(rules.get(kind))
    rules[kind] = held if rule in held else [*held, rule]
    return rules


def _without_rule(rules: dict[str, Any], rule: str) -> dict[str, Any]:
    for kind in get_args(RuleKind):
        if isinstance(rules.get(kind), list):
            rules[kind] = [r for r in _listed(rules[kind]) if r != rule]
    return rules


def _kinds_holding(path: Path, rule: str) -> Sequence[RuleKind]:
    try:
        table = _read(path).get("permissions")
    except ConfigError:
        return ()
    if not isinstance(table, dict):
        return ()
    rules = cast(dict[str, Any], table)
    return [k for k in get_args(RuleKind) if rule in _listed(rules.get(k))]


def _listed(value: object) -> list[object]:
    return list(cast(list[object], value)) if isinstance(value, list) else []


def _shown(path: Path) -> str:
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)
