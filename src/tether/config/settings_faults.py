"""A settings file's values that cannot be used, each told with a warning naming the file and
the key's path, and each read the SAFER way (`tether.config.fault_remedies`): a value that only
grants or decorates is left out alone, the rest of the file and the hook around it holding (a
hook keeps running without its bad statusMessage, a bad timeout takes the default); a hook's
malformed failure policy fails closed; a value that guards (a deny rule, a hook's command, the
sandbox's switch) refuses the start, naming the file and the key: leaving it out would keep the
allow rules beside it in force. All of a file's faults are told at once, not only the first.

A file that is not JSON at all is not handled here: `tether.config.settings` stops on it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from tether.config.fault_remedies import Remedy, remedy_at
from tether.config.numbers import setting_number_faults
from tether.config.setting_shapes import described_value, shape_faults
from tether.config.settings_keys import key_faults


def usable_file(path: Path | str, data: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """`data` with its values that cannot be used read the safer way, and one warning for
    each; raises `ConfigError` naming the file and every key when one of them guards."""
    notes: list[str] = []
    refused: list[str] = []
    kept: dict[str, Any] = dict(data)
    for key, problem in key_faults(data):
        if remedy_at((key,)) is Remedy.REFUSE:
            refused.append(problem)
            continue
        del kept[key]
        notes.append(_warning(path, problem, Remedy.DROP.value))
    dropped: list[tuple[str | int, ...]] = []
    closed: list[tuple[str | int, ...]] = []
    for place, problem in [*shape_faults(kept), *setting_number_faults(kept)]:
        remedy = remedy_at(place)
        if remedy is Remedy.REFUSE:
            refused.append(problem)
            continue
        (closed if remedy is Remedy.FAIL_CLOSED else dropped).append(place)
        notes.append(_warning(path, problem, remedy.value))
    env = kept.get("env")
    for name, value in cast(dict[str, object], env).items() if isinstance(env, dict) else ():
        if not isinstance(value, str):
            problem = f'"env.{name}" must be a string, not {described_value(value)}'
            notes.append(_warning(path, problem, "read as JSON spells it"))
    if refused:
        raise _refusal(path, refused)
    if dropped or closed:
        kept = copy.deepcopy(kept)
        _drop(kept, dropped)
        for place in closed:
            _fail_closed(kept, place)
    return kept, notes


def _fail_closed(data: dict[str, Any], place: tuple[str | int, ...]) -> None:
    """The hook at `place[:-1]` made fail-closed, its malformed policy key replaced."""
    hook: Any = data
    for step in place[:-1]:
        hook = hook[step]
    hook.pop("onFailure", None)
    hook["failClosed"] = True


def _refusal(path: Path | str, problems: list[str]) -> Exception:
    from tether.protocol import ConfigError  # on use: it loads pydantic

    told = "; ".join(problems)
    return ConfigError(
        f"settings file {path}: {told}; {Remedy.REFUSE.value}: fix it or move the file away"
    )


def _drop(data: dict[str, Any], places: list[tuple[str | int, ...]]) -> None:
    """Each of `places` out of `data`: all found first, then taken out, list items from the
    last, so that no place is looked for in what is already gone and the indexes still hold."""
    in_lists: dict[int, tuple[list[Any], set[int]]] = {}
    in_objects: list[tuple[dict[str | int, Any], str | int]] = []
    for place in places:
        parent: Any = data
        for step in place[:-1]:
            parent = parent[step]
        last = place[-1]
        if isinstance(parent, list) and isinstance(last, int):
            listed = cast(list[Any], parent)
            in_lists.setdefault(id(listed), (listed, set()))[1].add(last)
        elif isinstance(parent, dict):
            in_objects.append((cast(dict[str | int, Any], parent), last))
    for table, key in in_objects:
        table.pop(key, None)
    for listed, indexes in in_lists.values():
        for index in sorted(indexes, reverse=True):
            del listed[index]


def _warning(path: Path | str, problem: str, what: str) -> str:
    return f"warning: settings file {path}: {problem}; {what}; the rest of the file is in effect"
