"""OpenAICompatModel over the wire against the fake server's Chat Completions."""

from __future__ import annotations

from tether.models.base import (
    ModelRequest,
    ResponseDone,
    ResponseStarted,
    TextChunk,
    ThinkingChunk,
)
from tether.models.openai_compat import MaxTokensParam, OpenAICompatModel
from tether.models.tool_arguments import MAX_TOKENS_CUT
from tether.protocol import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
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

from .streams import TOOLS, ask, call_with_retries, finish, run


def gpt(
    base_url: str,
    *,
    api_key: str = "test-key",
    max_tokens_param: MaxTokensParam = "max_tokens",
) -> OpenAICompatModel:
    return OpenAICompatModel(
        model="gpt-4.1",
        api_key=api_key,
        base_url=base_url,
        max_tokens_param=max_tokens_param,
    )


async def test_reasoning_text_and_tool_calls_make_one_message(
    fake_model: FakeModelServer,
) -> None:
    fake_model.script(
        reply(
            thinking("Two files to read."),
            text("Reading both."),
            tool_use("Read", path="a.py", id="call_a"),
            tool_use("Read", path="b.py", id="call_b"),
            usage={
                "input_tokens": 40,
                "output_tokens": 9,
                "cache_read_input_tokens": 3000,
                "cache_creation_input_tokens": 0,
            },
        )
    )
    events, error = await run(gpt(fake_model.openai_base_url), ask(tools=TOOLS))
    assert error is None
    # The start comes first: the completion's id and the request's; no usage is known yet.
    assert events[0] == ResponseStarted("started", "chatcmpl-1", "req_0", Usage())
    chunks = events[1:-1]
    assert "".join(c.text for c in chunks if isinstance(c, ThinkingChunk)) == "Two files to read."
    assert "".join(c.text for c in chunks if isinstance(c, TextChunk)) == "Reading both."
    assert events[-1] == ResponseDone(
        kind="done",
        message=Message(
            role="assistant",
            content=(
                ThinkingBlock(thinking="Two files to read."),
                TextBlock(text="Reading both."),
                ToolUseBlock(id="call_a", name="Read", input={"path": "a.py"}),
                ToolUseBlock(id="call_b", name="Read", input={"path": "b.py"}),
            ),
        ),
        stop_reason="tool_use",
        usage=Usage(input_tokens=40, output_tokens=9, cache_read_input_tokens=3000),
        message_id="chatcmpl-1",
        request_id="req_0",
    )


async def test_request_shape(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("a")), reply(text("b")))
    await finish(gpt(fake_model.openai_base_url), ask("hello", tools=TOOLS, max_tokens=1000))
    await finish(
        gpt(fake_model.openai_base_url, max_tokens_param="max_completion_tokens"),
        ask("hello", max_tokens=2000),
    )
    first, second = (r.body for r in fake_model.requests)
    assert first == {
        "model": "gpt-4.1",
        "messages": [
            {"role": "system", "content": "You help."},
            {"role": "user", "content": "hello"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.input_schema,
                },
            }
            for t in TOOLS
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 1000,
    }
    assert "tools" not in second
    assert "max_tokens" not in second
    assert second["max_completion_tokens"] == 2000


async def test_the_subagent_tool_is_offered_and_called_as_agent(
    fake_model: FakeModelServer,
) -> None:
    """As Claude Code offers it: tether's Task is `Agent` to the model, in the tools and in the
    calls of the history, whichever name a call was made by."""
    fake_model.script(reply(text("Done.")))
    task = ToolSpec(name="Task", description="Start a subagent.", input_schema={"type": "object"})
    history = (
        Message.user_text("Look around."),
        Message(role="assistant", content=(ToolUseBlock(id="call_1", name="Task", input={}),)),
        Message(role="user", content=(ToolResultBlock(tool_use_id="call_1", content="seen"),)),
    )
    request = ModelRequest(model="unused", system="", messages=history, tools=(task,))
    await finish(gpt(fake_model.openai_base_url), request)
    [sent] = fake_model.requests
    assert [t["function"]["name"] for t in sent.body["tools"]] == ["Agent"]
    [call] = [c for m in sent.messages() for c in m.get("tool_calls", ())]
    assert call["function"]["name"] == "Agent"


