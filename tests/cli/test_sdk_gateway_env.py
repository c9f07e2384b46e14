"""Claude Code's variables an SDK program sets through `env=` to reach the API through a
gateway: `ANTHROPIC_AUTH_TOKEN` (bearer auth, no API key needed), `ANTHROPIC_CUSTOM_HEADERS`
(one `Name: value` a line), `CLAUDE_CODE_MAX_RETRIES`, `ANTHROPIC_MODEL`,
`CLAUDE_CODE_MAX_OUTPUT_TOKENS`. The real SDK drives tether over the wire."""

from __future__ import annotations

import pytest
from claude_agent_sdk import SystemMessage

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, http_error, reply, text


async def test_a_bearer_token_alone_is_enough(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("through the gateway")))
    token = fake_model.api_key or "tok-999"
    messages = await sdk.query("hi", env={"ANTHROPIC_API_KEY": "", "ANTHROPIC_AUTH_TOKEN": token})
    assert result_of(messages).result == "through the gateway"
    [sent] = fake_model.requests
    assert sent.headers["authorization"] == f"Bearer {token}"
    assert "x-api-key" not in sent.headers


async def test_custom_headers_are_sent(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("a")))
    headers = "X-Proxy-Tag: abc123\n\n  X-Team :  core tools  \n"
    await sdk.query("hi", env={"ANTHROPIC_CUSTOM_HEADERS": headers})
    [sent] = fake_model.requests
    assert sent.headers["x-proxy-tag"] == "abc123"
    assert sent.headers["x-team"] == "core tools"


async def test_a_line_that_is_no_header_is_said(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("never sent")))
    said = "ANTHROPIC_CUSTOM_HEADERS line 2 is not a header"
    with pytest.raises(Exception, match=said):
        await sdk.query("hi", env={"ANTHROPIC_CUSTOM_HEADERS": "X-Ok: 1\nno colon here"})
    assert fake_model.requests == []
    fake_model.reset()


async def test_max_retries_bounds_the_attempts(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    overloaded = http_error(529, "Overloaded", "overloaded_error")
    fake_model.script(overloaded, overloaded, overloaded, overloaded)
    fake_model.expect_rejections = True
    messages: list[object] = []
    env = {"CLAUDE_CODE_MAX_RETRIES": "2", "TETHER_RETRY_DELAY_MS": "1"}

    async def read() -> None:
        async for message in sdk.stream("hi", env=env):
            messages.append(message)

    with pytest.raises(Exception, match="API Error"):
        await read()
    # As Claude Code: 2 retries are 3 requests, each retry told on an api_retry line.
    assert len(fake_model.requests) == 3
    retries = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "api_retry"]
    assert [m.data["max_retries"] for m in retries] == [2, 2]
    fake_model.reset()


async def test_anthropic_model_and_output_cap(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("a")))
    await sdk.query(
        "hi",
        env={"ANTHROPIC_MODEL": "claude-haiku-4-5", "CLAUDE_CODE_MAX_OUTPUT_TOKENS": "1234"},
    )
    [sent] = fake_model.requests
    assert (sent.body["model"], sent.body["max_tokens"]) == ("claude-haiku-4-5", 1234)
