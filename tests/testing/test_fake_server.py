"""FakeModelServer itself: lifecycle, script, callable turns, concurrency, the request log."""

from __future__ import annotations

import json
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from tether.testing import (
    FakeModelServer,
    RecordedRequest,
    http_error,
    reply,
    text,
    tool_use,
)

HELLO: list[Any] = [{"role": "user", "content": "hello"}]


def post_json(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Authorization": "Bearer k"}
    )
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def test_lifecycle() -> None:
    server = FakeModelServer()
    with pytest.raises(RuntimeError):
        _ = server.url
    with server:
        assert server.url.startswith("http://127.0.0.1:")
        assert server.openai_base_url == server.url + "/v1"
        with pytest.raises(RuntimeError, match="already running"):
            server.start()
    server.stop()  # idempotent
    server.start()  # and restartable
    server.stop()


def test_stop_ends_idle_keep_alive_connections() -> None:
    def handlers() -> set[threading.Thread]:
        return {t for t in threading.enumerate() if "process_request" in t.name}

    others = handlers()  # other tests' servers may still be winding down: not this test's
    server = FakeModelServer().start()
    server.script(text("one"))
    client = anthropic.Anthropic(base_url=server.url, api_key="k")
    client.messages.create(model="m", max_tokens=10, messages=HELLO)
    server.stop()  # returns although the client still holds its pooled connection open
    client.close()
    mine = handlers() - others
    for thread in mine:
        thread.join(timeout=10)  # bounded: a handler stuck on the open connection fails below
    assert not [t for t in mine if t.is_alive()]


def test_stop_interrupts_a_slow_stream() -> None:
    server = FakeModelServer().start()
    server.script(reply(text("x" * 200), delay_s=30))
    client = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
    stream = client.messages.create(model="m", max_tokens=10, messages=HELLO, stream=True)
    assert next(iter(stream)).type == "message_start"
    server.stop()  # returns at once rather than after the paced events
    # The cut stream: httpx's error, which anthropic from 2.17 wraps in its connection error.
    with pytest.raises((httpx2.RemoteProtocolError, anthropic.APIConnectionError)) as cut:
        list(stream)
    if isinstance(cut.value, anthropic.APIConnectionError):
        assert isinstance(cut.value.__cause__, httpx2.RemoteProtocolError)
    client.close()


def test_pending_and_reset(fake_model: FakeModelServer) -> None:
    fake_model.script(text("a"), text("b"))
    assert fake_model.pending() == 2
    post_json(fake_model.url + "/v1/messages", {"model": "m", "max_tokens": 5, "messages": HELLO})
    assert fake_model.pending() == 1
    fake_model.reset()
    assert (fake_model.pending(), fake_model.requests, fake_model.rejections) == (0, [], [])


def test_script_rejects_what_is_not_a_turn(fake_model: FakeModelServer) -> None:
    with pytest.raises(TypeError, match="not a scripted turn"):
        fake_model.script("hello")  # type: ignore[arg-type]


def test_callable_turn_sees_the_request(fake_model: FakeModelServer) -> None:
    def echo(request: RecordedRequest) -> Any:
        return text(f"you said: {request.last_user_text()}")

    fake_model.script(echo, lambda request: http_error(400) if request.index > 5 else echo)
    with anthropic.Anthropic(base_url=fake_model.url, api_key="k") as client:
        replies = [
            client.messages.create(
                model="m", max_tokens=10, messages=[{"role": "user", "content": word}]
            ).content[0]
            for word in ("ping", "pong")
        ]
    assert [r.model_dump(exclude_none=True) for r in replies] == [
        {"type": "text", "text": "you said: ping"},
        {"type": "text", "text": "you said: pong"},
    ]


def test_callable_that_raises_is_reported(fake_model: FakeModelServer) -> None:
    fake_model.expect_rejections = True

    def broken(request: RecordedRequest) -> Any:
        raise ValueError("script bug")

    fake_model.script(broken)
    with (
        anthropic.Anthropic(base_url=fake_model.url, api_key="k", max_retries=2) as client,
        pytest.raises(anthropic.BadRequestError, match="ValueError: script bug"),
    ):
        client.messages.create(model="m", max_tokens=10, messages=HELLO)
    assert len(fake_model.requests) == 1


