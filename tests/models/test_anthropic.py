"""AnthropicModel over the wire against the fake server."""

from __future__ import annotations

from tether.models.anthropic import AnthropicModel
from tether.models.base import (
    ModelRequest,
    ResponseDone,
    ResponseStarted,
    TextChunk,
    ThinkingChunk,
)
from tether.models.tool_arguments import MAX_TOKENS_CUT
from tether.protocol import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from tether.testing import (
    FakeModelServer,
    http_error,
    raw_tool_use,
    reply,
    text,
    thinking,
    tool_use,
)

from .streams import (
    TOOLS,
    ask,
    call_with_retries,
    count_cache_controls,
    finish,
    run,
)

USAGE = {
    "input_tokens": 12,
    "output_tokens": 34,
    "cache_creation_input_tokens": 500,
    "cache_read_input_tokens": 7000,
}


def claude(server_url: str, *, api_key: str = "test-key") -> AnthropicModel:
    return AnthropicModel(model="claude-sonnet-5-5", api_key=api_key, base_url=server_url)


async def test_thinking_text_and_tool_call_make_one_message(fake_model: FakeModelServer) -> None:
    fake_model.script(
        reply(
            thinking("The user wants a listing.", signature="sig-7"),
            text("Let me look at the directory first."),
            tool_use("Bash", command="ls -la", id="toolu_a"),
            usage=USAGE,
        )
    )
    events, error = await run(claude(fake_model.url), ask(tools=TOOLS))
    assert error is None
    # The start comes first: the endpoint's ids, and the input and cache counts already known.
    start_usage = Usage(
        **{**USAGE, "output_tokens": 1},
        ephemeral_5m_input_tokens=USAGE["cache_creation_input_tokens"],
        ephemeral_1h_input_tokens=0,
        service_tier="standard",
    )
    assert events[0] == ResponseStarted("started", "msg_1", "req_0", start_usage)
    chunks = events[1:-1]
    assert not any(isinstance(c, ResponseStarted) for c in chunks)
    assert "".join(c.text for c in chunks if isinstance(c, ThinkingChunk)) == (
        "The user wants a listing."
    )
    assert "".join(c.text for c in chunks if isinstance(c, TextChunk)) == (
        "Let me look at the directory first."
    )
    assert events[-1] == ResponseDone(
        kind="done",
        message=Message(
            role="assistant",
            content=(
                ThinkingBlock(thinking="The user wants a listing.", signature="sig-7"),
                TextBlock(text="Let me look at the directory first."),
                ToolUseBlock(id="toolu_a", name="Bash", input={"command": "ls -la"}),
            ),
        ),
        stop_reason="tool_use",
        # The API's, read: of the output, the tokens thought with (the fake's estimate).
        usage=start_usage.model_copy(update={"output_tokens": 34, "thinking_tokens": 6}),
        message_id="msg_1",
        request_id="req_0",
    )


async def test_malformed_tool_arguments_are_kept_with_an_error(
    fake_model: FakeModelServer,
) -> None:
    fake_model.script(
        reply(raw_tool_use("Bash", '{"command": "ls"', id="toolu_1"), raw_tool_use("Read", "[1]"))
    )
    done = await finish(claude(fake_model.url), ask(tools=TOOLS))
    broken, not_object = done.message.tool_uses()
    assert (broken.input, broken.raw_input) == ({}, '{"command": "ls"')
    assert broken.input_error is not None
    assert broken.input_error.startswith("the arguments are not valid JSON")
    assert (not_object.input, not_object.raw_input, not_object.input_error) == (
        {},
        "[1]",
        "the arguments must be a JSON object, not an array",
    )


async def test_empty_arguments_mean_no_arguments(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(raw_tool_use("Bash", "", id="toolu_1")))
    done = await finish(claude(fake_model.url), ask(tools=TOOLS))
    assert done.message.tool_uses() == [ToolUseBlock(id="toolu_1", name="Bash", input={})]


async def test_tool_call_cut_by_max_tokens_says_so(fake_model: FakeModelServer) -> None:
    fake_model.script(
        reply(
            text("Writing it."),
            raw_tool_use("Bash", '{"command": "cat > a.py <<EOF\\nprint(', id="toolu_1"),
            stop_reason="max_tokens",
        )
    )
    done = await finish(claude(fake_model.url), ask(tools=TOOLS))
    assert done.stop_reason == "max_tokens"
    assert done.message.tool_uses() == [
        ToolUseBlock(
            id="toolu_1",
            name="Bash",
            input={},
            input_error=MAX_TOKENS_CUT,
            raw_input='{"command": "cat > a.py <<EOF\\nprint(',
        )
    ]


