"""A thinking block's signature holds for the model that wrote it: the real API refuses a request
that sends it to another (400 invalid signature), and so does the fake model server. Driven over
the wire through the real Claude Agent SDK (a fallback, a resume under another model) and the
CLI (session files written before replies named their model)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli.sdk_harness import SdkRun, result_of
from tether.models.catalogue import MODELS, cost_usd
from tether.protocol import Usage
from tether.store import project_dir
from tether.testing import FakeModelServer, http_error, reply, text, thinking
from tether.testing.cli_runner import CliResult

SONNET, HAIKU = "claude-sonnet-4-6", "claude-haiku-4-5"


def _thinking_sent(request: Any) -> list[str]:
    """The signatures of the thinking blocks a request sends back."""
    return [
        block.get("signature", "")
        for message in request.messages()
        if message["role"] == "assistant" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") in ("thinking", "redacted_thinking")
    ]


@pytest.mark.parametrize("switch", [True, False])
async def test_another_models_thinking_is_not_sent_back(
    sdk: SdkRun, fake_model: FakeModelServer, switch: bool
) -> None:
    """A thinking block's signature holds for the model that wrote it: after `set_model` the
    earlier replies go without theirs (the API refuses them: 400 invalid signature); the same
    model gets them back as before."""
    fake_model.script(reply(thinking("plan", "sig-A"), text("one")), reply(text("two")))
    async with sdk.client(model=SONNET) as c:
        await c.query("first")
        [m async for m in c.receive_response()]
        if switch:
            await c.set_model(HAIKU)
        await c.query("second")
        [m async for m in c.receive_response()]
    second = fake_model.requests[-1]
    assert "one" in str(second.messages())  # the reply itself is kept
    assert _thinking_sent(second) == ([] if switch else ["sig-A"])
    assert not fake_model.rejections


async def test_the_fallback_model_is_not_sent_the_first_models_thinking(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    """The fallback takes over in the second turn: its call (the one made again) and the
    calls after it go without the thinking the first model signed; its own goes back."""
    overloaded = http_error(529, "Overloaded", "overloaded_error")
    fake_model.script(
        reply(thinking("plan", "sig-sonnet"), text("one")),
        overloaded,
        overloaded,
        overloaded,
        reply(thinking("again", "sig-haiku"), text("two")),
        reply(text("three")),
    )
    async with sdk.client(
        model=SONNET, fallback_model=HAIKU, env={"TETHER_RETRY_DELAY_MS": "10"}
    ) as c:
        for prompt in ("first", "second", "third"):
            await c.query(prompt)
            [m async for m in c.receive_response()]
    fallback, after = fake_model.requests[-2], fake_model.requests[-1]
    assert (fallback.body["model"], after.body["model"]) == (HAIKU, HAIKU)
    assert "one" in str(fallback.messages())  # the reply itself is kept
    assert _thinking_sent(fallback) == []
    assert _thinking_sent(after) == ["sig-haiku"]
    assert not fake_model.rejections


@pytest.mark.parametrize("model", [SONNET, HAIKU])
async def test_a_session_resumed_under_another_model_sends_no_thinking_of_the_first(
    sdk: SdkRun, fake_model: FakeModelServer, model: str
) -> None:
    """Each reply's model is in the session file: resumed under the same model its thinking
    goes back, under another it does not."""
    fake_model.script(reply(thinking("plan", "sig-sonnet"), text("one")), reply(text("two")))
    first = result_of(await sdk.query("first", model=SONNET))
    result_of(await sdk.query("second", model=model, resume=first.session_id))
    resumed = fake_model.requests[-1]
    assert resumed.body["model"] == model
    assert "one" in str(resumed.messages())
    assert _thinking_sent(resumed) == (["sig-sonnet"] if model == SONNET else [])
    assert not fake_model.rejections


async def _sonnet_then_haiku(sdk: SdkRun, fake_model: FakeModelServer) -> tuple[str, Path]:
    """A session that thinks under Sonnet, then under Haiku (set_model); its id and file.
    The server's next reply is "three"."""
    fake_model.script(
        reply(thinking("plan", "sig-sonnet"), text("one")),
        reply(thinking("more", "sig-haiku"), text("two")),
        reply(text("three")),
    )
    async with sdk.client(model=SONNET) as c:
        await c.query("first")
        [m async for m in c.receive_response()]
        await c.set_model(HAIKU)
        await c.query("second")
        session_id = result_of([m async for m in c.receive_response()]).session_id
    [path] = Path(os.environ["TETHER_HOME"]).glob(f"projects/*/{session_id}.jsonl")
    return session_id, path


