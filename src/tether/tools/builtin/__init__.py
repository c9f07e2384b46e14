"""The tools tether ships: shell (and its background commands), files and notebooks, search,
web pages, undo, the plan and the project's memory.

A session offers them from stored data and imports a tool's module at the tool's first call
(`Tool.load`): what is needed before then (the description and schema the model reads, whether
the tool only reads, which input fields are paths) is in `tether.tools.schema_store`, written
from the tools themselves. Importing the ten modules, their input models and helpers was a
share of every start, paid again by a session that calls none of them."""

from __future__ import annotations

from functools import cache, partial
from importlib import import_module
from typing import Any

from tether.tools.base import ANY_ARGUMENTS, Tool, ToolOutput
from tether.tools.context import ToolContext
from tether.tools.schema_store import stored_tool

PLACES: dict[str, str] = {
    "Bash": "bash:bash",
    "BashOutput": "background:bash_output",
    "KillShell": "background:kill_shell",
    "Read": "read:read",
    "Write": "write:write",
    "Edit": "edit:edit",
    "NotebookEdit": "notebook:notebook_edit",
    "Glob": "glob:glob",
    "Grep": "grep:grep",
    "WebFetch": "web_fetch:web_fetch",
    "WebSearch": "web_search:web_search",
    "Revert": "revert:revert",
    "TodoWrite": "todo:todo_write",
    "MemorySave": "memory:memory_save",
    "MemorySearch": "memory:memory_search",
}
"""Where each built-in tool is defined (`module:name` in this package), in the order the model
is offered them."""


def builtin_tools() -> list[Tool]:
    """The built-in tools, in the order the model is offered them, described from stored data;
    each module is imported at its tool's first call."""
    return [_described(name) for name in PLACES]


def loaded_builtin_tools() -> list[Tool]:
    """The built-in tools themselves, every module imported: what the stored data is written
    from."""
    return [load_builtin(name) for name in PLACES]


@cache
def load_builtin(name: str) -> Tool:
    """The built-in tool `name`, its module imported."""
    module, attribute = PLACES[name].split(":")
    found = getattr(import_module(f"{__name__}.{module}"), attribute)
    if not isinstance(found, Tool) or found.name != name:
        raise TypeError(f"{PLACES[name]} is not the tool {name}")
    return found


def _described(name: str) -> Tool:
    stored = stored_tool(name)
    load = partial(load_builtin, name)

    async def handler(ctx: ToolContext, args: Any) -> str | ToolOutput:
        return await load().handler(ctx, args)

    def check(ctx: ToolContext, args: Any) -> None:
        own = load().check
        if own is not None:
            own(ctx, args)

    return Tool(
        name,
        stored["description"],
        ANY_ARGUMENTS,  # the tool's own model checks a call, once `load` gave the tool
        handler,
        stored["read_only"],
        schema=stored["schema"],
        check=check,
        paths=tuple(stored["paths"]),
        load=load,
    )


__all__ = ["PLACES", "builtin_tools", "load_builtin", "loaded_builtin_tools"]
