"""The fake server refuses effort as the real APIs do, seen through the real SDKs: the Messages
API's `output_config.effort` (the five levels, each model its own, nothing above `high` without
thinking) and Chat Completions' `reasoning_effort` (reasoning models, their four levels)."""

from __future__ import annotations

from typing import Any

import anthropic
import openai
import pytest

from tether.testing import FakeModelServer, text

USER: dict[str, Any] = {"role": "user", "content": "hello"}
ADAPTIVE: dict[str, Any] = {"type": "adaptive"}


@pytest.mark.parametrize(
    ("model", "effort", "thinking", "message"),
    [
        ("claude-opus-5-5", "huge", ADAPTIVE, "Input should be 'low', 'medium', 'high'"),
        ("claude-haiku-4-5", "low", None, "not supported on claude-haiku-4-5"),
        ("claude-sonnet-4-5-20250929", "low", None, "not supported on claude-sonnet-4-5"),
        ("claude-opus-4-5", "max", None, "'max' is not supported on claude-opus-4-5"),
        ("claude-sonnet-4-6", "xhigh", ADAPTIVE, "'xhigh' is not supported on claude-sonnet-4-6"),
        ("claude-opus-5-5", "max", None, "'max' requires thinking"),
        ("claude-opus-4-8", "xhigh", {"type": "disabled"}, "'xhigh' requires thinking"),
    ],
)
@pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
def test_anthropic_effort_refusals(
    fake_model: FakeModelServer,
    claude: anthropic.Anthropic,
    model: str,
    effort: str,
    thinking: dict[str, Any] | None,
    message: str,
) -> None:
    fake_model.expect_rejections = True
    fake_model.script(text("never sent"))
    extra: dict[str, Any] = {"output_config": {"effort": effort}}
    if thinking is not None:
        extra["thinking"] = thinking
    with pytest.raises(anthropic.BadRequestError, match=message):
        claude.messages.create(model=model, max_tokens=100, messages=[USER], extra_body=extra)


@pytest.mark.parametrize(
    ("model", "effort", "thinking"),
    [
        ("claude-opus-4-5-20251101", "high", None),
        ("claude-sonnet-4-6", "max", ADAPTIVE),
        ("claude-opus-5-5", "high", None),
        ("claude-opus-5-5", "xhigh", ADAPTIVE),
    ],
)
@pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
def test_anthropic_effort_taken(
    fake_model: FakeModelServer,
    claude: anthropic.Anthropic,
    model: str,
    effort: str,
    thinking: dict[str, Any] | None,
) -> None:
    fake_model.script(text("fine"))
    extra: dict[str, Any] = {"output_config": {"effort": effort}}
    if thinking is not None:
        extra["thinking"] = thinking
    claude.messages.create(model=model, max_tokens=100, messages=[USER], extra_body=extra)


@pytest.mark.parametrize(
    ("model", "effort", "message"),
    [
        ("gpt-4o", "low", "'reasoning_effort' is not supported with this model"),
        ("gpt-5", "max", "Invalid value: 'max'"),
    ],
)
def test_openai_reasoning_effort_refusals(
    fake_model: FakeModelServer, gpt: openai.OpenAI, model: str, effort: str, message: str
) -> None:
    fake_model.expect_rejections = True
    fake_model.script(text("never sent"))
    with pytest.raises(openai.BadRequestError, match=message):
        gpt.chat.completions.create(
            model=model, messages=[USER], extra_body={"reasoning_effort": effort}
        )


def test_openai_reasoning_effort_taken(fake_model: FakeModelServer, gpt: openai.OpenAI) -> None:
    fake_model.script(text("fine"))
    gpt.chat.completions.create(
        model="gpt-5-mini", messages=[USER], extra_body={"reasoning_effort": "minimal"}
    )