def test_concurrent_requests_each_take_one_turn(fake_model: FakeModelServer) -> None:
    count = 16
    fake_model.script(*(lambda r: text(f"answer to {r.last_user_text()}") for _ in range(count)))
    with anthropic.Anthropic(base_url=fake_model.url, api_key="k", max_retries=0) as client:

        def ask(number: int) -> str:
            messages = [{"role": "user", "content": f"q{number}"}]
            with client.messages.stream(model="m", max_tokens=10, messages=messages) as stream:
                block = stream.get_final_message().content[0]
            assert block.type == "text"
            return block.text

        with ThreadPoolExecutor(max_workers=8) as pool:
            answers = list(pool.map(ask, range(count)))
    assert answers == [f"answer to q{n}" for n in range(count)]
    assert sorted(r.index for r in fake_model.requests) == list(range(count))
    assert fake_model.pending() == 0


def test_latency_and_count_tokens(fake_model: FakeModelServer) -> None:
    fake_model.latency_s = 0.01
    fake_model.script(text("slow"))
    with anthropic.Anthropic(base_url=fake_model.url, api_key="k") as client:
        client.messages.create(model="m", max_tokens=10, messages=HELLO)
        counted = client.messages.count_tokens(model="m", messages=HELLO)
    assert counted.input_tokens > 0
    assert len(fake_model.requests) == 1  # helper calls are not model turns


def test_unknown_path_is_a_404(fake_model: FakeModelServer) -> None:
    fake_model.expect_rejections = True
    with (
        openai.OpenAI(base_url=fake_model.openai_base_url, api_key="k", max_retries=0) as client,
        pytest.raises(openai.NotFoundError),
    ):
        client.models.list()
    assert [r.status for r in fake_model.rejections] == [404]


def test_recorded_request_readers_anthropic(fake_model: FakeModelServer) -> None:
    fake_model.script(text("ok"))
    body = {
        "model": "m",
        "max_tokens": 10,
        "system": [
            {"type": "text", "text": "You are tether."},
            {"type": "text", "text": "Be kind."},
        ],
        "tools": [
            {"name": "Bash", "input_schema": {"type": "object"}},
            {"name": "Read", "input_schema": {"type": "object"}},
        ],
        "messages": [
            {"role": "user", "content": "list files"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "a", "name": "Bash", "input": {}},
                    {"type": "tool_use", "id": "b", "name": "Read", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "a", "content": "x.py\n"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "b",
                        "content": [{"type": "text", "text": "no such file"}],
                        "is_error": True,
                    },
                    {"type": "text", "text": "reminder"},
                ],
            },
        ],
    }
    post_json(fake_model.url + "/v1/messages", body)
    request = fake_model.requests[0]
    assert (request.wire, request.path, request.index, request.stream) == (
        "anthropic",
        "/v1/messages",
        0,
        False,
    )
    assert request.messages() == body["messages"]
    assert request.system() == "You are tether.\nBe kind."
    assert request.tool_names() == ["Bash", "Read"]
    assert request.tool_results() == ["x.py\n", "no such file"]
    assert request.tool_result_errors() == [False, True]
    assert request.last_user_text() == "reminder"


def test_recorded_request_readers_openai(fake_model: FakeModelServer) -> None:
    fake_model.script(tool_use("Bash", command="ls"))
    call = {"type": "function", "function": {"name": "Bash", "arguments": "{}"}}
    body = {
        "model": "m",
        "tools": [{"type": "function", "function": {"name": "Bash", "parameters": {}}}],
        "messages": [
            {"role": "system", "content": "You are tether."},
            {"role": "user", "content": [{"type": "text", "text": "list files"}]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [call | {"id": "a"}, call | {"id": "b"}],
            },
            {"role": "tool", "tool_call_id": "a", "content": "x.py\n"},
            {"role": "tool", "tool_call_id": "b", "content": "Error: denied"},
        ],
    }
    completion = post_json(fake_model.openai_base_url + "/chat/completions", body)
    assert completion["choices"][0]["finish_reason"] == "tool_calls"
    request = fake_model.requests[0]
    assert request.wire == "openai"
    assert request.system() == "You are tether."
    assert request.tool_names() == ["Bash"]
    assert request.tool_results() == ["x.py\n", "Error: denied"]
    assert request.tool_result_errors() == [False, True]
    assert request.last_user_text() == "list files"
