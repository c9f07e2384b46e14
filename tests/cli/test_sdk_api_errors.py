"""A turn the model API refused, with the real Claude Agent SDK over the wire: as Claude Code,
an assistant message with `error` set (its class, for programs that branch on it) and a result
with `api_error_status` and `api_error_type`."""

from __future__ import annotations

from typing import Any

import pytest
from claude_agent_sdk import AssistantMessage, ResultMessage

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, http_error


async def _messages(sdk: SdkRun, **overrides: Any) -> list[Any]:
    seen: list[Any] = []

    async def read() -> None:
        async for message in sdk.stream("hi", **overrides):
            seen.append(message)

    with pytest.raises(Exception, match="API Error"):
        await read()
    return seen


@pytest.mark.parametrize(
    ("status", "error_type", "error_class"),
    [
        (400, "invalid_request_error", "unknown"),
        (401, "authentication_error", "authentication_failed"),
        (429, "rate_limit_error", "rate_limit"),
        (500, "api_error", "server_error"),
    ],
)
async def test_an_api_error_is_an_assistant_error_and_a_result_status(
    sdk: SdkRun, fake_model: FakeModelServer, status: int, error_type: str, error_class: str
) -> None:
    fake_model.script(*[http_error(status, "messages: custom bad thing", error_type)] * 12)
    seen = await _messages(sdk, env={"TETHER_RETRY_DELAY_MS": "1"})
    [assistant] = [m for m in seen if isinstance(m, AssistantMessage)]
    assert assistant.error == error_class
    [block] = assistant.content
    # The API's message alone, as Claude Code: it said tether's line (provider, endpoint).
    assert getattr(block, "text", "") == f"API Error: {status} messages: custom bad thing"
    assert assistant.model == "<synthetic>"
    [result] = [m for m in seen if isinstance(m, ResultMessage)]
    assert result.is_error
    [line] = [line for line in sdk.lines() if line["type"] == "result"]
    assert (line["api_error_status"], line["api_error_type"]) == (status, error_type)
    assert line["terminal_reason"] == "api_error"
    assert line["result"] == getattr(block, "text", "")
    sdk.assert_lines_parse()


async def test_a_request_too_large_is_told_as_claude_code_tells_it_after_one_request(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    too_large = http_error(413, "Request exceeds the maximum size", "request_too_large")
    fake_model.script(too_large, too_large, too_large)
    fake_model.expect_rejections = True
    seen: list[Any] = []

    async def read() -> None:
        async for message in sdk.stream("hi", env={"TETHER_RETRY_DELAY_MS": "1"}):
            seen.append(message)

    with pytest.raises(Exception, match="Request too large"):
        await read()
    # Before: taken as a prompt too long: cut, compacted, sent 3 times, told with status 400.
    assert len(fake_model.requests) == 1
    [assistant] = [m for m in seen if isinstance(m, AssistantMessage)]
    assert assistant.error == "invalid_request"
    [block] = assistant.content
    assert getattr(block, "text", "").startswith("Request too large (max 32MB). Accumulated")
    [line] = [line for line in sdk.lines() if line["type"] == "result"]
    assert (line["api_error_status"], line["api_error_type"]) == (413, "request_too_large")
    assert line["result"] == getattr(block, "text", "")
    fake_model.reset()
