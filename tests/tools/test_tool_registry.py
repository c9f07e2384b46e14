"""The built-in tool set as the registry offers it, and calls the model got wrong."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from tether.tools.builtin import builtin_tools
from tether.tools.registry import ToolOutcome, ToolRegistry

RunTool = Callable[..., Awaitable[ToolOutcome]]


def test_names_order_and_flags() -> None:
    tools = builtin_tools()
    assert [(t.name, t.read_only) for t in tools] == [
        ("Bash", False),
        ("BashOutput", True),
        ("KillShell", False),
        ("Read", True),
        ("Write", False),
        ("Edit", False),
        ("NotebookEdit", False),
        ("Glob", True),
        ("Grep", True),
        ("WebFetch", True),
        ("WebSearch", True),
        ("Revert", False),
        ("TodoWrite", True),
        ("MemorySave", True),
        ("MemorySearch", True),
    ]


def test_every_input_field_is_described_and_extras_are_forbidden() -> None:
    for spec in ToolRegistry(builtin_tools()).specs():
        schema = spec.input_schema
        assert schema["additionalProperties"] is False, spec.name
        for name, field in schema["properties"].items():
            assert field.get("description"), f"{spec.name}.{name}"


def test_grep_schema_uses_ripgrep_flag_names() -> None:
    grep = ToolRegistry(builtin_tools()).get("Grep")
    assert grep is not None
    assert list(grep.spec().input_schema["properties"]) == [
        "pattern",
        "path",
        "glob",
        "type",
        "output_mode",
        "-i",
        "-n",
        "-A",
        "-B",
        "-C",
        "head_limit",
        "multiline",
    ]


async def test_unknown_tool(run_tool: RunTool) -> None:
    assert await run_tool("Nope") == ToolOutcome(
        "Error: No such tool: 'Nope'. Available tools: Bash, BashOutput, KillShell, Read, Write, "
        "Edit, NotebookEdit, Glob, Grep, WebFetch, WebSearch, Revert, TodoWrite, MemorySave, "
        "MemorySearch.",
        True,
    )


async def test_schema_violation(run_tool: RunTool) -> None:
    assert await run_tool("Read", path="a.txt") == ToolOutcome(
        "Error: Invalid input for Read: missing required field 'file_path'; "
        "unexpected field 'path'",
        True,
    )
    assert await run_tool("Grep", pattern="a", output_mode="lines") == ToolOutcome(
        "Error: Invalid input for Grep: output_mode: Input should be 'files_with_matches', "
        "'content' or 'count' (got \"lines\")",
        True,
    )
