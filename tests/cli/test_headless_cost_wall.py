"""Headless `/cost` tells the wall time since the front end started, as the REPL's does and as
Claude Code's does: `-p /cost` in text mode, and `/cost` sent by an SDK program after a turn."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from claude_agent_sdk import ResultMessage

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

DURATION = r"(\d+(\.\d+)?s|\d+m \d+(\.\d+)?s|\d+h \d+m \d+(\.\d+)?s)"


def _headings(said: str) -> list[str]:
    """The lines of a `/cost` answer up to its per-model rows, their figures left out."""
    return [re.sub(r"[:$].*", ":", line) for line in said.splitlines()[:5]]


def test_p_cost_tells_the_wall_time(
    tether: Callable[..., CliResult], fake_model: FakeModelServer
) -> None:
    ran = tether("-p", "/cost")
    assert ran.exit_code == 0, ran.stderr
    assert _headings(ran.stdout) == [
        "Total cost:",
        "Total duration (API):",
        "Total duration (wall):",
        "Total code changes:",
        "Usage by model:",
    ]
    [wall] = [line for line in ran.stdout.splitlines() if "(wall)" in line]
    assert re.fullmatch(rf"Total duration \(wall\): {DURATION}", wall), wall
    assert fake_model.requests == []


async def test_sdk_cost_after_a_turn_tells_the_wall_time(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("hi")))
    async with sdk.client(model="claude-sonnet-4-5") as client:
        answers: list[str] = []
        for prompt in ("hello", "/cost"):
            await client.query(prompt)
            async for message in client.receive_response():
                if isinstance(message, ResultMessage):
                    answers.append(str(message.result))
    assert answers[0] == "hi"
    assert _headings(answers[1])[:3] == [
        "Total cost:",
        "Total duration (API):",
        "Total duration (wall):",
    ]
    sdk.assert_lines_parse()


def _seconds(said: str, which: str) -> float:
    [line] = [line for line in said.splitlines() if f"({which})" in line]
    parts = re.findall(r"([0-9.]+)([hms])", line)
    return sum(float(n) * {"h": 3600, "m": 60, "s": 1}[unit] for n, unit in parts)


def test_p_cost_after_continuing_tells_a_wall_time_that_goes_on_from_the_earlier_runs(
    tether: Callable[..., CliResult], fake_model: FakeModelServer
) -> None:
    # The earlier run's model call took a second: its API time is carried, and so must be
    # the wall time that held it, or wall would read less than API.
    fake_model.script(reply(text("hi"), delay_s=1.0))
    first = tether("-p", "hello")
    assert (first.exit_code, first.stdout) == (0, "hi\n"), first.stderr
    ran = tether("-c", "-p", "/cost")
    assert ran.exit_code == 0, ran.stderr
    api, wall = _seconds(ran.stdout, "API"), _seconds(ran.stdout, "wall")
    assert (api >= 1.0, wall >= api) == (True, True), ran.stdout


def _continued_cost(tether: Callable[..., CliResult], *how: str) -> float:
    ran = tether(*how, "-p", "/cost")
    assert ran.exit_code == 0, ran.stderr
    return _seconds(ran.stdout, "wall")


def test_p_cost_after_resuming_carries_the_earlier_runs_wall_time_tool_time_and_all(
    tether: Callable[..., CliResult], fake_model: FakeModelServer
) -> None:
    # The first run's time went to a tool, not the model: its API time says nothing of it,
    # and the wall time told after each resume must hold it and only grow.
    fake_model.script(reply(tool_use("Bash", command="sleep 1")), reply(text("slept")))
    first = tether("-p", "sleep", "--output-format", "json", "--allowedTools", "Bash")
    assert first.exit_code == 0, first.stderr
    took_s = json.loads(first.stdout)["duration_ms"] / 1000
    continued = _continued_cost(tether, "-c")
    again = _continued_cost(tether, "-c")
    session_id = json.loads(first.stdout)["session_id"]
    forked = _continued_cost(tether, "--resume", session_id, "--fork-session")
    # /cost shows tenths: a figure at most 0.05 s under the time it rounds. A run that only
    # says /cost adds no reply, so its own time is not carried: each figure holds the first
    # run's time and its own, and need not grow from one /cost run to the next.
    assert (
        continued + 0.05 >= took_s,
        again + 0.05 >= took_s,
        forked + 0.05 >= took_s,
    ) == (True, True, True), (took_s, continued, again, forked)