async def test_body_ending_before_message_stop_is_a_retryable_error(
    fake_model: FakeModelServer,
) -> None:
    fake_model.script(reply(text("Half an answer"), cut_after=4, clean_cut=True))
    events, error = await run(claude(fake_model.url), ask())
    assert error is not None
    assert (str(error), error.retryable) == (
        f"the response from {fake_model.url} ended before message_stop",
        True,
    )
    assert not any(isinstance(e, ResponseDone) for e in events)


async def test_dropped_connection_is_a_retryable_error(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("Half an answer"), tool_use("Bash", command="ls"), cut_after=5))
    events, error = await run(claude(fake_model.url), ask(tools=TOOLS))
    assert error is not None
    assert error.retryable
    assert str(error).startswith(f"the connection to {fake_model.url} broke mid-response: ")
    assert "\n" not in str(error)
    assert not any(isinstance(e, ResponseDone) for e in events)


async def test_overloaded_error_event_is_retryable(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("never finished"), stream_error="overloaded_error"))
    events, error = await run(claude(fake_model.url), ask())
    assert error is not None
    assert (str(error), error.status, error.retryable) == (
        f"anthropic reported overloaded_error mid-response at {fake_model.url}: Overloaded",
        529,
        True,
    )
    assert not any(isinstance(e, ResponseDone) for e in events)


async def test_rejected_key_names_endpoint_and_variable(fake_model: FakeModelServer) -> None:
    fake_model.api_key = "the-right-key"
    fake_model.expect_rejections = True
    _, error = await run(claude(fake_model.url, api_key="a-wrong-key"), ask())
    assert error is not None
    assert (str(error), error.status, error.retryable) == (
        f"anthropic rejected the API key (HTTP 401) at {fake_model.url}; check ANTHROPIC_API_KEY",
        401,
        True,  # as Claude Code: a key refreshed meanwhile is read again
    )


async def test_unreachable_endpoint_is_named(refused_port: int) -> None:
    url = f"http://127.0.0.1:{refused_port}"
    _, error = await run(claude(url), ask())
    assert error is not None
    assert str(error).startswith(f"cannot reach {url}: ")
    assert (error.status, error.retryable) == (None, True)


async def test_rate_limit_then_success_is_retried_once(fake_model: FakeModelServer) -> None:
    fake_model.script(http_error(429, retry_after_ms=0), reply(text("Recovered.")))
    done, retries = await call_with_retries(claude(fake_model.url), ask())
    assert done.message.text() == "Recovered."
    assert len(fake_model.requests) == 2
    assert [r.attempt for r in retries] == [1]


async def test_server_errors_are_retryable_and_carry_the_wait_asked_for(
    fake_model: FakeModelServer,
) -> None:
    fake_model.script(http_error(529, retry_after_ms=1500))
    _, error = await run(claude(fake_model.url), ask())
    assert error is not None
    assert (error.status, error.retryable, error.retry_after_s) == (529, True, 1.5)
    assert str(error) == f"anthropic is overloaded (HTTP 529) at {fake_model.url}: Overloaded"
    assert len(fake_model.requests) == 1


async def test_bad_request_message_surfaces(fake_model: FakeModelServer) -> None:
    fake_model.script(http_error(400, "prompt is too long: 212000 tokens > 200000 maximum"))
    _, error = await run(claude(fake_model.url), ask())
    assert error is not None
    assert (str(error), error.status, error.retryable) == (
        f"anthropic rejected the request (HTTP 400) at {fake_model.url}: "
        "prompt is too long: 212000 tokens > 200000 maximum",
        400,
        False,
    )
    assert len(fake_model.requests) == 1


def _history() -> tuple[Message, ...]:
    return (
        Message.user_text("What is in this folder?"),
        Message(
            role="assistant",
            content=(
                ThinkingBlock(thinking="List it.", signature="sig-1"),
                TextBlock(text="Listing."),
                ToolUseBlock(id="toolu_1", name="Bash", input={"command": "ls"}),
                ToolUseBlock(
                    id="toolu_2",
                    name="Read",
                    input={},
                    input_error="the arguments are not valid JSON",
                    raw_input='{"path": ',
                ),
            ),
        ),
        Message(
            role="user",
            content=(
                ToolResultBlock(tool_use_id="toolu_1", content="a.py\nb.py\n"),
                ToolResultBlock(tool_use_id="toolu_2", content="invalid arguments", is_error=True),
                TextBlock(text="(reminder: no open todos)"),
            ),
        ),
    )


