"""A stalled endpoint (connection open, no bytes): notices while it is waited for, then an idle
timeout that the loop retries like a broken stream. Both wires, before the headers and mid-stream,
against the fake server holding the connection open."""

from __future__ import annotations

import pytest

from tether.core.model_call import RetryPolicy, call_model
from tether.models.anthropic import AnthropicModel
from tether.models.base import Waiting
from tether.models.idle import (
    HOSTED_IDLE_TIMEOUT_S,
    LOCAL_IDLE_TIMEOUT_S,
    IdleLimits,
    default_idle_limits,
)
from tether.models.openai_compat import OpenAICompatModel
from tether.protocol import (
    BlockCompleted,
    Event,
    ModelError,
    ModelRetry,
    ModelWaiting,
    ResponseStarted,
    TextDelta,
)
from tether.testing import FakeModelServer, reply, text

from .streams import ask, run

IDLE = IdleLimits(timeout_s=0.4)


def model_for(wire: str, server: FakeModelServer) -> AnthropicModel | OpenAICompatModel:
    if wire == "anthropic":
        return AnthropicModel(
            model="claude-sonnet-5-5", api_key="k", base_url=server.url, idle=IDLE
        )
    return OpenAICompatModel(
        model="gpt-4.1", api_key="k", base_url=server.openai_base_url, idle=IDLE
    )


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize(("stall_after", "where"), [(0, "before answering"), (2, "mid-response")])
async def test_silence_gives_notices_then_a_retryable_idle_timeout(
    fake_model: FakeModelServer, wire: str, stall_after: int, where: str
) -> None:
    fake_model.script(reply(text("an answer that never ends"), stall_after=stall_after))
    model = model_for(wire, fake_model)
    events, error = await run(model, ask())
    assert error is not None
    base_url = model.endpoint.base_url
    assert (str(error), error.retryable) == (
        f"{base_url} sent nothing for 0.4s {where} "
        "(idle timeout; TETHER_MODEL_IDLE_TIMEOUT_MS raises it)",
        True,
    )
    waits = [e for e in events if isinstance(e, Waiting)]
    # Notices from a quarter of the timeout on (0.1 s, then 0.2 s: fewer when this test runs
    # late), at least one of them before the attempt is given up.
    assert waits
    assert {w.limit_s for w in waits} == {IDLE.timeout_s}
    assert [w.waited_s >= IDLE.notice_after(n) for n, w in enumerate(waits)] == [True] * len(waits)


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_the_loop_counts_the_timeout_as_a_retry_and_recovers(
    fake_model: FakeModelServer, wire: str
) -> None:
    fake_model.script(
        reply(text("stalls"), stall_after=1),
        reply(text("Recovered."), stall_after=None),
    )
    model = model_for(wire, fake_model)
    emitted: list[Event] = []
    try:
        done = await call_model(
            model, ask(), emitted.append, RetryPolicy(max_attempts=3, base_delay_s=0.001)
        )
    finally:
        await model.aclose()
    assert done.message.text() == "Recovered."
    # The text streamed, its start and its block's end (`BlockCompleted`) aside.
    kinds = [
        type(e).__name__
        for e in emitted
        if not isinstance(e, TextDelta | ResponseStarted | BlockCompleted)
    ]
    assert kinds[-1] == "ModelRetry"
    assert set(kinds[:-1]) == {"ModelWaiting"}
    retry = next(e for e in emitted if isinstance(e, ModelRetry))
    assert (retry.attempt, retry.max_attempts) == (1, 3)
    assert "(idle timeout" in retry.reason
    assert all(e.limit_s == IDLE.timeout_s for e in emitted if isinstance(e, ModelWaiting))
    assert len(fake_model.requests) == 2


async def test_attempts_end_with_the_timeout_as_the_error(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("a"), stall_after=0), reply(text("b"), stall_after=0))
    model = model_for("anthropic", fake_model)
    emitted: list[Event] = []
    policy = RetryPolicy(max_attempts=2, base_delay_s=0)
    try:
        with pytest.raises(ModelError, match=r"idle timeout") as caught:
            await call_model(model, ask(), emitted.append, policy)
    finally:
        await model.aclose()
    assert [e.attempt for e in emitted if isinstance(e, ModelRetry)] == [1]
    assert "before answering" in str(caught.value)


def test_default_timeouts_by_where_the_endpoint_is() -> None:
    assert default_idle_limits("https://api.anthropic.com").timeout_s == HOSTED_IDLE_TIMEOUT_S
    assert default_idle_limits("https://openrouter.ai/api/v1").timeout_s == HOSTED_IDLE_TIMEOUT_S
    for local in (
        "http://localhost:11434/v1",
        "http://127.0.0.1:8080/v1",
        "http://[::1]:8000/v1",
        "http://192.168.1.20:8000/v1",
        "http://gpu-box.local:8000/v1",
    ):
        assert default_idle_limits(local).timeout_s == LOCAL_IDLE_TIMEOUT_S, local
    assert IdleLimits(180).first_notice_s == 15
    assert [IdleLimits(180).notice_after(n) for n in range(4)] == [15, 30, 60, 120]
