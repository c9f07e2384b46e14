"""Failures the fake server plays: HTTP errors, cut streams, in-stream errors, bad keys."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx2
import openai
import pytest

from tether.testing import FakeModelServer, http_error, reply, text, tool_use

HELLO: list[Any] = [{"role": "user", "content": "hello"}]


def claude(server: FakeModelServer, **options: Any) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.url, **({"api_key": "k"} | options))


def gpt(server: FakeModelServer, **options: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.openai_base_url, **({"api_key": "k"} | options))


@pytest.mark.parametrize(("status", "kind"), [(429, "rate_limit_error"), (529, "overloaded_error")])
def test_sdk_retries_an_http_error_then_succeeds(
    fake_model: FakeModelServer, status: int, kind: str
) -> None:
    fake_model.script(http_error(status, retry_after_ms=5), text("recovered"))
    with claude(fake_model, max_retries=2) as client:
        message = client.messages.create(model="m", max_tokens=10, messages=HELLO)
    assert message.content[0].model_dump(exclude_none=True) == {"type": "text", "text": "recovered"}
    assert len(fake_model.requests) == 2
    assert fake_model.rejections == []


def test_http_error_shape_and_headers(fake_model: FakeModelServer) -> None:
    fake_model.script(http_error(529, retry_after_ms=1500))
    with (
        claude(fake_model, max_retries=0) as client,
        pytest.raises(anthropic.APIStatusError) as raised,
    ):
        client.messages.create(model="m", max_tokens=10, messages=HELLO)
    error = raised.value
    assert error.status_code == 529
    assert error.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
        "request_id": "req_0",
    }
    assert error.response.headers["retry-after-ms"] == "1500"
    assert error.response.headers["retry-after"] == "2"
    assert error.response.headers["request-id"] == "req_0"


def test_openai_sdk_retries_too(fake_model: FakeModelServer) -> None:
    fake_model.script(http_error(429, "slow down"), http_error(500), text("ok"))
    with gpt(fake_model, max_retries=2) as client:
        completion = client.chat.completions.create(model="m", messages=HELLO)
    assert completion.choices[0].message.content == "ok"
    assert len(fake_model.requests) == 3


def test_openai_error_shape(fake_model: FakeModelServer) -> None:
    fake_model.script(http_error(429, "slow down"))
    with gpt(fake_model, max_retries=0) as client, pytest.raises(openai.RateLimitError) as raised:
        client.chat.completions.create(model="m", messages=HELLO)
    assert raised.value.body == {
        "message": "slow down",
        "type": "rate_limit_error",
        "param": None,
        "code": "rate_limit_exceeded",
    }


def test_abrupt_cut_raises_in_the_sdk(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("a long answer that will not arrive whole"), cut_after=4))
    with claude(fake_model, max_retries=0) as client:
        stream = client.messages.create(model="m", max_tokens=10, messages=HELLO, stream=True)
        seen: list[str] = []
        with pytest.raises((httpx2.HTTPError, anthropic.APIError)):
            seen.extend(event.type for event in stream)
    assert seen == ["message_start", "content_block_start", "content_block_delta"]


def test_abrupt_cut_raises_in_the_openai_sdk(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("a long answer that will not arrive whole"), cut_after=2))
    with gpt(fake_model, max_retries=0) as client:
        stream = client.chat.completions.create(model="m", messages=HELLO, stream=True)
        with pytest.raises(openai.APIConnectionError):
            list(stream)


def test_clean_cut_ends_without_message_stop(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(tool_use("Bash", command="rm -rf build"), cut_after=5, clean_cut=True))
    with (
        claude(fake_model, max_retries=0) as client,
        client.messages.stream(model="m", max_tokens=10, messages=HELLO) as stream,
    ):
        kinds = [event.type for event in stream]
        message = stream.get_final_message()
    assert "message_stop" not in kinds
    assert message.stop_reason is None  # the SDK does not notice: the caller must


def test_cut_never_sends_the_final_event(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("hi"), cut_after=1000, clean_cut=True))
    with gpt(fake_model, max_retries=0) as client:
        chunks = list(client.chat.completions.create(model="m", messages=HELLO, stream=True))
    assert chunks  # all chunks but [DONE]: the SDK ends quietly, as with a real cut
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_stream_error_raises(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("partial"), stream_error="overloaded_error"))
    with (
        claude(fake_model, max_retries=0) as client,
        client.messages.stream(model="m", max_tokens=10, messages=HELLO) as stream,
        pytest.raises(anthropic.APIStatusError) as raised,
    ):
        stream.get_final_message()
    assert raised.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }


def test_openai_stream_error_raises(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("partial"), stream_error="api_error", cut_after=2))
    with gpt(fake_model, max_retries=0) as client:
        stream = client.chat.completions.create(model="m", messages=HELLO, stream=True)
        with pytest.raises(openai.APIError, match="Internal server error"):
            list(stream)


def test_wrong_key_is_refused(fake_model: FakeModelServer) -> None:
    fake_model.expect_rejections = True
    fake_model.api_key = "right"
    fake_model.script(text("for the right key"))
    with (
        claude(fake_model, api_key="wrong", max_retries=0) as client,
        pytest.raises(anthropic.AuthenticationError, match="invalid x-api-key"),
    ):
        client.messages.create(model="m", max_tokens=10, messages=HELLO)
    with (
        gpt(fake_model, api_key="wrong", max_retries=0) as client,
        pytest.raises(openai.AuthenticationError, match="Incorrect API key"),
    ):
        client.chat.completions.create(model="m", messages=HELLO)
    with claude(fake_model, api_key="right") as client:
        client.messages.create(model="m", max_tokens=10, messages=HELLO)
    assert [r.status for r in fake_model.rejections] == [401, 401]
    assert fake_model.pending() == 0


def test_x_api_key_header_is_accepted(fake_model: FakeModelServer) -> None:
    fake_model.script(text("ok"))
    with claude(fake_model, api_key=None, default_headers={"x-api-key": "k"}) as client:
        client.messages.create(model="m", max_tokens=10, messages=HELLO)
    assert fake_model.requests[0].headers["x-api-key"] == "k"


def test_exhausted_script_is_a_400_not_a_retry(fake_model: FakeModelServer) -> None:
    fake_model.expect_rejections = True
    fake_model.script(text("only one"))
    with claude(fake_model, max_retries=3) as client:
        client.messages.create(model="m", max_tokens=10, messages=HELLO)
        with pytest.raises(
            anthropic.BadRequestError, match=r"no scripted turn left for request #1"
        ):
            client.messages.create(model="m", max_tokens=10, messages=HELLO)
    assert len(fake_model.requests) == 2
    assert [r.index for r in fake_model.rejections] == [1]


def test_cut_and_stream_error_on_non_streaming_requests(fake_model: FakeModelServer) -> None:
    fake_model.script(
        reply(text("never whole"), cut_after=0),
        reply(text("never sent"), stream_error="overloaded_error"),
    )
    with claude(fake_model, max_retries=0) as client:
        with pytest.raises(anthropic.APIConnectionError):
            client.messages.create(model="m", max_tokens=10, messages=HELLO)
        with pytest.raises(anthropic.InternalServerError, match="Overloaded"):
            client.messages.create(model="m", max_tokens=10, messages=HELLO)
    assert fake_model.pending() == 0
