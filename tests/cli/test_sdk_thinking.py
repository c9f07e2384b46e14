"""What the SDK's `thinking` option puts in the request body, driven by the real Claude Agent
SDK over the wire: the forms Claude Code sends for `--thinking adaptive|enabled`."""

from __future__ import annotations

from typing import Any

import pytest

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text


def _main_thinking(fake_model: FakeModelServer) -> Any:
    [request] = [r for r in fake_model.requests if r.body.get("tools")]
    return request.body.get("thinking")


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("claude-sonnet-4-6", {"type": "adaptive"}),
        # A model of the budget form: the whole reply, as Claude Code sends it.
        ("claude-sonnet-4-0", {"type": "enabled", "budget_tokens": 31_999}),
    ],
)
async def test_adaptive_thinking_asks_the_model_to_think(
    sdk: SdkRun, fake_model: FakeModelServer, model: str, expected: dict[str, Any]
) -> None:
    fake_model.script(reply(text("thought")))
    await sdk.query("hi", model=model, thinking={"type": "adaptive"})
    thinking = _main_thinking(fake_model)
    assert thinking is not None
    assert {k: thinking[k] for k in expected} == expected
    assert not fake_model.rejections


async def test_thinking_enabled_without_a_budget_thinks(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("thought")))
    await sdk.query("hi", model="claude-sonnet-4-6", extra_args={"thinking": "enabled"})
    assert _main_thinking(fake_model) == {"type": "adaptive"}
    assert not any("--thinking" in line for line in sdk.stderr)


async def test_a_budget_keeps_its_size_under_adaptive(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("thought")))
    await sdk.query(
        "hi",
        model="claude-sonnet-4-0",
        thinking={"type": "adaptive"},
        extra_args={"max-thinking-tokens": "3000"},
    )
    assert _main_thinking(fake_model) == {"type": "enabled", "budget_tokens": 3000}
