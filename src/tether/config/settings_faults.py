"""A settings file's values that cannot be used, each left out with a warning naming the file
and the key's path, while everything else in the file holds: a bad value of one key never
costs the file its permission rules (a hook's timeout of "60" dropped the whole file before,
its deny rules with it). One rule for every key: a top-level value of the wrong JSON type is
left out as if the file did not set it; a value below it of the wrong type
(`tether.config.setting_shapes`) or a number out of its range is too, and in an entry of a
list (a hook, a webhook, a permission rule) the whole entry is left out, as Claude Code skips
the hook (a hook run with a timeout or a status message nobody chose would be a policy nobody
wrote).
All of a file's faults are told at once, not only the first.

A file that is not JSON at all is not handled here: `tether.config.settings` stops on it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from tether.config.numbers import setting_number_faults
from tether.config.setting_shapes import shape_faults
from tether.config.settings_keys import key_faults


def usable_file(path: Path | str, data: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """`data` without its values that cannot be used, and one warning for each left out."""
    notes: list[str] = []
    kept: dict[str, Any] = dict(data)
    for key, problem in key_faults(data):
        del kept[key]
        notes.append(_warning(path, problem, "ignored, as if the file did not set it"))
    places: list[tuple[str | int, ...]] = []
    for place, problem in [*shape_faults(kept), *setting_number_faults(kept)]:
        entry = [i for i, step in enumerate(place) if isinstance(step, int)]
        if entry:  # in a list of entries (hooks, webhooks): that entry goes, not just the key
            place = place[: entry[-1] + 1]
            what = f"that entry ({_named(place)}) is skipped"
        else:
            what = "ignored, as if the file did not set it"
        places.append(place)
        notes.append(_warning(path, problem, what))
    if places:
        kept = copy.deepcopy(kept)
        _drop(kept, places)
    return kept, notes


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


def _named(place: tuple[str | int, ...]) -> str:
    name = ""
    for step in place:
        name += f"[{step}]" if isinstance(step, int) else (f".{step}" if name else step)
    return name


def _warning(path: Path | str, problem: str, what: str) -> str:
    return f"warning: settings file {path}: {problem}; {what}; the rest of the file is in effect"
