"""Reading the `hooks` block of each settings file (Claude Code's shape) into `HookSpec`s.

    {"hooks": {"PreToolUse": [{"matcher": "Edit|Write",
                               "hooks": [{"type": "command", "command": "...", "timeout": 60,
                                          "failClosed": true}]}]}}

Broken input (wrong types, an unknown event, a bad regular expression) is a `ConfigError` naming
the file and the key. What Claude Code accepts but tether does not run (events it never fires,
`mcp_tool` hooks) is skipped with a note, so that a Claude Code settings file still loads.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, cast

from tether.hooks.matcher import matcher_problem
from tether.hooks.spec import (
    AGENT_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
    HOOK_EVENTS,
    MATCH_FIELDS,
    PROMPT_TIMEOUT_S,
    HookEventName,
    HookSpec,
    command_timeout_s,
)
from tether.protocol import ConfigError
from tether.relocated_files import file_name
from tether.shown_urls import http_url_problem
from tether.slotted import Slotted

OTHER_CLAUDE_CODE_EVENTS = frozenset(
    {
        "DirectoryAdded",
        "MessageDisplay",
        "PreModelSwitch",
        "PostModelSwitch",
        "PreSkillShellCommand",
    }
)
"""Events newer Claude Code versions fire that its hooks documentation does not list and tether
does not fire: accepted, never run (`tether hooks check` names them)."""

OTHER_HOOK_TYPES = frozenset({"mcp_tool"})
"""Hook types Claude Code knows and tether does not run."""
JUDGED_TYPES = {"prompt": PROMPT_TIMEOUT_S, "agent": AGENT_TIMEOUT_S}
"""Hook types a model runs (`tether.hooks.judged`), with their default timeouts."""


class HooksConfig(Slotted):
    __slots__ = ("skipped", "specs")
    specs: Final[tuple[HookSpec, ...]]
    """The command hooks to run, in configuration order (files lowest precedence first)."""
    skipped: Final[tuple[str, ...]]
    """Configured hooks tether does not run, each with where and why."""

    def __init__(self, specs: tuple[HookSpec, ...] = (), skipped: tuple[str, ...] = ()) -> None:
        self.specs = specs
        self.skipped = skipped


def parse_hooks(layers: Sequence[tuple[Path, Mapping[str, Any]]]) -> tuple[HookSpec, ...]:
    """The command hooks configured across settings files, lowest precedence first; raises
    `ConfigError` on a broken `hooks` block."""
    return read_hooks(layers).specs


def read_hooks(layers: Sequence[tuple[Path, Mapping[str, Any]]]) -> HooksConfig:
    """Like `parse_hooks`, also telling what was skipped and why (for `tether hooks check`)."""
    specs: list[HookSpec] = []
    skipped: list[str] = []
    disabled_by: Path | None = None
    for path, data in layers:
        disable = data.get("disableAllHooks")
        if disable is not None:
            if not isinstance(disable, bool):
                raise _error(path, "disableAllHooks", "must be true or false")
            disabled_by = path if disable else None
        block = data.get("hooks")
        if block is None:
            continue
        if not isinstance(block, dict):
            raise _error(path, "hooks", "must be an object of event names")
        for event, groups in cast(dict[str, Any], block).items():
            _read_event(path, event, groups, specs, skipped)
    if disabled_by is not None:
        note = f"{file_name(disabled_by)}: disableAllHooks is true: no hook runs"
        return HooksConfig((), (note, *(_spec_note(s, "disabled") for s in specs), *skipped))
    return HooksConfig(tuple(specs), tuple(skipped))


def _read_event(
    path: Path, event: str, groups: Any, specs: list[HookSpec], skipped: list[str]
) -> None:
    key = f"hooks.{event}"
    known = event in HOOK_EVENTS
    if not known and event not in OTHER_CLAUDE_CODE_EVENTS:
        raise _error(path, key, f"unknown hook event; known events: {', '.join(HOOK_EVENTS)}")
    if not isinstance(groups, list):
        raise _error(path, key, "must be a list of matcher groups")
    for i, group in enumerate(cast(list[Any], groups)):
        group_key = f"{key}[{i}]"
        if not isinstance(group, dict):
            raise _error(path, group_key, 'must be an object with "matcher" and "hooks"')
        group = cast(dict[str, Any], group)
        matcher = group.get("matcher", "")
        if not isinstance(matcher, str):
            raise _error(path, f"{group_key}.matcher", "must be a string")
        # Only where tether matches: other events ignore matchers, or read them as globs.
        problem = matcher_problem(matcher) if event in MATCH_FIELDS else None
        if problem is not None:
            raise _error(path, f"{group_key}.matcher", problem)
        hooks = group.get("hooks")
        if not isinstance(hooks, list):
            raise _error(path, f"{group_key}.hooks", "must be a list of hooks")
        for j, entry in enumerate(cast(list[Any], hooks)):
            entry_key = f"{group_key}.hooks[{j}]"
            spec = _read_entry(path, entry_key, event, matcher, entry)
            if isinstance(spec, str):
                skipped.append(f"{path}: {entry_key}: {spec}")
            elif known:
                specs.append(spec)
            else:
                skipped.append(f"{path}: {entry_key}: tether does not fire {event}")


def _read_entry(path: Path, key: str, event: str, matcher: str, entry: Any) -> HookSpec | str:
    """One hook, or why tether does not run it (a kind it does not support)."""
    if not isinstance(entry, dict):
        raise _error(path, key, 'must be an object like {"type": "command", "command": "..."}')
    entry = cast(dict[str, Any], entry)
    kind = entry.get("type")
    if kind in OTHER_HOOK_TYPES:
        return f"tether does not run {kind!r} hooks"
    if kind == "http":
        return _read_http(path, key, event, matcher, entry)
    if kind != "command" and kind not in JUDGED_TYPES:
        raise _error(
            path,
            f"{key}.type",
            'must be "command", "http", "prompt" or "agent" (or a type tether skips: '
            + ", ".join(f'"{k}"' for k in sorted(OTHER_HOOK_TYPES))
            + ")",
        )
    judged = kind in JUDGED_TYPES
    field = "prompt" if judged else "command"
    command = entry.get(field)
    if not isinstance(command, str) or not command.strip():
        raise _error(path, f"{key}.{field}", "must be a non-empty string")
    model = entry.get("model")
    if model is not None and (not judged or not isinstance(model, str) or not model.strip()):
        raise _error(path, f"{key}.model", "must be a model name, on a prompt or agent hook")
    default = JUDGED_TYPES[kind] if judged else command_timeout_s(cast(HookEventName, event))
    timeout, fail_closed = _limits(path, key, entry, default)
    run_async = entry.get("async", False)
    if not isinstance(run_async, bool):
        raise _error(path, f"{key}.async", "must be true or false")
    rewake = entry.get("asyncRewake", False)
    if not isinstance(rewake, bool):
        raise _error(path, f"{key}.asyncRewake", "must be true or false")
    return HookSpec(
        event=cast(HookEventName, event),
        matcher=matcher,
        command="" if judged else command,
        prompt=command if judged else None,
        agent=kind == "agent",
        model=model.strip() if isinstance(model, str) else None,
        timeout_s=timeout,
        fail_closed=fail_closed,
        run_async=(run_async or rewake) and not judged,  # asyncRewake implies async
        async_rewake=rewake and not judged,
        source=f"{file_name(path)}: {key}",
    )


def _limits(path: Path, key: str, entry: dict[str, Any], default: float) -> tuple[float, bool]:
    """A hook's timeout and whether it is fail-closed (`failClosed`, `onFailure: "block"`)."""
    timeout = entry.get("timeout", default)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise _error(path, f"{key}.timeout", "must be a positive number of seconds")
    fail_closed = entry.get("failClosed", False)
    if not isinstance(fail_closed, bool):
        raise _error(path, f"{key}.failClosed", "must be true or false")
    on_failure = entry.get("onFailure")
    if on_failure is not None and not isinstance(on_failure, str):
        raise _error(path, f"{key}.onFailure", 'must be a string such as "block"')
    return float(timeout), fail_closed or on_failure == "block"


