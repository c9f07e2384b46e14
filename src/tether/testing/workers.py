"""A model for many workers sharing one fake server: each request is answered from the task
its session works on (named in the session's first message, "task #N"), not from the order
requests arrive in.

    fake.responder = task_answers(lambda task_id, request: text(f"done {task_id}"))
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tether.testing.recorded import RecordedRequest, content_text
from tether.testing.script import Turn, text

_TASK = re.compile(r"task #(\d+)")


def task_of(request: RecordedRequest) -> str | None:
    """The id of the task whose session sent `request` (from its first message)."""
    messages = request.messages()
    if not messages:
        return None
    found = _TASK.search(content_text(messages[0].get("content")))
    return found.group(1) if found else None


def is_first_call(request: RecordedRequest) -> bool:
    """Whether `request` opens its session's turn (no tool results answered yet)."""
    return len(request.messages()) == 1


def task_answers(answer: Callable[[str, RecordedRequest], Turn]) -> Callable[..., Turn]:
    """A responder: `answer(task_id, request)` for requests of a task's session."""

    def respond(request: RecordedRequest) -> Turn:
        task_id = task_of(request)
        if task_id is None:
            return text("no task named in this session")
        return answer(task_id, request)

    return respond


def done_text(task_id: str, request: RecordedRequest) -> Turn:
    """The plainest task: answered at once with `done task N`."""
    return text(f"done task {task_id}")