async def test_each_reply_names_the_model_that_wrote_it_in_the_session_file(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    """After set_model the replies name the new model (as Claude Code's entries do), and a
    session resumed under it sends its thinking back, not the first model's."""
    session_id, path = await _sonnet_then_haiku(sdk, fake_model)
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    models = [e["message"]["model"] for e in entries if e["type"] == "assistant"]
    assert models == [SONNET, SONNET, HAIKU, HAIKU]  # an entry per block
    requested = [e.get("requestedModel") for e in entries if e["type"] == "assistant"]
    assert requested == models  # the label is trusted on resume
    result_of(await sdk.query("third", model=HAIKU, resume=session_id))
    assert _thinking_sent(fake_model.requests[-1]) == ["sig-haiku"]
    assert not fake_model.rejections


def _written_before(
    home: Path, workspace: Path, model: str | None, *, tool_loop: bool = False
) -> str:
    """A session file as tether wrote it before replies named the model that wrote them:
    `model` on every reply (the model the session started with), or none at all, and no
    `requestedModel`. With `tool_loop`, the file ends in one: the reply calls a tool, and
    its result is the newest message."""
    sid = "7a1d0c2e-0000-4000-8000-000000000002"
    base = {"sessionId": sid, "cwd": str(workspace), "timestamp": "2026-12-01T00:00:00.000Z"}
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": "plan", "signature": "sig-old"}],
        "usage": {"input_tokens": 5, "output_tokens": 2},
    }
    if model is not None:
        message["model"] = model
    said = {**message, "content": [{"type": "text", "text": "one"}]}
    lines = [
        {**base, "type": "meta", "uuid": "m0", "parentUuid": None, "data": {"model": model}},
        {
            **base,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "message": {"role": "user", "content": "first"},
        },
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": message},
        {**base, "type": "assistant", "uuid": "a2", "parentUuid": "a1", "message": said},
    ]
    if tool_loop:
        call = {"type": "tool_use", "id": "toolu_1", "name": "Glob", "input": {"pattern": "*"}}
        result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "none"}
        lines += [
            {
                **base,
                "type": "assistant",
                "uuid": "a3",
                "parentUuid": "a2",
                "message": {**message, "content": [call]},
            },
            {
                **base,
                "type": "user",
                "uuid": "u2",
                "parentUuid": "a3",
                "message": {"role": "user", "content": [result]},
            },
        ]
    directory = project_dir(home, workspace)
    directory.mkdir(parents=True)
    (directory / f"{sid}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return sid


@pytest.mark.parametrize(
    ("written", "resumed", "tool_loop", "kept"),
    [
        # Its label cannot be trusted (the first model's, on every reply): its thinking goes
        # under any model; a past turn goes without it.
        (SONNET, SONNET, False, False),
        (SONNET, HAIKU, False, False),
        (None, SONNET, False, False),
        # The reply of the tool loop the file ends in cannot go without it: it keeps its
        # label, judged as before.
        (SONNET, SONNET, True, True),
        (SONNET, HAIKU, True, False),
        (None, SONNET, True, True),
    ],
)
def test_a_session_file_written_before_resumes(
    fake_model: FakeModelServer,
    tether: Callable[..., CliResult],
    workspace: Path,
    written: str | None,
    resumed: str,
    tool_loop: bool,
    kept: bool,
) -> None:
    sid = _written_before(Path(os.environ["TETHER_HOME"]), workspace, written, tool_loop=tool_loop)
    fake_model.script(reply(text("two")))
    result = tether("-r", sid, "-p", "second", "--model", resumed)
    assert (result.exit_code, result.stdout) == (0, "two\n"), result.stderr
    sent = fake_model.requests[-1]
    assert "one" in str(sent.messages())
    assert _thinking_sent(sent) == (["sig-old"] if kept else [])


@pytest.mark.parametrize("resumed", [SONNET, HAIKU])
async def test_a_set_model_session_file_written_before_resumes_without_another_models_thinking(
    sdk: SdkRun, fake_model: FakeModelServer, resumed: str
) -> None:
    """A session that changed model, its file as tether wrote it before (every reply
    labelled with the first model, no `requestedModel`): Haiku's thinking labelled Sonnet's
    is not sent to Sonnet (refused: 400 invalid signature), nor is any of the file's."""
    session_id, path = await _sonnet_then_haiku(sdk, fake_model)
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    for entry in entries:
        if entry["type"] == "assistant":
            entry.pop("requestedModel", None)
            entry["message"]["model"] = SONNET
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    third = result_of(await sdk.query("third", model=resumed, resume=session_id))
    assert (third.is_error, third.result) == (False, "three")
    sent = fake_model.requests[-1]
    assert "two" in str(sent.messages())
    assert _thinking_sent(sent) == []
    assert not fake_model.rejections


async def test_a_reply_of_no_known_model_loses_its_thinking_on_resume(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    """A file without the replies' model, resumed: its thinking goes (whose it is cannot
    be known), before set_model and after."""
    sid = _written_before(Path(os.environ["TETHER_HOME"]), workspace, None)
    fake_model.script(reply(text("two")), reply(text("three")))
    async with sdk.client(model=SONNET, resume=sid) as c:
        await c.query("second")
        [m async for m in c.receive_response()]
        await c.set_model(HAIKU)
        await c.query("third")
        [m async for m in c.receive_response()]
    same, changed = fake_model.requests[-2], fake_model.requests[-1]
    assert _thinking_sent(same) == []
    assert _thinking_sent(changed) == []
    assert "one" in str(changed.messages())


async def test_a_reply_that_is_only_another_models_thinking_is_sent_as_no_content(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    """A reply cut by max_tokens while it thought holds nothing but signed thinking: under
    another model it goes as Claude Code sends it, `(no content)`, not with the signature
    (refused: 400 on every later request) nor empty (refused too); in a resumed session too."""
    fake_model.script(
        reply(thinking("plan", "sig-sonnet"), stop_reason="max_tokens"),
        reply(text("one")),  # the call made again on max_tokens
        reply(text("two")),
        reply(text("three")),
    )
    async with sdk.client(model=SONNET) as c:
        await c.query("first")
        [m async for m in c.receive_response()]
        await c.set_model(HAIKU)
        await c.query("second")
        second = result_of([m async for m in c.receive_response()])
    assert (second.is_error, second.result) == (False, "two")
    sent = fake_model.requests[-1]
    assert _thinking_sent(sent) == []
    assert {"role": "assistant", "content": [{"type": "text", "text": "(no content)"}]} in [
        m for m in sent.messages() if m["role"] == "assistant"
    ]
    resumed = result_of(await sdk.query("third", model=HAIKU, resume=second.session_id))
    assert (resumed.is_error, resumed.result) == (False, "three")
    assert _thinking_sent(fake_model.requests[-1]) == []
    assert not fake_model.rejections


@pytest.mark.parametrize("plan_first", [True, False])
async def test_opusplan_judges_and_records_each_reply_under_the_model_it_went_to(
    sdk: SdkRun, fake_model: FakeModelServer, plan_first: bool
) -> None:
    """Under `opusplan` plan mode's requests go to Opus, the others to Sonnet: a switch of
    mode is a switch of model (the other's thinking is not sent), and a plan-mode reply is
    Opus's in the session file and in `modelUsage`, at Opus's price."""
    opus, sonnet = "claude-opus-5-5", "claude-sonnet-5-5"
    first, then = (opus, sonnet) if plan_first else (sonnet, opus)
    fake_model.script(reply(thinking("p", "sig-first"), text("one")), reply(text("two")))
    start = "plan" if plan_first else "default"
    async with sdk.client(model="opusplan", permission_mode=start) as c:
        await c.query("first")
        one = result_of([m async for m in c.receive_response()])
        await c.set_permission_mode("default" if plan_first else "plan")
        await c.query("second")
        [m async for m in c.receive_response()]
    asked = [r.body["model"] for r in fake_model.requests if "first" in str(r.messages())]
    assert asked == [first, then]
    assert _thinking_sent(fake_model.requests[-1]) == []
    assert not fake_model.rejections
    assert one.model_usage is not None
    assert set(one.model_usage) == {first}
    [path] = Path(os.environ["TETHER_HOME"]).glob(f"projects/*/{one.session_id}.jsonl")
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    models = [e["message"]["model"] for e in entries if e["type"] == "assistant"]
    assert models == [first, first, then]
    usage = one.usage or {}
    keys = (
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    )
    spent = Usage(**{key: usage[key] for key in keys})
    assert one.total_cost_usd == pytest.approx(cost_usd(MODELS[first], spent), abs=1e-6)