def _read_http(path: Path, key: str, event: str, matcher: str, entry: dict[str, Any]) -> HookSpec:
    """An `http` hook: its url (http or https), headers and the variables they may use."""
    url = entry.get("url")
    if not isinstance(url, str):
        raise _error(path, f"{key}.url", "must be an http:// or https:// URL")
    if (problem := http_url_problem(url)) is not None:
        raise _error(path, f"{key}.url", f"must be an http:// or https:// URL ({problem})")
    headers = entry.get("headers", {})
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in cast(dict[Any, Any], headers).items()
    ):
        raise _error(path, f"{key}.headers", "must be an object of header names to strings")
    allowed = entry.get("allowedEnvVars", [])
    if not isinstance(allowed, list) or not all(
        isinstance(v, str) for v in cast(list[Any], allowed)
    ):
        raise _error(path, f"{key}.allowedEnvVars", "must be a list of variable names")
    timeout, fail_closed = _limits(path, key, entry, command_timeout_s(cast(HookEventName, event)))
    return HookSpec(
        event=cast(HookEventName, event),
        matcher=matcher,
        command="",
        url=url,
        headers=tuple(cast(dict[str, str], headers).items()),
        allowed_env=tuple(cast(list[str], allowed)),
        timeout_s=timeout,
        fail_closed=fail_closed,
        source=f"{file_name(path)}: {key}",
    )


