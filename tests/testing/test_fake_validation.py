"""What the fake server refuses, as the real APIs would, seen through the real SDKs."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import anthropic
import openai
import pytest

from tether.testing import FakeModelServer, text

USER: dict[str, Any] = {"role": "user", "content": "hello"}
CACHED: dict[str, Any] = {"type": "ephemeral"}
TOOL: dict[str, Any] = {"name": "Bash", "description": "run", "input_schema": {"type": "object"}}


def tool_use(call_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": "ls"}}


def tool_result(call_id: str, content: Any = "ok", **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, **extra}


def assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def user(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def text_block(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


ANTHROPIC_REFUSALS: list[tuple[str, dict[str, Any], str]] = [
    (
        "unanswered tool_use",
        {"messages": [USER, assistant(tool_use("toolu_x")), user(text_block("go on"))]},
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_x. Each `tool_use` block must have a corresponding `tool_result` block in the "
        "next message.",
    ),
    (
        "partly answered tool_use",
        {
            "messages": [
                USER,
                assistant(tool_use("toolu_a"), tool_use("toolu_b")),
                user(tool_result("toolu_a")),
            ]
        },
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_b.",
    ),
    (
        "trailing assistant with tool_use",
        {"messages": [USER, assistant(text_block("Running"), tool_use("toolu_x"))]},
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after",
    ),
    (
        "result for an unknown call",
        {"messages": [USER, assistant(text_block("hi")), user(tool_result("toolu_y"))]},
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_y. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
        "message.",
    ),
    (
        "text before the tool_result",
        {
            "messages": [
                USER,
                assistant(tool_use("toolu_a")),
                user(text_block("note"), tool_result("toolu_a")),
            ]
        },
        "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message.",
    ),
    (
        "empty text block",
        {"messages": [user(text_block(""))]},
        "messages.0.content.0.text: text content blocks must be non-empty",
    ),
    (
        "whitespace text block",
        {"messages": [user(text_block("  \n"))]},
        "messages.0.content.0.text: text content blocks must contain non-whitespace text",
    ),
    (
        "empty string content",
        {"messages": [{"role": "user", "content": ""}]},
        "messages.0: all messages must have non-empty content except for the optional final "
        "assistant message",
    ),
    (
        "empty error result",
        {"messages": [USER, assistant(tool_use("t")), user(tool_result("t", "", is_error=True))]},
        "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true",
    ),
    (
        "five cache breakpoints",
        {
            "system": [text_block("sys", cache_control=CACHED)],
            "tools": [TOOL | {"cache_control": CACHED}],
            "messages": [
                user(*(text_block(f"part {i}", cache_control=CACHED) for i in range(3))),
            ],
        },
        "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    ),
    (
        "bad tool name",
        {"tools": [TOOL | {"name": "run shell"}]},
        "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    ),
    ("duplicate tool names", {"tools": [TOOL, TOOL]}, "tools: Tool names must be unique."),
    (
        "assistant first",
        {"messages": [assistant(text_block("hi")), USER]},
        'messages: first message must use the "user" role',
    ),
    ("no messages", {"messages": []}, "messages: at least one message is required"),
    (
        "zero max_tokens",
        {"max_tokens": 0},
        "max_tokens: Input should be greater than or equal to 1",
    ),
    (
        "thinking budget over max_tokens",
        {"max_tokens": 2000, "thinking": {"type": "enabled", "budget_tokens": 2000}},
        "`max_tokens` must be greater than `thinking.budget_tokens`.",
    ),
    (
        "tool_use id repeated in a later message",
        {
            "messages": [
                USER,
                assistant(tool_use("toolu_a")),
                user(tool_result("toolu_a")),
                assistant(text_block("again"), tool_use("toolu_a")),
                user(tool_result("toolu_a")),
            ]
        },
        "messages.3.content.1: `tool_use` ids must be unique",
    ),
    (
        "tool_use id repeated in one message",
        {
            "messages": [
                USER,
                assistant(tool_use("toolu_a"), tool_use("toolu_a")),
                user(tool_result("toolu_a"), tool_result("toolu_a")),
            ]
        },
        "messages.1.content.1: `tool_use` ids must be unique",
    ),
    (
        "tool_use id outside the pattern",
        {
            "messages": [
                USER,
                assistant(tool_use("functions.Bash:0")),
                user(tool_result("functions.Bash:0")),
            ]
        },
        "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
    ),
    (
        "prefill with trailing space",
        {"messages": [USER, assistant(text_block("Sure, "))]},
        "final assistant content cannot end with trailing whitespace",
    ),
]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [case[1:] for case in ANTHROPIC_REFUSALS],
    ids=[case[0] for case in ANTHROPIC_REFUSALS],
)
def test_anthropic_refusals(
    fake_model: FakeModelServer,
    claude: anthropic.Anthropic,
    overrides: dict[str, Any],
    message: str,
) -> None:
    fake_model.expect_rejections = True
    fake_model.script(text("never sent"))
    params: dict[str, Any] = {"model": "m", "max_tokens": 100, "messages": [USER]} | overrides
    with pytest.raises(anthropic.BadRequestError) as raised:
        claude.messages.create(**params)
    error = raised.value.body
    assert isinstance(error, dict)
    assert error["type"] == "error"
    assert error["error"]["type"] == "invalid_request_error"
    assert message in error["error"]["message"]
    assert [r.error for r in fake_model.rejections] == [error["error"]["message"]]
    assert fake_model.pending() == 1  # a refused request takes no turn


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/chat/completions"])
def test_a_lone_surrogate_is_invalid_json(fake_model: FakeModelServer, path: str) -> None:
    # Python's decoder takes "\ud800" alone; the APIs' do not. A pair is a character: fine,
    # and so is an escaped backslash before "ud800".
    fake_model.expect_rejections = True
    fake_model.script(text("paired"))

    def post(content: str) -> urllib.request.Request:
        body = (
            f'{{"model":"m","max_tokens":10,"messages":[{{"role":"user","content":"{content}"}}]}}'
        )
        headers = {"x-api-key": "k", "authorization": "Bearer k"}
        return urllib.request.Request(fake_model.url + path, data=body.encode(), headers=headers)

    with urllib.request.urlopen(post("\\ud83d\\ude00 ok \\\\ud800")) as response:
        assert response.status == 200
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(post("bad \\ud800"))
    with raised.value as refused:
        assert refused.status == 400
        assert "no low surrogate in string" in refused.read().decode()
    assert [r.error for r in fake_model.rejections] == [
        "The request body is not valid JSON: no low surrogate in string"
    ]


def test_prompt_too_long(fake_model: FakeModelServer, claude: anthropic.Anthropic) -> None:
    fake_model.expect_rejections = True
    fake_model.context_window = 50
    with pytest.raises(
        anthropic.BadRequestError, match=r"prompt is too long: \d+ tokens > 50 maximum"
    ):
        claude.messages.create(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "x" * 400}]
        )


def test_missing_fields_get_the_api_shape(fake_model: FakeModelServer) -> None:
    fake_model.expect_rejections = True
    request = urllib.request.Request(
        fake_model.url + "/v1/messages",
        data=json.dumps({"messages": [USER]}).encode(),
        headers={"x-api-key": "k", "content-type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request)
    with raised.value as response:
        assert response.status == 400
        assert response.headers["request-id"] == "req_0"
        assert json.loads(response.read()) == {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": "model: Field required"},
            "request_id": "req_0",
        }


def test_valid_anthropic_transcript_passes(
    fake_model: FakeModelServer, claude: anthropic.Anthropic
) -> None:
    fake_model.script(text("fine"))
    claude.messages.create(
        model="m",
        max_tokens=4000,
        thinking={"type": "enabled", "budget_tokens": 1024},
        system=[text_block("You are tether.", cache_control=CACHED)],
        tools=[TOOL, TOOL | {"name": "Read", "cache_control": CACHED}],
        messages=[
            USER,
            assistant(
                {"type": "thinking", "thinking": "hm", "signature": "s"},
                text_block("Running two."),
                tool_use("toolu_1"),
                tool_use("toolu_2"),
            ),
            user(
                tool_result("toolu_1", [text_block("listing")]),
                tool_result("toolu_2", "Error: no such file", is_error=True),
                text_block("<reminder>todos</reminder>", cache_control=CACHED),
            ),
            assistant(text_block("Done.")),
            {"role": "user", "content": "thanks"},
            {"role": "system", "content": "Be brief."},
            assistant(text_block("You are welcome", cache_control=CACHED)),
        ],
    )
    assert fake_model.rejections == []


OPENAI_REFUSALS: list[tuple[str, list[dict[str, Any]], dict[str, Any], str, str | None]] = [
    (
        "unanswered tool call",
        [
            USER,
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": "Bash", "arguments": "{}"}}
                    for i in ("call_a", "call_b")
                ],
            },
            {"role": "tool", "tool_call_id": "call_a", "content": "ok"},
            USER,
        ],
        {},
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: call_b",
        "messages.[1].role",
    ),
    (
        "stray tool message",
        [USER, {"role": "tool", "tool_call_id": "call_z", "content": "ok"}],
        {},
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
        "message with 'tool_calls'.",
        "messages.[1].role",
    ),
    (
        "two tool messages for one id",
        [
            USER,
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "Bash", "arguments": "{}"}}
                ]
                * 2,
            },
            {"role": "tool", "tool_call_id": "c", "content": "one"},
            {"role": "tool", "tool_call_id": "c", "content": "two"},
        ],
        {},
        "Invalid parameter: Duplicate value for 'tool_call_id' of 'c', in messages[2] and "
        "messages[3].",
        "messages.[3].tool_call_id",
    ),
    (
        "an id answered again in a later turn",
        [
            USER,
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "Bash", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c", "content": "one"},
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "Bash", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c", "content": "two"},
        ],
        {},
        "Invalid parameter: Duplicate value for 'tool_call_id' of 'c', in messages[2] and "
        "messages[4].",
        "messages.[4].tool_call_id",
    ),
    (
        "bad function name",
        [USER],
        {"tools": [{"type": "function", "function": {"name": "a b", "parameters": {}}}]},
        "Invalid 'tools[0].function.name': string does not match pattern.",
        "tools[0].function.name",
    ),
    (
        "no messages",
        [],
        {},
        "Invalid 'messages': empty array.",
        "messages",
    ),
]


@pytest.mark.parametrize(
    ("messages", "extra", "message", "param"),
    [case[1:] for case in OPENAI_REFUSALS],
    ids=[case[0] for case in OPENAI_REFUSALS],
)
def test_openai_refusals(
    fake_model: FakeModelServer,
    gpt: openai.OpenAI,
    messages: list[Any],
    extra: dict[str, Any],
    message: str,
    param: str | None,
) -> None:
    fake_model.expect_rejections = True
    with pytest.raises(openai.BadRequestError) as raised:
        gpt.chat.completions.create(model="m", messages=messages, **extra)
    assert message in raised.value.message
    assert raised.value.param == param
    assert raised.value.type == "invalid_request_error"
    assert len(fake_model.rejections) == 1


def test_openai_context_length(fake_model: FakeModelServer, gpt: openai.OpenAI) -> None:
    fake_model.expect_rejections = True
    fake_model.context_window = 50
    with pytest.raises(openai.BadRequestError) as raised:
        gpt.chat.completions.create(model="m", messages=[{"role": "user", "content": "x" * 400}])
    assert raised.value.code == "context_length_exceeded"
    assert "maximum context length is 50 tokens" in raised.value.message


def test_valid_openai_transcript_passes(fake_model: FakeModelServer, gpt: openai.OpenAI) -> None:
    fake_model.script(text("fine"))
    call = {"type": "function", "function": {"name": "Bash", "arguments": "{}"}}
    gpt.chat.completions.create(
        model="m",
        tools=[{"type": "function", "function": {"name": "Bash", "parameters": {}}}],
        messages=[
            {"role": "system", "content": "You are tether."},
            USER,
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [call | {"id": "a"}, call | {"id": "b"}],
            },
            {"role": "tool", "tool_call_id": "b", "content": "two"},
            {"role": "tool", "tool_call_id": "a", "content": "one"},
            {"role": "user", "content": "<reminder>todos</reminder>"},
            {"role": "assistant", "content": "Done."},
            {"role": "user", "content": "thanks"},
        ],
    )
    assert fake_model.rejections == []
