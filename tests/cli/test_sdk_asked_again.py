"""Failures Claude Code asks about once more, at once and untold (no `api_retry` line), with
the real Claude Agent SDK over the wire, as the bundled Claude Code CLI takes them on the same
fake API: an error event inside a 200 stream, whatever its type (`invalid_request_error`,
`permission_error`...), and a 404. A second answer that is whole is the turn's; a second
failure is final, told as its status."""

from __future__ import annotations

from typing import Any

import pytest
from claude_agent_sdk import AssistantMessage, ResultMessage, SystemMessage, TextBlock

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, http_error, reply, text

MODEL = "claude-sonnet-4-5"


def kinds(messages: list[Any]) -> list[tuple[str, str | None]]:
    return [(type(m).__name__, getattr(m, "subtype", None)) for m in messages]


@pytest.mark.parametrize(
    "error_type",
    ["invalid_request_error", "permission_error", "not_found_error", "request_too_large"],
)
async def test_an_error_event_of_any_type_is_tried_once_more(
    sdk: SdkRun, fake_model: FakeModelServer, error_type: str
) -> None:
    fake_model.script(reply(text("partial"), stream_error=error_type), reply(text("second")))
    messages = await sdk.query("go", model=MODEL, permission_mode="bypassPermissions")
    # Before: the first error event ended the turn as an HTTP 400 (1 request, `API Error`).
    assert len(fake_model.requests) == 2
    assert kinds(messages) == [
        ("SystemMessage", "init"),
        ("AssistantMessage", None),
        ("ResultMessage", "success"),
    ]
    [answer] = [m for m in messages if isinstance(m, AssistantMessage)]
    assert (answer.model, answer.content, answer.error) == (MODEL, [TextBlock("second")], None)
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert (result.is_error, result.result, result.terminal_reason, result.num_turns) == (
        False,
        "second",
        "completed",
        1,
    )
    sdk.assert_lines_parse()


async def test_a_second_error_event_is_final_with_its_type(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    failing = reply(text("partial"), stream_error="invalid_request_error")
    fake_model.script(failing, failing, reply(text("third")))
    seen: list[Any] = []

    async def read() -> None:
        async for message in sdk.stream("go", model=MODEL, permission_mode="bypassPermissions"):
            seen.append(message)

    with pytest.raises(Exception, match="API Error: 400 Invalid request"):
        await read()
    assert len(fake_model.requests) == 2
    assert not [m for m in seen if isinstance(m, SystemMessage) and m.subtype == "api_retry"]
    [line] = [line for line in sdk.lines() if line["type"] == "result"]
    assert {k: line[k] for k in ("subtype", "is_error", "result", "terminal_reason")} | {
        "status": (line["api_error_status"], line["api_error_type"])
    } == {
        "subtype": "success",
        "is_error": True,
        "result": "API Error: 400 Invalid request",
        "terminal_reason": "api_error",
        # Before: the type the API named was lost (`api_error_type: null`).
        "status": (400, "invalid_request_error"),
    }
    fake_model.reset()


async def test_a_model_not_found_once_then_an_answer_is_the_answer(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(http_error(404, "model: claude-sonnet-4-5"), reply(text("second")))
    fake_model.expect_rejections = True
    messages = await sdk.query("go", model=MODEL, permission_mode="bypassPermissions")
    # Before: the 404 was final (1 request, "There's an issue with the selected model").
    assert len(fake_model.requests) == 2
    assert kinds(messages) == [
        ("SystemMessage", "init"),
        ("AssistantMessage", None),
        ("ResultMessage", "success"),
    ]
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert (result.is_error, result.result, result.terminal_reason) == (
        False,
        "second",
        "completed",
    )


async def test_an_error_event_after_a_whole_block_is_final(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    """Claude Code asks again only while nothing of the answer was told: once a block closed
    (its assistant line written), the error ends the turn."""
    cut = reply(text("partial"), text("more"), stream_error="invalid_request_error", cut_after=5)
    fake_model.script(cut, reply(text("second")))

    async def read() -> None:
        async for _ in sdk.stream("go", model=MODEL, permission_mode="bypassPermissions"):
            pass

    with pytest.raises(Exception, match="Invalid request"):
        await read()
    assert len(fake_model.requests) == 1
    told = [line["message"]["content"] for line in sdk.lines() if line["type"] == "assistant"]
    assert told[0] == [{"type": "text", "text": "partial"}]
    fake_model.reset()
