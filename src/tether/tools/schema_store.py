"""What the model and the session see of tether's own tools, stored instead of made at every
start.

Every request offers the tools with their schemas, so a session's start would otherwise build
each input model's validator and then its JSON schema (some 10 ms for a dozen models), only to
produce the same text as at the last start. The schemas are kept in `builtin_schemas.json`
beside this file; the input models they come from are declared with `defer_build`, so that
their validators are built only when a call of the tool is first checked.

The built-in tools are described there in full (description, whether they only read, which
input fields are paths, the key of their schema), so that a session offers them without
importing their modules (`tether.tools.builtin`).

The stored text is checked against the tools and models by the tests; after changing one,
write it again with `python -m tether.cli.tool_schemas`.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

STORE = Path(__file__).with_name("builtin_schemas.json")


def stored_schema(model: type[BaseModel] | str) -> dict[str, Any] | None:
    """The stored schema of `model` (a copy of its own), or None when it has none."""
    found = _stored()["schemas"].get(model_key(model))
    return None if found is None else copy.deepcopy(found)


def stored_tool(name: str) -> dict[str, Any]:
    """The stored description of the built-in tool `name`: `description`, `read_only`,
    `paths` and `schema` (a copy of its own)."""
    found = _stored()["tools"][name]
    return {**found, "schema": copy.deepcopy(_stored()["schemas"][found["input"]])}


def model_key(model: type[BaseModel] | str) -> str:
    """`module.Class`, of a model or of its place (`module:Class`)."""
    if isinstance(model, str):
        return model.replace(":", ".")
    return f"{model.__module__}.{model.__qualname__}"


@cache
def _stored() -> dict[str, dict[str, Any]]:
    stored: dict[str, dict[str, Any]] = json.loads(STORE.read_text(encoding="utf-8"))
    return stored