async def test_request_shape_and_tool_results_round_trip(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("Two Python files.")))
    request = ModelRequest(
        model="unused", system="You help.", messages=_history(), tools=TOOLS, max_tokens=4096
    )
    await finish(claude(fake_model.url), request)
    [sent] = fake_model.requests
    ephemeral = {"type": "ephemeral"}
    assert sent.body["system"] == [
        {"type": "text", "text": "You help.", "cache_control": ephemeral}
    ]
    assert sent.body["tools"] == [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema}
        | ({"cache_control": ephemeral} if t is TOOLS[-1] else {})
        for t in TOOLS
    ]
    assert sent.body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is in this folder?", "cache_control": ephemeral}
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "List it.", "signature": "sig-1"},
                {"type": "text", "text": "Listing."},
                {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}},
                {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.py\nb.py\n"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "invalid arguments",
                    "is_error": True,
                },
                {
                    "type": "text",
                    "text": "(reminder: no open todos)",
                    "cache_control": ephemeral,
                },
            ],
        },
    ]
    assert count_cache_controls(sent.body) == 4
    assert sent.tool_results() == ["a.py\nb.py\n", "invalid arguments"]
    assert (sent.body["max_tokens"], sent.body["stream"]) == (4096, True)


async def test_breakpoints_skip_thinking_and_blank_text(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("ok")))
    history = (Message(role="user", content=(TextBlock(text="go"), TextBlock(text="  "))),)
    request = ModelRequest(model="unused", system="", messages=history)
    await finish(claude(fake_model.url), request)
    [sent] = fake_model.requests
    assert "system" not in sent.body
    assert sent.body["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "go", "cache_control": {"type": "ephemeral"}}],
        }
    ]


async def test_long_history_keeps_at_most_four_breakpoints(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("ok")))
    history: list[Message] = [Message.user_text("start")]
    for n in range(30):
        history.append(
            Message(
                role="assistant",
                content=(ToolUseBlock(id=f"toolu_{n}", name="Bash", input={"command": "ls"}),),
            )
        )
        history.append(
            Message(role="user", content=(ToolResultBlock(tool_use_id=f"toolu_{n}", content="x"),))
        )
    request = ModelRequest(model="unused", system="You help.", messages=tuple(history), tools=TOOLS)
    await finish(claude(fake_model.url), request)
    body = fake_model.requests[0].body
    assert count_cache_controls(body) == 4
    marked = [i for i, m in enumerate(body["messages"]) if count_cache_controls(m)]
    assert marked == [len(history) - 3, len(history) - 1]


async def test_thinking_budget_styles(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("a")), reply(text("b")))
    budget = AnthropicModel(
        model="claude-haiku-4-5", api_key="k", base_url=fake_model.url, thinking="budget"
    )
    adaptive = AnthropicModel(
        model="claude-sonnet-5-5", api_key="k", base_url=fake_model.url, thinking="adaptive"
    )
    await finish(budget, ask(thinking_budget=2048, max_tokens=8192))
    await finish(adaptive, ask(thinking_budget=2048, max_tokens=8192))
    assert [r.body["thinking"] for r in fake_model.requests] == [
        {"type": "enabled", "budget_tokens": 2048},
        {"type": "adaptive"},
    ]


async def test_warm_builds_the_client_without_a_request(fake_model: FakeModelServer) -> None:
    model = claude(fake_model.url)
    model.warm()
    await model.aclose()
    assert fake_model.requests == []


async def test_consumer_can_stop_mid_stream(fake_model: FakeModelServer) -> None:
    # An interrupt: the loop stops reading after the first chunk and closes the stream.
    fake_model.script(reply(text("a long answer that keeps going and going"), delay_s=0.01))
    model = claude(fake_model.url)
    stream = model.stream(ask())
    assert isinstance(await anext(stream), ResponseStarted)
    first = await anext(stream)
    await stream.aclose()
    await model.aclose()
    assert first == TextChunk(kind="text", text="a long answer that k")


async def test_model_near_end_of_life_still_works_under_warnings_as_errors(
    fake_model: FakeModelServer,
) -> None:
    fake_model.script(reply(text("still here")))
    model = AnthropicModel(model="claude-sonnet-4-5", api_key="k", base_url=fake_model.url)
    done = await finish(model, ask())
    assert done.message.text() == "still here"


async def test_headers_are_the_messages_apis(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("a")), reply(text("b")))
    await finish(claude(fake_model.url, api_key="sk-test"), ask())
    with_betas = AnthropicModel(
        model="claude-sonnet-5-5",
        api_key="sk-test",
        base_url=fake_model.url + "/",
        betas=("context-1m-2025-08-07", "interleaved-thinking-2025-05-14"),
        default_headers={"x-team": "blue"},
    )
    await finish(with_betas, ask())
    plain, betas = (r.headers for r in fake_model.requests)
    assert (plain["x-api-key"], plain["anthropic-version"]) == ("sk-test", "2023-06-01")
    assert (plain["content-type"], "anthropic-beta" in plain) == ("application/json", False)
    assert "authorization" not in plain
    assert betas["anthropic-beta"] == "context-1m-2025-08-07,interleaved-thinking-2025-05-14"
    assert betas["x-team"] == "blue"
    assert fake_model.requests[1].path == "/v1/messages"
