"""The SDK's `effort` (`--effort`), with the real Claude Agent SDK over the wire: sent as the
Messages API's `output_config.effort` (thinking adaptively) to a model that takes it, as Claude
Code sends it; held to what the model takes; thinking by default as Claude Code (a budget of
31,999 tokens at every level on a model that takes no level, adaptive on one it does not know);
`reasoning_effort` on an OpenAI reasoning model, nothing elsewhere; and told to the hooks of a
tool call or a stop as Claude Code's `effort`. The fake server refuses what the API refuses."""

from __future__ import annotations

from typing import Any

import pytest
from claude_agent_sdk import HookMatcher, SystemMessage

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use

Inputs = dict[str, list[dict[str, Any]]]


async def test_effort_is_sent_as_output_config_with_adaptive_thinking(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    # What Claude Code sends for `effort="low"`: before, tether sent neither (low was a
    # thinking budget of none).
    fake_model.script(reply(text("a")))
    await sdk.query("hi", effort="low", model="claude-opus-5-5")
    body = fake_model.requests[0].body
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": "low"}


@pytest.mark.parametrize(
    ("model", "asked", "sent"),
    [
        ("claude-opus-4-5", "max", "high"),  # three levels only
        ("claude-sonnet-4-6", "xhigh", "high"),  # max but no xhigh
        ("claude-sonnet-4-6", "max", "max"),
        ("claude-opus-4-8", "xhigh", "xhigh"),
        ("claude-haiku-5-5", "xhigh", "xhigh"),  # as Claude Code sends it
        ("claude-haiku-5-5", "max", "max"),
    ],
)
async def test_a_level_the_model_does_not_take_goes_down_to_one_it_does(
    sdk: SdkRun, fake_model: FakeModelServer, model: str, asked: str, sent: str
) -> None:
    fake_model.script(reply(text("a")))
    await sdk.query("hi", effort=asked, model=model)
    assert fake_model.requests[0].body["output_config"] == {"effort": sent}


async def test_without_thinking_the_level_is_held_at_high(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    # The API refuses xhigh and max on a request that does not think.
    fake_model.script(reply(text("a")))
    await sdk.query("hi", effort="max", thinking={"type": "disabled"}, model="claude-opus-5-5")
    body = fake_model.requests[0].body
    assert body["thinking"] == {"type": "disabled"}  # said, as Claude Code says it
    assert body["output_config"] == {"effort": "high"}


@pytest.mark.parametrize(
    ("model", "thinking", "effort"),
    [
        # Claude Code's defaults, measured model by model (its bundled CLI's requests).
        ("claude-opus-5-5", {"type": "adaptive"}, "medium"),
        ("claude-sonnet-5-5", {"type": "adaptive"}, "medium"),
        ("claude-haiku-5-5", {"type": "adaptive"}, "medium"),
        ("haiku", {"type": "adaptive"}, "medium"),
        ("opus", {"type": "adaptive"}, "medium"),
        ("sonnet", {"type": "adaptive"}, "medium"),
        ("opusplan", {"type": "adaptive"}, "medium"),
        ("claude-fable-5-1", {"type": "adaptive"}, "high"),
        ("claude-opus-5", {"type": "adaptive"}, "high"),
        ("claude-sonnet-5", {"type": "adaptive"}, "high"),
        ("claude-opus-4-8", {"type": "adaptive"}, "high"),
        ("claude-opus-4-6", {"type": "adaptive"}, "high"),
        ("claude-sonnet-4-6", {"type": "adaptive"}, "high"),
        ("claude-opus-4-7", {"type": "adaptive"}, "xhigh"),  # Claude Code's for this model
        ("claude-opus-4-5", {"type": "enabled", "budget_tokens": 31999}, "high"),
        ("claude-haiku-4-5", {"type": "enabled", "budget_tokens": 31999}, None),
        ("claude-mystery-9", {"type": "adaptive"}, None),  # unknown: no level it may refuse
        ("claude-3-7-sonnet-latest", None, None),  # Claude Code sends it no thinking (measured)
        ("claude-3-5-haiku-latest", None, None),  # cannot think: sent none (it was, by budget)
    ],
)
async def test_with_no_effort_the_model_thinks_by_default_as_in_claude_code(
    sdk: SdkRun, fake_model: FakeModelServer, model: str, thinking: Any, effort: str | None
) -> None:
    # Before, tether sent neither `thinking` nor `output_config` unless asked.
    fake_model.script(reply(text("a")))
    await sdk.query("hi", model=model)
    body = fake_model.requests[0].body
    assert body.get("thinking") == thinking
    assert body.get("output_config") == (None if effort is None else {"effort": effort})


@pytest.mark.parametrize(
    "off",
    [
        {"env": {"MAX_THINKING_TOKENS": "0"}},
        {"settings": '{"alwaysThinkingEnabled": false}'},
        {"max_thinking_tokens": 0},
    ],
)
@pytest.mark.parametrize(
    ("model", "level"), [("claude-opus-5-5", "medium"), ("claude-opus-4-5", "high")]
)
async def test_default_thinking_is_turned_off_as_in_claude_code(
    sdk: SdkRun, fake_model: FakeModelServer, off: dict[str, Any], model: str, level: str
) -> None:
    fake_model.script(reply(text("a")))
    await sdk.query("hi", model=model, **off)
    body = fake_model.requests[0].body
    assert body["thinking"] == {"type": "disabled"}
    assert body["output_config"] == {"effort": level}  # the level the model works at


@pytest.mark.parametrize(("asked", "sent"), [("5000", 5000), ("100", 1024)])
async def test_max_thinking_tokens_in_the_environment_is_the_budget(
    sdk: SdkRun, fake_model: FakeModelServer, asked: str, sent: int
) -> None:
    # A budget under the API's least is raised to it, as Claude Code does (it turned thinking
    # off).
    fake_model.script(reply(text("a")))
    await sdk.query("hi", model="claude-haiku-4-5", env={"MAX_THINKING_TOKENS": asked})
    assert fake_model.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": sent}


@pytest.mark.parametrize("level", ["low", "medium", "high", "xhigh", "max"])
@pytest.mark.parametrize(
    ("model", "thinking", "takes_level"),
    [
        ("claude-opus-4-5", {"type": "enabled", "budget_tokens": 31999}, True),
        ("claude-haiku-4-5", {"type": "enabled", "budget_tokens": 31999}, False),
        ("claude-mystery-9", {"type": "adaptive"}, False),
    ],
)
async def test_the_thinking_a_level_leaves_is_claude_codes_at_every_level(
    sdk: SdkRun,
    fake_model: FakeModelServer,
    level: str,
    model: str,
    thinking: Any,
    takes_level: bool,
) -> None:
    # Before, a budget-style model's level became a budget (low: no thinking, max: 63999),
    # and an unknown model did not think at `low`.
    fake_model.script(reply(text("a")))
    await sdk.query("hi", effort=level, model=model)
    body = fake_model.requests[0].body
    assert body["thinking"] == thinking
    capped = level if level in ("low", "medium", "high") else "high"
    assert body.get("output_config") == ({"effort": capped} if takes_level else None)


@pytest.mark.parametrize(
    ("model", "said"),
    [
        ("claude-haiku-4-5", "thinking with a budget of 31999 tokens, as at every level"),
        ("claude-mystery-9", "adaptive thinking, as at every level"),
    ],
)
async def test_a_model_that_takes_no_level_is_noted_once_on_stderr_and_as_a_line(
    sdk: SdkRun, fake_model: FakeModelServer, model: str, said: str
) -> None:
    # Before: stderr only, where an SDK program does not look, and it claimed a budget was
    # sent when the request thought adaptively, or not at all.
    fake_model.script(reply(text("a")))
    messages = await sdk.query("hi", effort="low", model=model)
    note = f"--effort low: {model} takes no effort level; none is sent: its requests ask for {said}"
    assert sum(note in line for line in sdk.stderr) == 1
    told = [m.data for m in messages if isinstance(m, SystemMessage) and m.subtype == "notice"]
    # A model tether cannot price is said to be so as well (claude-mystery-9), apart.
    assert [t["message"] for t in told if t["message"].startswith("--effort")] == [note]
    assert result_of(messages).result == "a"
    sdk.assert_lines_parse()


@pytest.mark.parametrize(
    ("model", "sent"),
    [("openai/gpt-5", "high"), ("openai/gpt-4o", None), ("openai/gpt-mystery-9", None)],
)
async def test_openai_models_get_reasoning_effort_where_they_take_it(
    sdk: SdkRun, fake_model: FakeModelServer, model: str, sent: str | None
) -> None:
    fake_model.script(reply(text("a")))
    messages = await sdk.query("hi", effort="max", model=model)
    assert result_of(messages).result == "a"
    assert fake_model.requests[0].body.get("reasoning_effort") == sent
    noted = [line for line in sdk.stderr if "takes no reasoning effort" in line]
    assert len(noted) == (0 if sent else 1)


def _recording(inputs: Inputs) -> Any:
    async def hook(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        event = hook_input["hook_event_name"]
        inputs.setdefault(event, []).append(hook_input)
        if event != "PermissionRequest":
            return {}
        allow = {"behavior": "allow"}
        return {"hookSpecificOutput": {"hookEventName": event, "decision": allow}}

    return hook


async def test_hooks_of_a_call_or_a_stop_are_told_the_effort(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(tool_use("Bash", command="touch made")), reply(text("done")))
    inputs: Inputs = {}
    events = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "PermissionRequest", "Stop")
    hooks = {event: [HookMatcher(hooks=[_recording(inputs)])] for event in events}
    await sdk.query("go", effort="max", model="claude-opus-4-5", hooks=hooks)
    # Claude Code's shape: the level the requests carry, after the model's downgrade.
    for event in ("PreToolUse", "PostToolUse", "PermissionRequest", "Stop"):
        assert [i["effort"] for i in inputs[event]] == [{"level": "high"}], event
    assert "effort" not in inputs["UserPromptSubmit"][0]  # the session's own: none
    sdk.assert_lines_parse()


@pytest.mark.parametrize(
    ("model", "level"),
    [("claude-opus-5-5", "medium"), ("claude-sonnet-4-6", "high"), ("claude-opus-4-7", "xhigh")],
)
async def test_unasked_hooks_are_told_the_default_on_a_model_that_takes_a_level(
    sdk: SdkRun, fake_model: FakeModelServer, model: str, level: str
) -> None:
    # As Claude Code: a model that takes a level always works at one (when none is asked,
    # the model's default in Claude Code, else the API's, high), and names it.
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    inputs: Inputs = {}
    hooks = {"PreToolUse": [HookMatcher(hooks=[_recording(inputs)])]}
    await sdk.query("go", model=model, hooks=hooks, permission_mode="bypassPermissions")
    assert inputs["PreToolUse"][0]["effort"] == {"level": level}
    assert fake_model.requests[0].body["output_config"] == {"effort": level}  # as Claude Code


async def test_no_effort_for_hooks_on_a_model_that_takes_none(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    inputs: Inputs = {}
    hooks = {"PreToolUse": [HookMatcher(hooks=[_recording(inputs)])]}
    await sdk.query(
        "go",
        effort="high",
        model="claude-haiku-4-5",
        hooks=hooks,
        permission_mode="bypassPermissions",
    )
    assert "effort" not in inputs["PreToolUse"][0]
