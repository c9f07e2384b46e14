"""The plan a conversation holds: the list of its newest TodoWrite call that succeeded, found
over a whole transcript (`last_plan`) or followed as a resumed session's records stream by
(`PlanTracker`), without holding the messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from tether.protocol import Message
from tether.tools.builtin.todo import TodoWriteInput
from tether.tools.context import TodoItem


def last_plan(messages: Sequence[Message]) -> tuple[TodoItem, ...]:
    """The list of the newest TodoWrite call that succeeded."""
    failed = {r.tool_use_id for m in messages for r in m.tool_results() if r.is_error}
    for message in reversed(messages):
        for call in reversed(message.tool_uses()):
            if call.name != "TodoWrite" or call.id in failed:
                continue
            todos = _todos(call.input)
            if todos is not None:
                return todos
    return ()


def _todos(tool_input: dict[str, Any]) -> tuple[TodoItem, ...] | None:
    """The list a TodoWrite call's input sets; None when it is not a valid one."""
    try:
        todos = TodoWriteInput.model_validate(tool_input).todos
    except ValidationError:
        return None
    return tuple(TodoItem(t.content, t.status, t.active_form) for t in todos)


class PlanTracker:
    """`last_plan` over messages seen one at a time (a user message again each time content
    merges into it), holding only the TodoWrite calls that could still be the newest."""

    def __init__(self) -> None:
        self._calls: list[tuple[str, tuple[TodoItem, ...]]] = []
        """Valid TodoWrite calls no error answered, oldest first, from the newest answered
        without one."""

    def saw(self, message: Message) -> None:
        if message.role == "assistant":
            for call in message.tool_uses():
                todos = _todos(call.input) if call.name == "TodoWrite" else None
                if todos is not None:
                    self._calls.append((call.id, todos))
            return
        results = {r.tool_use_id: r.is_error for r in message.tool_results()}
        self._calls = [(i, call) for i, call in self._calls if not results.get(i, False)]
        answered = [n for n, (i, _) in enumerate(self._calls) if i in results]
        if answered:  # a newer call that succeeded hides every older one
            del self._calls[: answered[-1]]

    def todos(self) -> tuple[TodoItem, ...]:
        return self._calls[-1][1] if self._calls else ()
