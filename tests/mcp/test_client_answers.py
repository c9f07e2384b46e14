"""What tether answers when a server asks (roots, elicitation, sampling), with a real SDK
server over stdio whose tools ask: declared only when the session answers, each answer reaching
the server; the roots changed while connected are the ones it reads next. Then a whole `-p`
run: sampling through the session's own model (over the wire), allowed only by the rules, and
elicitation declined headless."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from tests.mcp.conftest import FAST, SCRIPTS, script
from tether.mcp.client_side import ClientSide, Elicitation, Elicited, Sampled, SamplingRequest
from tether.mcp.manager import McpManager
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult


async def test_a_server_asks_and_gets_the_answers_the_session_gives(tmp_path: Path) -> None:
    asked: list[Elicitation | SamplingRequest] = []

    async def elicit(question: Elicitation) -> Elicited:
        asked.append(question)
        return Elicited("accept", {"colour": "teal"})

    async def sample(request: SamplingRequest) -> Sampled:
        asked.append(request)
        return Sampled("three word summary", "some-model")

    first, second = tmp_path / "one", tmp_path / "two"
    side = ClientSide(roots=(first,), elicit=elicit, sample=sample)
    async with McpManager([script("ask", "asking_server.py")], FAST, client=side) as manager:
        colour = await manager.call("mcp__ask__favourite", {})
        summary = await manager.call("mcp__ask__summarise", {"text": "a long text"})
        roots = await manager.call("mcp__ask__roots", {})
        await manager.set_roots([second])
        moved = await manager.call("mcp__ask__roots", {})
    assert colour.text == "colour=teal"
    assert summary.text == "summary=three word summary model=some-model"
    assert roots.text == f"{first.as_uri()} changed=0"
    # On the 2026-07-28 protocol the server asks for the roots with each call, so it has the
    # new ones without the (deprecated) notification; test_real_servers has a server that
    # needs it.
    assert moved.text.startswith(f"{second.as_uri()} changed=")
    [question, request] = asked
    assert isinstance(question, Elicitation)
    assert question.message == "What is your favourite colour?"
    assert question.schema["properties"]["colour"]["type"] == "string"
    assert request == SamplingRequest(
        "ask", (("user", "a long text"),), 50, "Summarise in three words."
    )


async def test_without_answers_the_server_is_told_the_client_cannot() -> None:
    async with McpManager([script("ask", "asking_server.py")], FAST) as manager:
        summary = await manager.call("mcp__ask__summarise", {"text": "x"})
    assert summary.is_error
    assert "sampling" in summary.text


def _config(tmp_path: Path) -> str:
    path = tmp_path / "servers.json"
    server = {"command": sys.executable, "args": [str(SCRIPTS / "asking_server.py")]}
    path.write_text(json.dumps({"mcpServers": {"ask": server}}))
    return str(path)


def test_sampling_goes_through_the_session_model_when_the_rules_allow_the_server(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], tmp_path: Path
) -> None:
    fake_model.script(
        reply(tool_use("mcp__ask__summarise", text="a long text to shorten")),
        reply(text("Short text here")),  # the server's sampling request
        reply(tool_use("mcp__ask__favourite")),
        reply(text("Done.")),
    )
    result = tether(
        "-p",
        "summarise",
        "--mcp-config",
        _config(tmp_path),
        "--permission-mode",
        "default",
        "--allowedTools",
        "mcp__ask",
    )
    assert result.exit_code == 0, result.stderr
    sampling = fake_model.requests[1]
    assert sampling.system() == "Summarise in three words."
    assert sampling.last_user_text() == "a long text to shorten"
    assert sampling.tool_names() == []
    summary = fake_model.requests[2].tool_results()[0]
    assert summary.startswith("summary=Short text here model=claude-")
    # Headless, nobody can fill the server's form: declined, and the server says so.
    assert fake_model.requests[3].tool_result_errors() == [True]
    assert "decline" in fake_model.requests[3].tool_results()[0]


def test_sampling_is_refused_when_only_a_tool_of_the_server_is_allowed(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], tmp_path: Path
) -> None:
    fake_model.script(
        reply(tool_use("mcp__ask__summarise", text="a long text")),
        reply(text("Done.")),
    )
    result = tether(
        "-p",
        "summarise",
        "--mcp-config",
        _config(tmp_path),
        "--permission-mode",
        "default",
        "--allowedTools",
        "mcp__ask__summarise",
    )
    assert result.exit_code == 0, result.stderr
    assert len(fake_model.requests) == 2  # no sampling request reached the model
    [said] = fake_model.requests[1].tool_results()
    assert "sampling needs permission" in said
    assert '["mcp__ask"]' in said
