"""The hooks an SDK client registers (`initialize`) have their timeouts checked against the
same range as the settings' hooks: 0, a negative or a huge timeout is refused by name, never
taken as "no timeout given" nor waited on for days."""

from __future__ import annotations

from typing import Any

import pytest
from claude_agent_sdk import HookMatcher

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer


async def _allow(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
    return {}


@pytest.mark.parametrize(("seconds", "shown"), [(0, "0"), (-5, "-5"), (10**9, "1000000000")])
async def test_a_hook_timeout_out_of_range_is_refused_by_name(
    sdk: SdkRun, fake_model: FakeModelServer, seconds: int, shown: str
) -> None:
    hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[_allow], timeout=seconds)]}
    with pytest.raises(Exception) as refused:  # noqa: PT011 - the SDK's own error type varies
        async with sdk.client(hooks=hooks) as client:
            await client.query("hi")
    assert (
        "the client's hooks.PreToolUse[0].timeout must be a number of seconds from 0.001 to "
        f"86,400, not {shown}"
    ) in str(refused.value)
    assert fake_model.requests == []
