"""What the tests of background subagents share: a fake model that answers the main agent and
the subagent by whose request it is, and the Task call that starts one in the background."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from claude_agent_sdk import Message, SystemMessage

from tether.testing import FakeModelServer, Turn, tool_use
from tether.testing.recorded import RecordedRequest, content_text

SUBTASK = "SUBTASK: look for the answer"
WAIT_FOR_GO = "while [ ! -f go ]; do sleep 0.05; done"
FOREVER = "touch sub-started; while true; do sleep 0.05; done"
WOKEN = "[SYSTEM NOTIFICATION - NOT USER INPUT]"
"""How the prompt of a turn a background subagent's end wakes begins (Claude Code's)."""


def is_subagent(request: RecordedRequest) -> bool:
    messages = request.messages()
    return bool(messages) and SUBTASK in content_text(messages[0].get("content"))


def replies(main: list[Turn], sub: list[Turn], on_main: Callable[[int], None] | None = None) -> Any:
    """Answers by whose request it is: the main agent's and the subagent's steps (counted by
    the replies already in the conversation), whatever order their requests come in;
    `on_main` is told each main step as it is answered."""

    def respond(request: RecordedRequest) -> Turn:
        subagent = is_subagent(request)
        steps = sub if subagent else main
        done = sum(1 for m in request.messages() if m.get("role") == "assistant")
        if not subagent and on_main is not None:
            on_main(done)
        return steps[min(done, len(steps) - 1)]

    return respond


def launch() -> Turn:
    return tool_use(
        "Task",
        description="find the answer",
        prompt=SUBTASK,
        subagent_type="general-purpose",
        run_in_background=True,
    )


def task_lines(messages: list[Message]) -> list[dict[str, Any]]:
    return [
        m.data
        for m in messages
        if isinstance(m, SystemMessage)
        and (m.subtype.startswith("task_") or m.subtype == "background_tasks_changed")
    ]


def main_requests(fake_model: FakeModelServer) -> list[RecordedRequest]:
    return [r for r in fake_model.requests if not is_subagent(r)]
