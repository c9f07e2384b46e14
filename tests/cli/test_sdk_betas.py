"""`betas=[...]` of the Claude Agent SDK (`--betas`): sent in the `anthropic-beta` header as
Claude Code sends them; the 1M-context beta opens the 1M window as a `[1m]` model does; a
name tether does not know is sent with a warning; a reply cut by the full window is told
as such. The real SDK drives tether over the wire."""

from __future__ import annotations

from tests.cli.sdk_harness import SdkRun, result_of
from tether.models.resolve import LONG_WINDOW
from tether.testing import FakeModelServer, reply, text


async def test_betas_are_sent_and_the_1m_beta_opens_the_1m_window(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("a")))
    async with sdk.client(
        model="claude-sonnet-4-5", betas=["context-1m-2025-08-07", "made-up-2099-01-01"]
    ) as client:
        await client.query("hi")
        result = result_of([m async for m in client.receive_response()])
        usage = await client.get_context_usage()
    sent = fake_model.requests[0].headers["anthropic-beta"].split(",")
    assert sent == ["context-1m-2025-08-07", "made-up-2099-01-01"]
    assert usage["maxTokens"] == LONG_WINDOW
    assert result.model_usage is not None
    assert result.model_usage["claude-sonnet-4-5"]["contextWindow"] == LONG_WINDOW
    warned = [line for line in sdk.stderr if "made-up-2099-01-01" in line]
    assert len(warned) == 1
    assert not any("context-1m" in line for line in sdk.stderr)


async def test_without_betas_none_is_sent(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("a")))
    await sdk.query("hi", model="claude-sonnet-4-5")
    assert "anthropic-beta" not in fake_model.requests[0].headers
