"""The stored schemas of tether's own tools are what their input models make, the stored
descriptions of the built-in tools are what the tools say, and every tool a session offers of
its own has one (else each start would generate it again)."""

from __future__ import annotations

import json
import subprocess
import sys

from tether.cli.tool_schemas import generated
from tether.tools.builtin import builtin_tools, loaded_builtin_tools
from tether.tools.schema_store import STORE


def test_the_stored_schemas_are_what_the_models_make() -> None:
    stored = json.loads(STORE.read_text(encoding="utf-8"))
    assert stored == generated(), (
        "a tool or an input model changed: write the stored schemas again with "
        "`python -m tether.cli.tool_schemas`"
    )


def test_the_builtin_tools_are_offered_as_they_describe_themselves() -> None:
    offered, loaded = builtin_tools(), loaded_builtin_tools()
    assert [(t.spec(), t.read_only, t.paths) for t in offered] == [
        (t.spec(), t.read_only, t.paths) for t in loaded
    ]
    assert [t.loaded() for t in offered] == loaded


def test_a_session_offers_the_stored_schemas_without_importing_a_tool() -> None:
    # In a fresh interpreter: no tool module is imported while the specs are made, no model
    # is built when the modules are, and a model without a stored schema still gets its own.
    program = (
        "import sys\n"
        "from pydantic import BaseModel\n"
        "from tether.tools.base import input_schema\n"
        "from tether.tools.builtin import builtin_tools, loaded_builtin_tools\n"
        "from tether.tools.registry import ToolRegistry\n"
        "specs = ToolRegistry(builtin_tools()).specs()\n"
        "imported = sorted(m for m in sys.modules if m.startswith('tether.tools.builtin.'))\n"
        "class Other(BaseModel):\n"
        "    n: int\n"
        "tools = loaded_builtin_tools()\n"
        "built = [t.name for t in tools if t.input_model.__pydantic_complete__]\n"
        "print(len(specs), imported, built, input_schema(Other))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    expected = {"properties": {"n": {"type": "integer"}}, "required": ["n"], "type": "object"}
    assert done.stdout == f"15 [] [] {expected}\n"
