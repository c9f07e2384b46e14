"""Messages typed while the agent works reach the model at its next call, with the tool
results of the step in progress, not after the whole turn."""

from __future__ import annotations

from pathlib import Path

from tether.cli.setup import RunOptions, build_session
from tether.protocol import MessageCompleted, TextBlock, ToolStarted, TurnFinished, UserInput
from tether.testing import FakeModelServer, reply, text, tool_use


async def test_a_steering_message_joins_the_next_call_mid_turn(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(
            tool_use("Bash", command="for i in $(seq 500); do [ -f go ] && break; sleep 0.01; done")
        ),
        reply(tool_use("Bash", command="echo second step")),
        reply(text("done, and used tabs")),
    )
    session = build_session(RunOptions(cwd=workspace, permission_mode="bypassPermissions"))
    events = []
    try:
        async for event in session.submit(UserInput(text="format the code")):
            events.append(event)
            if isinstance(event, ToolStarted) and "seq 500" in event.input["command"]:
                session.steer("use tabs, not spaces")
                assert session.queued == ("use tabs, not spaces",)
                (workspace / "go").touch()
    finally:
        await session.aclose()
    assert isinstance(events[-1], TurnFinished)
    assert events[-1].result == "done, and used tabs"
    second = fake_model.requests[1]
    assert second.last_user_text() == "use tabs, not spaces"
    assert second.tool_result_errors() == [False]
    assert fake_model.requests[2].last_user_text() == ""  # delivered once
    assert session.queued == ()
    delivered = [e for e in events if isinstance(e, MessageCompleted) and e.message.role == "user"]
    assert [m.message.content for m in delivered][1] == (TextBlock(text="use tabs, not spaces"),)


async def test_a_message_queued_between_turns_joins_the_next_prompt(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(reply(text("ok")))
    session = build_session(RunOptions(cwd=workspace, permission_mode="bypassPermissions"))
    session.steer("and be brief")
    session.steer("   ")  # blank: ignored
    try:
        events = [e async for e in session.submit(UserInput(text="hello"))]
    finally:
        await session.aclose()
    assert isinstance(events[-1], TurnFinished)
    assert fake_model.requests[0].last_user_text() == "hello\nand be brief"
