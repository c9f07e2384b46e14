"""A client's `stop_task` and `set_model` with names tether does not know, answered as the
bundled Claude Code answers them (checked side by side on the fake server): `stop_task` of an
id that names no task is done (nothing to stop; tether says so on stderr), and `set_model` of
a bare name no provider claims is taken, the endpoint of the model in use being its judge.
Before, both raised in the client, and stop_task's error said only background commands could
be stopped (background subagents can be too). The real SDK over the wire."""

from __future__ import annotations

from claude_agent_sdk import ResultMessage

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text


async def test_unknown_names_are_answered_as_claude_code_answers_them(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("one")), reply(text("two")))
    async with sdk.client() as client:
        await client.query("first")
        [m async for m in client.receive_response()]
        await client.stop_task("nope-123")
        await client.set_model("no-such-model-xyz")
        await client.query("second")
        second = [m async for m in client.receive_response()]
    assert [m.result for m in second if isinstance(m, ResultMessage)] == ["two"]
    assert fake_model.requests[-1].body["model"] == "no-such-model-xyz"
    [told] = [line for line in sdk.stderr if "nope-123" in line]
    assert "nothing was stopped" in told
    assert not any("background commands are the tasks" in line for line in sdk.stderr)
    sdk.assert_lines_parse()


async def test_a_name_that_is_no_text_is_still_refused(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("one")), reply(text("two")))
    async with sdk.client() as client:
        await client.query("first")
        [m async for m in client.receive_response()]
        try:
            await client.set_model("bad\x1b[2Jname")
        except Exception as e:  # the SDK raises the control protocol's error as it is
            refused = str(e)
        else:
            refused = ""
        await client.query("second")
        [m async for m in client.receive_response()]
    assert "not printable text" in refused
    assert fake_model.requests[-1].body["model"] != "bad\x1b[2Jname"
