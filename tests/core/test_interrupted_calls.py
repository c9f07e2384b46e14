"""A stop answers every call the front end was shown, whenever it lands: while the reply that
holds the call still streams, or once it ended and before its calls start. Each answer is
shown as any result (an SDK client counts it in `num_turns`), then the interruption's mark,
as Claude Code writes them; none of the calls runs.

Before, a stop in either moment showed only the mark: the call shown while the reply streamed
was dropped from the conversation, and the one of a finished reply was answered silently. The
stop is sent from the session's own observer, at the event that names the moment, so it lands
there and nowhere else.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tether.cli.setup import RunOptions, build_session
from tether.core.conversation import INTERRUPTED_MARK, INTERRUPTED_TOOLS_MARK
from tether.core.loop import INTERRUPTED
from tether.protocol import (
    BlockCompleted,
    Event,
    Message,
    MessageCompleted,
    TextBlock,
    ToolResultBlock,
    ToolStarted,
    ToolUseBlock,
    TurnFinished,
    UserInput,
)
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.anthropic_wire import pieces

CALL = {"command": "touch ran"}
CLOSED = 3 + 1 + len(pieces(json.dumps(CALL))) + 1
"""The events streamed until the call's block closes: message_start, ping, the block's start,
its input's pieces (the first one empty), its stop."""


async def test_a_stop_while_the_reply_streams_answers_the_call_it_showed(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path
) -> None:
    # The reply holds once its call closed: the stop lands while it streams.
    fake_model.script(reply(tool_use("Bash", **CALL), stall_after=CLOSED), reply(text("after")))
    seen = await _stopped_turn(workspace, lambda e: isinstance(e, BlockCompleted))
    assert seen == [
        Message(role="assistant", content=(ToolUseBlock(id="toolu_1", name="Bash", input=CALL),)),
        _answered("toolu_1"),
        Message(role="user", content=(TextBlock(text=INTERRUPTED_MARK),)),
    ]
    assert not (workspace / "ran").exists()
    [request] = fake_model.requests[1:]
    assert request.tool_results() == [INTERRUPTED]
    assert request.last_user_text() == f"{INTERRUPTED_MARK}\nnext"


async def test_a_stop_once_the_reply_ended_answers_its_calls_before_any_runs(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(reply(tool_use("Bash", **CALL)), reply(text("after")))

    def reply_ended(event: Event) -> bool:
        return isinstance(event, MessageCompleted) and bool(event.message.tool_uses())

    seen = await _stopped_turn(workspace, reply_ended)
    assert seen == [
        Message(role="assistant", content=(ToolUseBlock(id="toolu_1", name="Bash", input=CALL),)),
        _answered("toolu_1"),
        Message(role="user", content=(TextBlock(text=INTERRUPTED_TOOLS_MARK),)),
    ]
    assert not (workspace / "ran").exists()
    [request] = fake_model.requests[1:]
    assert request.tool_results() == [INTERRUPTED]
    assert request.last_user_text() == f"{INTERRUPTED_TOOLS_MARK}\nnext"


def _answered(call_id: str) -> Message:
    return Message(
        role="user",
        content=(ToolResultBlock(tool_use_id=call_id, content=INTERRUPTED, is_error=True),),
    )


async def _stopped_turn(workspace: Path, stop_at: Callable[[Event], bool]) -> list[Message]:
    """A turn stopped at the first event `stop_at` names, then the next turn: the messages
    the stopped turn showed, none of its calls started."""
    session = build_session(RunOptions(cwd=workspace, permission_mode="bypassPermissions"))
    session.observers.append(lambda e: session.interrupt() if stop_at(e) else None)
    try:
        events = [e async for e in session.submit(UserInput(text="go"))]
        session.observers.clear()
        [e async for e in session.submit(UserInput(text="next"))]
    finally:
        await session.aclose()
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    assert finished.error == "interrupted by the user"
    assert not [e for e in events if isinstance(e, ToolStarted)]
    return [e.message for e in events if isinstance(e, MessageCompleted)]
