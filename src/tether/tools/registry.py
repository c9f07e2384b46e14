"""The registry: which tools exist, what the model is offered, and running one call safely."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from tether.protocol import BareToolError, ImageBlock, ToolError, ToolSpec, ToolUseBlock
from tether.protocol.tool_names import canonical_tool
from tether.slotted import Slotted
from tether.tools.base import Tool, ToolOutput
from tether.tools.context import ToolContext
from tether.tools.deferred import DeferredTools
from tether.tools.input_text import find_unencodable
from tether.tools.os_errors import describe_os_error

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

MAX_RESULT_CHARS = 100_000


class ToolOutcome(Slotted):
    __slots__ = ("content", "diff", "duration_ms", "images", "is_error", "structured")
    content: Final[str]
    is_error: Final[bool]
    diff: Final[str | None]
    duration_ms: Final[int]
    structured: Final[Any]
    """What the call did as data (`ToolOutput.structured`); None for an error."""
    images: Final[tuple[ImageBlock, ...]]

    def __init__(
        self,
        content: str,
        is_error: bool,
        diff: str | None = None,
        duration_ms: int = 0,
        structured: Any = None,
        images: tuple[ImageBlock, ...] = (),
    ) -> None:
        self.content = content
        self.is_error = is_error
        self.diff = diff
        self.duration_ms = duration_ms
        self.structured = structured
        self.images = images


class ToolRegistry:
    """The tools the model is offered, plus those it reaches through ToolSearch and CallTool
    (`deferred`): not offered, but run, permitted and hooked under their own names."""

    def __init__(self, tools: Iterable[Tool], deferred: DeferredTools | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self.deferred = deferred or DeferredTools(())
        for t in tools:
            if t.name in self._tools or self.deferred.get(t.name) is not None:
                raise ValueError(f"tool {t.name!r} registered twice")
            self._tools[t.name] = t
        # Built once: the schemas are part of the cached prompt prefix and never change.
        self._specs = tuple(t.spec() for t in self._tools.values())

    def names(self) -> tuple[str, ...]:
        return tuple(self._tools)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name) or self.deferred.get(name)

    def all_tools(self) -> list[Tool]:
        """Offered and deferred."""
        return [
            *self._tools.values(),
            *(t for n in self.deferred.names() if (t := self.deferred.get(n))),
        ]

    def resolve(self, call: ToolUseBlock) -> ToolUseBlock:
        """The call as it runs: a CallTool call becomes the call of the tool it names, and a
        call by another name of a tool (Claude Code's `Agent` for `Task`, as it accepts its
        tools' old names) the call of that tool, judged by rules and hooks under its name."""
        if self.get(call.name) is None and self.get(canonical := canonical_tool(call.name)):
            return call.model_copy(update={"name": canonical})
        return self.deferred.resolve(call)

    def specs(self) -> tuple[ToolSpec, ...]:
        return self._specs

    async def run(self, call: ToolUseBlock, ctx: ToolContext) -> ToolOutcome:
        """Run one call. Anything the model got wrong comes back as an error outcome, and so
        does what the system refused a tool's own setup (an `OSError` the tool did not word:
        its scratch directory, a log, a lock); other exceptions are bugs and propagate."""
        started = time.perf_counter()
        try:
            output = await self._run(call, ctx)
        except ToolError as e:
            said = str(e) if isinstance(e, BareToolError) else f"Error: {e}"
            return ToolOutcome(said, True, None, _ms_since(started))
        except OSError as e:
            where = f" ({e.filename})" if e.filename else ""
            said = describe_os_error(e, f"run {call.name}{where}")
            return ToolOutcome(f"Error: {said}", True, None, _ms_since(started))
        if not isinstance(output, ToolOutput):
            output = ToolOutput(output)
        text = output.text
        if len(text) > MAX_RESULT_CHARS:
            full = max(output.full_chars or 0, len(text))
            text = (
                text[:MAX_RESULT_CHARS]
                + f"\n[tool output cut at {MAX_RESULT_CHARS:,} of {full:,} characters]"
            )
        return ToolOutcome(
            text, False, output.diff, _ms_since(started), output.structured, output.images
        )

    def observed_input(self, call: ToolUseBlock, ctx: ToolContext) -> dict[str, Any]:
        """The call's input as hooks, permission rules and the user judge it: each path field
        of the tool (`Tool.paths`) made the absolute path the call will touch, resolved the
        way the tool resolves it. A path that cannot be resolved is left as given (the tool
        reports it). The model's own call, in the history, keeps what it wrote."""
        tool = self.get(call.name)
        if tool is None or not tool.paths:
            return dict(call.input)
        observed = dict(call.input)
        for field in tool.paths:
            value = observed.get(field)
            if not isinstance(value, str) or not value:
                continue
            try:
                # As text that can be shown: the tool finds a name that is not UTF-8 itself.
                observed[field] = str(ctx.resolve(value, byte_names=False))
            except (ToolError, OSError, RuntimeError):
                continue
        return observed

    def check(
        self, call: ToolUseBlock, ctx: ToolContext, *, preconditions: bool = True
    ) -> ToolOutcome | None:
        """The error outcome of a call that could not run (an unknown tool, arguments that are
        not valid and, with `preconditions`, a precondition of the tool's own that fails),
        found without running anything; None when it could run. Used before the permission
        question: nobody should approve a call that cannot happen."""
        try:
            tool, args = self._validated(call)
            if preconditions and tool.check is not None:
                tool.check(ctx, args)
        except ToolError as e:
            return ToolOutcome(f"Error: {e}", True)
        return None

    async def _run(self, call: ToolUseBlock, ctx: ToolContext) -> str | ToolOutput:
        tool, args = self._validated(call)
        return await tool.handler(ctx, args)

    def _validated(self, call: ToolUseBlock) -> tuple[Tool, BaseModel]:
        found = self.get(call.name)
        if found is None:
            available = ", ".join(self._tools) or "none"
            raise ToolError(f"No such tool: {call.name!r}. Available tools: {available}.")
        tool = found.loaded()
        if call.input_error is not None:
            raise ToolError(
                f"The arguments for {call.name} were not a valid JSON object ({call.input_error}). "
                "Call the tool again with a JSON object matching its schema."
            )
        if call.input_refused is not None:
            raise ToolError(f"Invalid input for {call.name}: {call.input_refused}.")
        unencodable = find_unencodable(call.input)
        if unencodable is not None:
            raise ToolError(f"Invalid input for {call.name}: {unencodable.describe()}.")
        from pydantic import ValidationError  # at the first call: not before the first request

        try:
            args = tool.model().model_validate(call.input)
        except ValidationError as e:
            raise ToolError(
                f"Invalid input for {call.name}: {describe_validation_error(e)}"
            ) from None
        return tool, args


def describe_validation_error(error: ValidationError) -> str:
    """One line per problem, naming the field: what a model can act on."""
    parts: list[str] = []
    for item in error.errors(include_url=False):
        where = ".".join(str(p) for p in item["loc"]) or "input"
        if item["type"] == "extra_forbidden":
            parts.append(f"unexpected field {where!r}")
        elif item["type"] == "missing":
            parts.append(f"missing required field {where!r}")
        else:
            given = json.dumps(item.get("input"), default=str)[:80]
            parts.append(f"{where}: {item['msg']} (got {given})")
    return "; ".join(parts)


def _ms_since(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)
