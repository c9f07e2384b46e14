"""A reply the model could not finish (cut at the output limit, stopped by a refusal): as
Claude Code, the turn goes on with a synthetic note to the model and answers with the continued
reply; past the limit (three resumes for the output limit, one for a refusal) it ends with an
error. The real SDK over the wire, and `-p`."""

from __future__ import annotations

from typing import Any

import pytest
from claude_agent_sdk import AssistantMessage, ResultMessage, SystemMessage, TextBlock, UserMessage

from tests.cli.sdk_harness import SdkRun, result_of
from tether.core.cut_replies import OUTPUT_LIMIT_NOTE, REFUSAL_NOTE
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult


def _kinds(messages: list[Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for m in messages:
        if isinstance(m, AssistantMessage):
            out.append(
                ("assistant", "".join(b.text for b in m.content if isinstance(b, TextBlock)))
            )
        elif isinstance(m, UserMessage):
            content = m.content if isinstance(m.content, str) else m.content[0].text  # type: ignore[union-attr]
            out.append(("user", str(content)))
        elif isinstance(m, SystemMessage) and m.subtype == "informational":
            out.append(("informational", str(m.data["content"])))
        elif isinstance(m, ResultMessage):
            out.append(("result", str(m.result)))
    return out


def _last_user_text(fake_model: FakeModelServer, index: int) -> str:
    return fake_model.requests[index].messages()[-1]["content"][-1]["text"]


async def test_a_reply_cut_at_the_output_limit_is_continued(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("first part"), stop_reason="max_tokens"), reply(text("rest")))
    messages = await sdk.query("go")
    assert _kinds(messages) == [
        ("assistant", "first part"),
        ("user", OUTPUT_LIMIT_NOTE),
        ("assistant", "rest"),
        ("result", "rest"),
    ]
    result = result_of(messages)
    assert (result.subtype, result.is_error, result.num_turns) == ("success", False, 2)
    assert result.stop_reason == "end_turn"
    assert (
        _last_user_text(fake_model, 1)
        == f"<system-reminder>\n{OUTPUT_LIMIT_NOTE}\n</system-reminder>"
    )
    [note] = [line for line in sdk.lines() if line.get("isSynthetic")]
    assert note["type"] == "user"
    sdk.assert_lines_parse()


async def test_a_refused_reply_is_continued_once_with_that_noted(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("first part"), stop_reason="refusal"), reply(text("other")))
    messages = await sdk.query("go", model="claude-sonnet-4-5")
    assert _kinds(messages) == [
        ("assistant", "first part"),
        (
            "informational",
            "Sonnet 4.5's safeguards stopped the response above \u00b7 continuing once with "
            "that noted",
        ),
        ("user", REFUSAL_NOTE),
        ("assistant", "other"),
        ("result", "other"),
    ]
    assert result_of(messages).num_turns == 2
    [note] = [line for line in sdk.lines() if line.get("isSynthetic")]
    first = next(line for line in sdk.lines() if line["type"] == "assistant")
    assert (note["refused_message_id"], note["refusal_retry"]) == (first["message"]["id"], True)
    assert REFUSAL_NOTE in _last_user_text(fake_model, 1)
    sdk.assert_lines_parse()


async def test_a_second_refusal_ends_the_turn_with_an_error(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(
        reply(text("first"), stop_reason="refusal"),
        reply(text("again"), stop_reason="refusal"),
        reply(text("never asked")),
    )
    async with sdk.client(model="claude-sonnet-4-5") as client:
        await client.query("go")
        result = [m async for m in client.receive_response()][-1]
    assert isinstance(result, ResultMessage)
    assert result.is_error
    assert result.errors is not None
    assert "refused again" in result.errors[0]
    assert len(fake_model.requests) == 2
    sdk.assert_lines_parse()


async def test_the_output_limit_is_resumed_three_times_then_the_turn_fails(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(
        *[reply(text(f"part{i}"), stop_reason="max_tokens") for i in range(4)],
        reply(text("never asked")),
    )
    async with sdk.client() as client:
        await client.query("go")
        messages = [m async for m in client.receive_response()]
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert (result.is_error, result.num_turns) == (True, 4)
    assert result.errors is not None
    assert "cut at the output limit" in result.errors[0]
    assert len(fake_model.requests) == 4
    notes = [m for m in messages if isinstance(m, UserMessage)]
    assert len(notes) == 3


def test_print_mode_answers_with_the_continued_reply(
    fake_model: FakeModelServer, tether: Any
) -> None:
    fake_model.script(
        reply(text("first part"), stop_reason="model_context_window_exceeded"),
        reply(text("rest")),
        reply(text("cut"), stop_reason="max_tokens"),
        reply(text("continued")),
    )
    result: CliResult = tether("-p", "go", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    body = result.json()
    assert (body["result"], body["num_turns"], body["is_error"]) == ("rest", 2, False)
    plain: CliResult = tether("-p", "go")
    assert (plain.exit_code, plain.stdout.strip()) == (0, "continued")


@pytest.mark.parametrize("model", [[], ["--model", "openai/gpt-5"]], ids=["anthropic", "openai"])
@pytest.mark.parametrize(
    ("stop_reason", "said"),
    [("refusal", "refused to answer (stop reason refusal"), ("max_tokens", "before any of it")],
)
def test_an_empty_cut_reply_ends_the_turn_saying_why(
    fake_model: FakeModelServer, tether: Any, model: list[str], stop_reason: str, said: str
) -> None:
    """Nothing said and cut: no success with an empty answer, the reason in the result."""
    fake_model.script(reply(stop_reason=stop_reason))  # type: ignore[arg-type]
    result: CliResult = tether("-p", "go", "--output-format", "json", *model)
    assert result.exit_code == 1, result.stderr
    body = result.json()
    assert body["is_error"] is True
    assert "result" not in body  # as Claude Code: an error's result has none
    assert said in body["errors"][0]
    assert result.stderr.count(said) == 1, result.stderr
    assert len(fake_model.requests) == 1
