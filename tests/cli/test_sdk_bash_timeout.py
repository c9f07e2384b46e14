"""A Bash command that printed nothing when its timeout hits, through the real Claude Agent
SDK, is stopped and answered as Claude Code answers it (measured with its CLI against the
same fake model): "Exit code 143" and the timeout in whole seconds, rounded down, with no
"Error:" before it."""

from __future__ import annotations

import pytest

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use


@pytest.mark.parametrize(("limit_ms", "said"), [(1000, "1s"), (1999, "1s")])
async def test_a_silent_command_past_its_timeout_is_stopped_with_claude_codes_words(
    sdk: SdkRun, fake_model: FakeModelServer, limit_ms: int, said: str
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="sleep 30", timeout=limit_ms)), reply(text("done"))
    )
    result_of(await sdk.query("go", permission_mode="bypassPermissions"))
    [answered] = fake_model.requests[1].messages()[-1]["content"]
    assert {k: v for k, v in answered.items() if k != "cache_control"} == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": f"Exit code 143\nCommand timed out after {said}",
        "is_error": True,
    }
