"""A tool is a typed async function: spec (what the model sees) apart from handler (what runs)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any, Final, get_type_hints

from tether.protocol import ImageBlock, ToolSpec
from tether.slotted import Slotted
from tether.tools.context import ToolContext

if TYPE_CHECKING:
    from pydantic import BaseModel

ANY_ARGUMENTS = "tether.tools.any_arguments:AnyArguments"
"""The input model of a tool whose schema is checked by the tool itself (`Tool.schema`)."""


class ToolOutput(Slotted):
    """What a handler returns when it has more than text to give: a diff for display, and what
    it did as data."""

    __slots__ = ("diff", "full_chars", "images", "structured", "text")
    text: Final[str]
    """What the model reads."""
    images: Final[tuple[ImageBlock, ...]]
    """Images the model sees beside the text (a picture Read opened, an MCP tool's)."""
    diff: Final[str | None]
    structured: Final[Any]
    """What the call did, as JSON data in Claude Code's shape for the tool (its
    `tool_use_result`: Bash's `stdout`/`stderr`, Read's `file`, Edit's `structuredPatch`...):
    what PostToolUse hooks get as `tool_response` and SDK clients as `tool_use_result`. None: the
    text stands for it."""
    full_chars: Final[int | None]
    """When the tool already cut `text` to a limit of its own: how long the output was, for
    the note of any further cut to state (the model is told the original size, not the size of
    the cut text)."""

    def __init__(
        self,
        text: str,
        images: tuple[ImageBlock, ...] = (),
        diff: str | None = None,
        structured: Any = None,
        full_chars: int | None = None,
    ) -> None:
        self.text = text
        self.images = images
        self.diff = diff
        self.structured = structured
        self.full_chars = full_chars


Handler = Callable[[ToolContext, Any], Awaitable[str | ToolOutput]]
Check = Callable[[ToolContext, Any], None]
"""A tool's preconditions on its validated input that need no side effect (the file was read,
the text to replace is there): raises `ToolError` for a call that could not run, so that
nobody is asked to approve it."""


class Tool(Slotted):
    __slots__ = (
        "check",
        "description",
        "handler",
        "input_model",
        "load",
        "name",
        "paths",
        "read_only",
        "rerun_after_crash",
        "schema",
    )
    name: Final[str]
    description: Final[str]
    input_model: Final[type[BaseModel] | str]
    """The pydantic model a call's arguments are checked with, or its place (`module:Class`),
    imported at the tool's first call: pydantic is not imported on the way to the first
    request."""
    handler: Final[Handler]
    read_only: Final[bool]
    schema: Final[dict[str, Any] | None]
    """The JSON schema the model sees, when it is not the input model's own: a tool defined
    elsewhere (an MCP server's), whose input model takes any object and leaves checking the
    arguments to the tool."""
    check: Final[Check | None]
    paths: Final[tuple[str, ...]]
    """Input fields that name a file or directory: hooks, permission rules and the user see
    them as the absolute path the call will touch (see `ToolRegistry.observed_input`)."""
    load: Final[Callable[[], Tool] | None]
    """Set on a tool described ahead of its code (tether's own, `tether.tools.builtin`): imports
    its module and gives the tool itself, whose input model, handler and check are the ones to
    use. The registry calls it at the tool's first call."""
    rerun_after_crash: Final[bool]
    """A call of it that a killed process left unfinished runs again when the session is
    resumed, rather than being answered that its outcome is unknown: only a tool of tether's
    own that makes its effect once however often it runs (`SendMessage`: its messages' ids
    derive from the call's)."""

    def __init__(
        self,
        name: str,
        description: str,
        input_model: type[BaseModel] | str,
        handler: Handler,
        read_only: bool,
        schema: dict[str, Any] | None = None,
        check: Check | None = None,
        paths: tuple[str, ...] = (),
        load: Callable[[], Tool] | None = None,
        rerun_after_crash: bool = False,
    ) -> None:
        self.name = name
        self.description = description
        self.input_model = input_model
        self.handler = handler
        self.read_only = read_only
        self.schema = schema
        self.check = check
        self.paths = paths
        self.load = load
        self.rerun_after_crash = rerun_after_crash

    def loaded(self) -> Tool:
        """The tool whose input model, handler and check run a call."""
        return self if self.load is None else self.load()

    def model(self) -> type[BaseModel]:
        """The input model, imported when `input_model` names its place."""
        if not isinstance(self.input_model, str):
            return self.input_model
        module, name = self.input_model.split(":")
        found: type[BaseModel] = getattr(import_module(module), name)
        return found

    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name,
            description=self.description,
            input_schema=self.schema if self.schema is not None else input_schema(self.input_model),
        )


def tool(
    name: str,
    *,
    read_only: bool,
    check: Check | None = None,
    paths: tuple[str, ...] = (),
    rerun_after_crash: bool = False,
) -> Callable[[Handler], Tool]:
    """Make a `Tool` from `async def handler(ctx, args: InputModel)`; its docstring is the
    description the model reads. `check` runs before the permission question (see `Check`);
    the handler must still check for itself, as things may change in between. `paths` names
    the input fields that are paths (see `Tool.paths`)."""

    def wrap(handler: Handler) -> Tool:
        from pydantic import BaseModel

        hints = get_type_hints(handler)
        params = list(inspect.signature(handler).parameters)
        input_model = hints[params[1]]
        if not (isinstance(input_model, type) and issubclass(input_model, BaseModel)):
            raise TypeError(f"{name}: the second parameter must be annotated with a pydantic model")
        description = inspect.cleandoc(handler.__doc__ or "")
        if not description:
            raise TypeError(f"{name}: the handler needs a docstring; it is the tool's description")
        return Tool(
            name,
            description,
            input_model,
            handler,
            read_only,
            check=check,
            paths=paths,
            rerun_after_crash=rerun_after_crash,
        )

    return wrap


def input_schema(model: type[BaseModel] | str) -> dict[str, Any]:
    """The JSON schema the model sees: aliases as names, no pydantic titles. Stored for
    tether's own tools (see `tether.tools.schema_store`)."""
    from tether.tools.schema_store import stored_schema

    stored = stored_schema(model)
    if stored is not None:
        return stored
    if isinstance(model, str):
        module, name = model.split(":")
        model = getattr(import_module(module), name)
    return generated_schema(model)  # pyright: ignore[reportArgumentType]


def generated_schema(model: type[BaseModel]) -> dict[str, Any]:
    """`input_schema` as pydantic makes it from the model."""
    return _strip_titles(model.model_json_schema(by_alias=True))


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: _strip_titles(v)
            for k, v in node.items()
            if not (k == "title" and isinstance(v, str))
        }
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node