def read_plugin_hooks(
    path: Path, block: Mapping[str, Any], *, plugin: str, env: Mapping[str, str]
) -> HooksConfig:
    """A plugin's hooks (`hooks/hooks.json`'s `hooks` object, variables already expanded),
    each run with `env` added. Lenient, as Claude Code is with plugins: a broken file is one
    note naming it and the plugin, and none of its hooks run."""
    specs: list[HookSpec] = []
    skipped: list[str] = []
    try:
        for event, groups in block.items():
            _read_event(path, event, groups, specs, skipped)
    except ConfigError as exc:
        return HooksConfig((), (f"plugin {plugin}: {exc}; its hooks there do not run",))
    extra = tuple(env.items())
    return HooksConfig(
        tuple(
            dataclasses.replace(spec, env=extra, source=f"plugin {plugin}: {spec.source}")
            for spec in specs
        ),
        tuple(f"plugin {plugin}: {note}" for note in skipped),
    )


def _spec_note(spec: HookSpec, why: str) -> str:
    return f"{spec.source}: {why}"


def _error(path: Path, key: str, problem: str) -> ConfigError:
    return ConfigError(f"settings file {file_name(path)}: {key}: {problem}")


def client_hooks(block: Mapping[str, Any]) -> HooksConfig:
    """The callback hooks an SDK client registers (its `initialize` request): per event, a
    list of `{matcher, hookCallbackIds, timeout, onFailure}`. Raises `ConfigError` naming the
    bad key; events tether does not fire are skipped with a note."""
    specs: list[HookSpec] = []
    skipped: list[str] = []
    for event, groups in block.items():
        key = f"hooks.{event}"
        known = event in HOOK_EVENTS
        if not known and event not in OTHER_CLAUDE_CODE_EVENTS:
            raise _client_error(key, f"unknown hook event; known events: {', '.join(HOOK_EVENTS)}")
        if not isinstance(groups, list):
            raise _client_error(key, "must be a list of matchers")
        for i, group in enumerate(cast(list[Any], groups)):
            group_key = f"{key}[{i}]"
            if not isinstance(group, dict):
                raise _client_error(group_key, "must be an object with hookCallbackIds")
            group = cast(dict[str, Any], group)
            matcher = group.get("matcher") or ""
            if not isinstance(matcher, str):
                raise _client_error(f"{group_key}.matcher", "must be a string")
            problem = matcher_problem(matcher) if event in MATCH_FIELDS else None
            if problem is not None:
                raise _client_error(f"{group_key}.matcher", problem)
            ids = group.get("hookCallbackIds")
            if not isinstance(ids, list) or not all(
                isinstance(i, str) for i in cast(list[Any], ids)
            ):
                raise _client_error(f"{group_key}.hookCallbackIds", "must be a list of strings")
            timeout = group.get("timeout")
            timeout = DEFAULT_TIMEOUT_S if timeout is None else timeout  # 0 is no timeout given
            if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
                raise _client_error(f"{group_key}.timeout", "must be a positive number of seconds")
            on_failure = group.get("onFailure")
            for callback_id in cast(list[str], ids):
                if not known:
                    skipped.append(f"{group_key}: tether does not fire {event}")
                    continue
                specs.append(
                    HookSpec(
                        event=event,
                        matcher=matcher,
                        command="",
                        callback_id=callback_id,
                        timeout_s=float(timeout),
                        # As in Claude Code, any value other than "continue" blocks.
                        fail_closed=on_failure is not None and on_failure != "continue",
                        source=f"the client's {group_key}",
                    )
                )
    return HooksConfig(tuple(specs), tuple(skipped))


def _client_error(key: str, problem: str) -> ConfigError:
    return ConfigError(f"the client's hooks: {key}: {problem}")