async def test_tool_results_become_tool_messages(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("Done.")))
    history = (
        Message.user_text("Look around."),
        Message(
            role="assistant",
            content=(
                ThinkingBlock(thinking="not sent back", signature=""),
                ToolUseBlock(id="call_1", name="Bash", input={"command": "ls"}),
                ToolUseBlock(
                    id="call_2",
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
                TextBlock(text="Also: be brief."),
                ToolResultBlock(tool_use_id="call_1", content="a.py\n"),
                ToolResultBlock(tool_use_id="call_2", content="bad arguments", is_error=True),
            ),
        ),
    )
    request = ModelRequest(model="unused", system="You help.", messages=history, tools=TOOLS)
    await finish(gpt(fake_model.openai_base_url), request)
    [sent] = fake_model.requests
    assert sent.messages() == [
        {"role": "system", "content": "You help."},
        {"role": "user", "content": "Look around."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "Bash", "arguments": '{"command": "ls"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "Read", "arguments": '{"path": '},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a.py\n"},
        {"role": "tool", "tool_call_id": "call_2", "content": "Error: bad arguments"},
        {"role": "user", "content": "Also: be brief."},
    ]
    assert sent.tool_result_errors() == [False, True]


async def test_malformed_arguments_are_kept_with_an_error(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(raw_tool_use("Bash", '{"command": ', id="call_1")))
    done = await finish(gpt(fake_model.openai_base_url), ask(tools=TOOLS))
    [call] = done.message.tool_uses()
    assert (call.id, call.input, call.raw_input) == ("call_1", {}, '{"command": ')
    assert call.input_error is not None
    assert call.input_error.startswith("the arguments are not valid JSON")


async def test_tool_call_cut_by_length_says_so(fake_model: FakeModelServer) -> None:
    fake_model.script(
        reply(raw_tool_use("Bash", '{"command": "echo', id="call_1"), stop_reason="max_tokens")
    )
    done = await finish(gpt(fake_model.openai_base_url), ask(tools=TOOLS))
    assert done.stop_reason == "max_tokens"
    assert done.message.tool_uses() == [
        ToolUseBlock(
            id="call_1",
            name="Bash",
            input={},
            input_error=MAX_TOKENS_CUT,
            raw_input='{"command": "echo',
        )
    ]


async def test_body_ending_before_finish_reason_is_retryable(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("Half an answer, then nothing"), cut_after=2, clean_cut=True))
    base_url = fake_model.openai_base_url
    events, error = await run(gpt(base_url), ask())
    assert error is not None
    assert (str(error), error.retryable) == (
        f"the response from {base_url} ended before [DONE]",
        True,
    )
    assert not any(isinstance(e, ResponseDone) for e in events)


async def test_dropped_connection_is_retryable(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("Half an answer, then nothing"), cut_after=2))
    base_url = fake_model.openai_base_url
    events, error = await run(gpt(base_url), ask())
    assert error is not None
    assert error.retryable
    assert str(error).startswith(f"the connection to {base_url} broke mid-response: ")
    assert not any(isinstance(e, ResponseDone) for e in events)


async def test_in_stream_error_is_retryable(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("never finished"), stream_error="overloaded_error"))
    base_url = fake_model.openai_base_url
    events, error = await run(gpt(base_url), ask())
    assert error is not None
    assert (str(error), error.retryable) == (
        f"openai reported overloaded_error mid-response at {base_url}: Overloaded",
        True,
    )
    assert not any(isinstance(e, ResponseDone) for e in events)


async def test_rejected_key_names_endpoint_and_variable(fake_model: FakeModelServer) -> None:
    fake_model.api_key = "the-right-key"
    fake_model.expect_rejections = True
    base_url = fake_model.openai_base_url
    _, error = await run(gpt(base_url, api_key="a-wrong-key"), ask())
    assert error is not None
    assert (str(error), error.status, error.retryable) == (
        f"openai rejected the API key (HTTP 401) at {base_url}; check OPENAI_API_KEY",
        401,
        True,  # as Claude Code: a key refreshed meanwhile is read again
    )


async def test_keyless_provider_still_sends_a_placeholder(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("local answer")))
    model = OpenAICompatModel(
        model="qwen2.5-coder:7b",
        api_key=None,
        base_url=fake_model.openai_base_url,
        provider="ollama",
        key_env=None,
    )
    done = await finish(model, ask())
    assert done.message.text() == "local answer"


async def test_unreachable_endpoint_is_named(refused_port: int) -> None:
    url = f"http://127.0.0.1:{refused_port}/v1"
    _, error = await run(gpt(url), ask())
    assert error is not None
    assert str(error).startswith(f"cannot reach {url}: ")
    assert (error.status, error.retryable) == (None, True)


async def test_rate_limit_then_success_is_retried_once(fake_model: FakeModelServer) -> None:
    fake_model.script(http_error(429, retry_after_ms=0), reply(text("Recovered.")))
    done, retries = await call_with_retries(gpt(fake_model.openai_base_url), ask())
    assert done.message.text() == "Recovered."
    assert len(fake_model.requests) == 2
    assert [r.attempt for r in retries] == [1]


async def test_bad_request_message_surfaces(fake_model: FakeModelServer) -> None:
    fake_model.script(http_error(400, "This model's maximum context length is 128000 tokens."))
    base_url = fake_model.openai_base_url
    _, error = await run(gpt(base_url), ask())
    assert error is not None
    assert (str(error), error.status, error.retryable) == (
        f"openai rejected the request (HTTP 400) at {base_url}: "
        "This model's maximum context length is 128000 tokens.",
        400,
        False,
    )


async def test_the_key_goes_as_a_bearer_token(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("ok")))
    await finish(gpt(fake_model.openai_base_url, api_key="sk-open"), ask())
    [sent] = fake_model.requests
    assert sent.headers["authorization"] == "Bearer sk-open"
    assert "x-api-key" not in sent.headers
    assert sent.path == "/v1/chat/completions"
