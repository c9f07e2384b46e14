"""`/context`, `/cost` and `/model NAME` sent as an SDK program's prompt are answered locally,
as Claude Code answers them headless: no model request, the answer as a reply of no model
(`<synthetic>`) and as the result; `/model` switches the model of the next requests. A name
that cannot be resolved is an error result and changes nothing. The real SDK, over the wire."""

from __future__ import annotations

from claude_agent_sdk import AssistantMessage, ResultMessage

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text


async def _each(sdk: SdkRun, prompts: list[str]) -> list[list[object]]:
    seen: list[list[object]] = []
    async with sdk.client(model="claude-sonnet-4-5") as client:
        for prompt in prompts:
            await client.query(prompt)
            seen.append([m async for m in client.receive_response()])
    return seen


def _result(messages: list[object]) -> ResultMessage:
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    return result


async def test_context_cost_and_model_are_answered_locally(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("ans0")), reply(text("ans1")))
    prompts = ["hello", "/context", "/cost", "/model claude-haiku-4-5", "after"]
    seen = await _each(sdk, prompts)
    assert len(fake_model.requests) == 2
    assert fake_model.requests[-1].body["model"] == "claude-haiku-4-5"
    assert fake_model.requests[-1].last_user_text().endswith("after")
    sent = str([r.body for r in fake_model.requests])
    for command in ("/context", "/cost", "/model"):
        assert command not in sent
    context, cost, model = (_result(m) for m in seen[1:4])
    assert str(context.result).startswith("## Context Usage")
    assert "**Model:** claude-sonnet-4-5" in str(context.result)
    assert str(cost.result).startswith("Total cost:            $")
    assert model.result == "Set model to `claude-haiku-4-5` for this session only"
    for messages in seen[1:4]:
        [said] = [m for m in messages if isinstance(m, AssistantMessage)]
        assert said.model == "<synthetic>"
        assert (_result(messages).is_error, _result(messages).num_turns) == (False, 0)
    sdk.assert_lines_parse()


async def test_an_unknown_model_is_an_error_and_changes_nothing(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("still sonnet")))
    seen = await _each(sdk, ["/model anthropic/", "hi"])
    assert _result(seen[0]).is_error
    assert "names no model" in str(_result(seen[0]).errors)
    assert [r.body["model"] for r in fake_model.requests] == ["claude-sonnet-4-5"]


async def test_clear_starts_a_new_session(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    """As Claude Code: `/clear` is no request; the next prompt goes alone, in a new session
    (new id, cost from zero), the old one kept."""
    fake_model.script(reply(text("ans0")), reply(text("ans1")), reply(text("ans2")))
    seen = await _each(sdk, ["one", "two", "/clear", "after clear"])
    assert len(fake_model.requests) == 3
    last = fake_model.requests[-1]
    assert [m["role"] for m in last.messages()] == ["user"]
    assert last.last_user_text().endswith("after clear")
    cleared, after = _result(seen[2]), _result(seen[3])
    assert (cleared.result, cleared.is_error, cleared.num_turns) == ("", False, 0)
    assert not [m for m in seen[2] if isinstance(m, AssistantMessage)]
    assert cleared.session_id != _result(seen[1]).session_id
    assert after.session_id == cleared.session_id
    # The new session's cost is its one request's: less than the old one's two.
    assert (after.total_cost_usd or 0) < (_result(seen[1]).total_cost_usd or 0)
    sdk.assert_lines_parse()
