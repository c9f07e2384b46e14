"""A turn the model API refused, with the real Claude Agent SDK over the wire: as Claude Code,
an assistant message of model `<synthetic>` with `error` set (its class, for programs that
branch on it) and Claude Code's words for the status, then a result with `api_error_status`
and `api_error_type`. The words were read from Claude Code's bundled CLI on the same fake API."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest
from claude_agent_sdk import AssistantMessage, SystemMessage
from claude_agent_sdk._internal.message_parser import parse_message

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, http_error
from tether.testing.cli_runner import CliResult

MODEL = "claude-sonnet-4-5"
SAID = "messages: custom bad thing."
SERVER_SIDE = (
    "This is a server-side issue, usually temporary \u2014 try again in a moment. If it "
    "persists, check your inference gateway ({host})."
)
RETRIED = (401, 408, 409, 429, 500, 502, 503, 529)
"""The statuses Claude Code tries again (measured: 403 and 400 are not)."""
ASKED_TWICE = (404,)
"""The statuses Claude Code asks once more at once, untold, before it takes them as final."""
VOLATILE = {"uuid", "session_id", "message_id", "usage", "model_usage", "duration_ms"}
"""Fields that differ run to run (ids, times) or that other tests check (usage)."""


async def messages_of(sdk: SdkRun, **overrides: Any) -> list[Any]:
    """Every message the SDK gave before it raised on the error result."""
    seen: list[Any] = []

    async def read() -> None:
        async for message in sdk.stream("hi", model=MODEL, **overrides):
            seen.append(message)

    with pytest.raises(Exception, match="error result"):
        await read()
    return seen


def shape(message: Any) -> dict[str, Any]:
    fields = dataclasses.asdict(message)
    return {"kind": type(message).__name__} | {k: v for k, v in fields.items() if k not in VOLATILE}


@pytest.mark.parametrize(
    ("status", "error_type", "error_class", "told"),
    [
        (400, "invalid_request_error", "unknown", f"API Error: 400 {SAID}"),
        (
            401,
            "authentication_error",
            "authentication_failed",
            # Claude Code's words for a key given to it (before: as a 403's).
            "Invalid API key \u00b7 Fix external API key",
        ),
        (
            403,
            "permission_error",
            "authentication_failed",
            f"Failed to authenticate. API Error: 403 {SAID}",
        ),
        (
            404,
            "not_found_error",
            "model_not_found",
            # Under the SDK, no flag to run (before: "Run --model to pick a different model.").
            f"There's an issue with the selected model ({MODEL}). It may not exist or you may "
            "not have access to it.",
        ),
        (409, "invalid_request_error", "unknown", f"API Error: 409 {SAID}"),
        (429, "rate_limit_error", "rate_limit", f"API Error: Request rejected (429) \u00b7 {SAID}"),
        (
            500,
            "api_error",
            "server_error",
            f"API Error: 500 messages: custom bad thing. {SERVER_SIDE}",
        ),
        (
            529,
            "overloaded_error",
            "server_error",
            f"API Error: 529 messages: custom bad thing. {SERVER_SIDE}",
        ),
    ],
)
async def test_an_api_error_is_told_as_claude_code_tells_it(
    sdk: SdkRun,
    fake_model: FakeModelServer,
    status: int,
    error_type: str,
    error_class: str,
    told: str,
) -> None:
    fake_model.script(*[http_error(status, SAID, error_type)] * 11)
    told = told.format(host=fake_model.url.split("://", 1)[1].rstrip("/"))
    seen = await messages_of(sdk, env={"TETHER_RETRY_DELAY_MS": "1"})
    # Claude Code tries 11 times (10 retries, each told) what may pass later, once what not.
    retries = 10 if status in RETRIED else 0
    # Before: a 404 was final at its first answer.
    assert len(fake_model.requests) == retries + 1 + (status in ASKED_TWICE)
    assert [(type(m).__name__, getattr(m, "subtype", None)) for m in seen] == [
        ("SystemMessage", "init"),
        *[("SystemMessage", "api_retry")] * retries,
        ("AssistantMessage", None),
        ("ResultMessage", "success"),
    ]
    told_retries = [m.data for m in seen if getattr(m, "subtype", None) == "api_retry"]
    assert [(d["attempt"], d["max_retries"], d["error_status"]) for d in told_retries] == [
        (n, 10, status) for n in range(1, retries + 1)
    ]
    assert [shape(m) for m in seen if not isinstance(m, SystemMessage)] == [
        {
            "kind": "AssistantMessage",
            "content": [{"text": told}],
            "model": "<synthetic>",
            "parent_tool_use_id": None,
            "error": error_class,
            "stop_reason": "stop_sequence",
            "user_message_uuid": None,
            "user_message_uuids": None,
        },
        {
            "kind": "ResultMessage",
            "subtype": "success",
            "duration_api_ms": 0,
            "is_error": True,
            "num_turns": 1,
            "stop_reason": "stop_sequence",
            "total_cost_usd": 0.0,
            "result": told,
            "structured_output": None,
            "permission_denials": [],
            "deferred_tool_use": None,
            "errors": None,
            "api_error_status": status,
            "terminal_reason": "api_error",
            "origin": None,
            "user_message_uuid": None,
            "user_message_uuids": None,
        },
    ]
    [line] = [line for line in sdk.lines() if line["type"] == "result"]
    assert line["api_error_type"] == error_type
    assert "api_error" not in line  # only a 413's result names it
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
    [told] = [line for line in sdk.lines() if line["type"] == "assistant"]
    [line] = [line for line in sdk.lines() if line["type"] == "result"]
    # Claude Code files it under images (before: `api_error`, as any status), and names it
    # in `api_error` on both lines (before: no such field).
    fields = ("api_error_status", "api_error_type", "api_error", "terminal_reason")
    assert {k: line.get(k) for k in fields} == {
        "api_error_status": 413,
        "api_error_type": "request_too_large",
        "api_error": "request_too_large",
        "terminal_reason": "image_error",
    }
    assert {k: told.get(k) for k in fields[:3]} == {
        "api_error_status": 413,
        "api_error_type": "request_too_large",
        "api_error": "request_too_large",
    }
    assert line["result"] == getattr(block, "text", "")
    fake_model.reset()


def test_print_mode_tells_an_api_error_as_an_assistant_message_then_the_result(
    fake_model: FakeModelServer, tether: Callable[..., CliResult]
) -> None:
    """`-p --output-format stream-json`, as Claude Code: the refusal is a `<synthetic>`
    assistant line before the result (it wrote the result alone); text mode's stdout says it
    in the same words."""
    fake_model.script(*[http_error(404, SAID)] * 4)  # each run asks twice, as Claude Code
    fake_model.expect_rejections = True
    said = (
        f"There's an issue with the selected model ({MODEL}). It may not exist or you may not "
        "have access to it. Run --model to pick a different model."
    )
    streamed = tether("-p", "hi", "--model", MODEL, "--output-format", "stream-json", "--verbose")
    lines = [json.loads(line) for line in streamed.stdout.splitlines()]
    assert [(line["type"], line.get("subtype")) for line in lines] == [
        ("system", "init"),
        ("assistant", None),
        ("result", "success"),
    ]
    synthetic = lines[1]
    assert (synthetic["message"]["model"], synthetic["message"]["content"]) == (
        "<synthetic>",
        [{"type": "text", "text": said}],
    )
    assert (synthetic["error"], synthetic["api_error_status"]) == ("model_not_found", 404)
    assert (lines[2]["result"], lines[2]["is_error"]) == (said, True)
    for line in lines:
        assert parse_message(line) is not None

    told = tether("-p", "hi", "--model", MODEL)
    assert (told.exit_code, told.stdout) == (1, said + "\n")
