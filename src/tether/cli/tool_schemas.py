"""Writes the stored descriptions and schemas of the tools a session offers of its own (see
`tether.tools.schema_store`): `python -m tether.cli.tool_schemas`, after changing a tool or an
input model. Here, above every layer that defines such a tool."""

from __future__ import annotations

import json
import sys
from typing import Any

from pydantic import BaseModel

from tether.agents.task_input import TaskInput
from tether.skills.skill_input import SkillInput
from tether.tools.base import generated_schema
from tether.tools.builtin import loaded_builtin_tools
from tether.tools.schema_store import STORE, model_key


def stored_models() -> list[type[BaseModel]]:
    """The input models whose schemas are stored: the built-in tools', Task's and Skill's."""
    return [*(t.model() for t in loaded_builtin_tools()), TaskInput, SkillInput]


def generated() -> dict[str, dict[str, Any]]:
    """What the store holds, as the tools and models make it now."""
    tools = {
        t.name: {
            "description": t.description,
            "read_only": t.read_only,
            "paths": list(t.paths),
            "input": model_key(t.input_model),
        }
        for t in loaded_builtin_tools()
    }
    schemas = {model_key(m): generated_schema(m) for m in stored_models()}
    return {"tools": tools, "schemas": schemas}


def main() -> int:
    STORE.write_text(json.dumps(generated(), indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {STORE.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
