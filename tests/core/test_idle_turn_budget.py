"""The idle bound's allowance for calls that only vary what an earlier one showed is the
turn's, not each tool's, over the wire: a runaway rotating among six tools whose outputs vary
at random was stopped after about a hundred replies per tool (636 requests); a command varied
in a word of its input showing the same, a search for a new random word finding nothing, and
a subagent asked a new question answering as before were never stopped. Real work still runs
to its end: a search for word after word that finds something new each time."""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.idle_runs import IDLE, LONG_HUNT, Run, wire_model
from tether.core.headway_rewrites import REWRITTEN_AT
from tether.core.repeated_calls import IDLE_STOP_AT
from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use

CAP = 2 * LONG_HUNT
"""Where the scripted model gives up: reached only where the guard has a hole."""

BOUND = IDLE_STOP_AT + 8
"""At most this many of the model's replies before the stop of a loop of one call."""

PER_TOOL = 1 + REWRITTEN_AT
"""What a loop rotating among tools may add to `BOUND` per tool, not per call of it: each
tool's first output is new, and a file the test rewrites is a changed file a few times."""


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


def _word(length: int = 12) -> str:
    return "".join(random.choice(string.ascii_lowercase) for _ in range(length))


ROTATED: list[Callable[[Path], Any]] = [
    lambda ws: tool_use("Bash", command="cat noise.txt"),
    lambda ws: tool_use("Read", file_path=f"{ws}/noise.txt"),
    lambda ws: tool_use("Grep", pattern="token", path=str(ws), output_mode="content"),
    lambda ws: tool_use("Glob", pattern="spool/*.tmp", path=str(ws)),
    lambda ws: tool_use("Bash", command="ls spool"),
    lambda ws: tool_use(
        "Task", prompt="SUB: check", description="check", subagent_type="general-purpose"
    ),
]
"""Calls of six tools (Bash twice, as two signatures) that show what the test, as a process
beside the session, drew at random before the reply: a word in a file, a file's name."""


def _is_subagent(request: RecordedRequest) -> bool:
    first = next(m for m in request.messages() if m["role"] == "user")
    return "SUB:" in json.dumps(first["content"])


def _rotating(ws: Path, tools: int, leads: list[int]) -> Callable[[RecordedRequest], Any]:
    def respond(request: RecordedRequest) -> Any:
        if _is_subagent(request):
            return text(f"checked: {_word()}")
        leads.append(request.index)
        if len(leads) > CAP:
            return text("gave up")
        (ws / "noise.txt").write_text(f"token {_word()}\n")
        (ws / "spool" / f"{_word()}.tmp").touch()
        return reply(ROTATED[len(leads) % tools](ws))

    return respond


@pytest.mark.parametrize("tools", [1, 3, 6])
def test_a_runaway_rotating_among_tools_is_stopped_as_one_tool_is(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tools: int
) -> None:
    (workspace / "spool").mkdir()
    leads: list[int] = []
    fake_model.responder = _rotating(workspace, tools, leads)
    args = ["-p", "go", "--output-format", "json", "--dangerously-skip-permissions"]
    result = tether(*args)
    assert result.exit_code == 1, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.json()["errors"][0].startswith(f"stopped: the model {IDLE} in {IDLE_STOP_AT}")
    print(f"rotating {tools}: {len(leads)} replies of the lead")
    assert len(leads) <= BOUND + PER_TOOL * tools


RUNAWAYS: dict[str, Callable[[Path], Any]] = {
    "a_command_varied_in_a_comment_showing_the_same": lambda ws: tool_use(
        "Bash", command=f"echo hi # {random.getrandbits(64):x}"
    ),
    "a_command_varied_in_a_word_showing_the_same": lambda ws: tool_use(
        "Bash", command=f"echo hi || echo {_word()}"
    ),
    "a_command_echoing_a_new_random_word": lambda ws: tool_use("Bash", command=f"echo {_word()}"),
    "a_search_for_a_new_random_word_finding_nothing": lambda ws: tool_use(
        "Grep", pattern=_word(), path=str(ws)
    ),
    "a_file_search_for_a_new_random_word_finding_nothing": lambda ws: tool_use(
        "Glob", pattern=f"**/{_word()}*", path=str(ws)
    ),
    "a_subagent_asked_a_new_question_answering_the_same": lambda ws: tool_use(
        "Task",
        prompt=f"SUB: is {_word()} used?",
        description="check",
        subagent_type="general-purpose",
    ),
}


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize("loop", sorted(RUNAWAYS))
def test_a_loop_new_only_in_what_it_asks_is_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path, wire: str, loop: str
) -> None:
    (workspace / "app.py").write_text("print('hello')\n")
    leads: list[int] = []

    def respond(request: RecordedRequest) -> Any:
        if _is_subagent(request):
            return text("not used anywhere")
        leads.append(request.index)
        return reply(RUNAWAYS[loop](workspace)) if len(leads) <= CAP else text("gave up")

    fake_model.responder = respond
    args = ["-p", "go", "--output-format", "json", "--dangerously-skip-permissions"]
    result = tether(*args, *wire_model(wire))
    assert result.exit_code == 1, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.json()["errors"][0].startswith(f"stopped: the model {IDLE} in {IDLE_STOP_AT}")
    print(f"{loop}: {len(leads)} replies of the lead")
    assert len(leads) <= BOUND


def test_searching_word_after_word_finding_something_new_runs_to_its_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    words = [_word(10) for _ in range(LONG_HUNT + IDLE_STOP_AT + 20)]
    # Each word is found where it is used, each time beside other words.
    uses = (f"def {w}({_word(6)}: int) -> str:\n    return {_word(8)}({_word(5)})\n" for w in words)
    (workspace / "app.py").write_text("".join(uses))
    fake_model.script(
        *(
            reply(tool_use("Grep", pattern=w, path=str(workspace), output_mode="content"))
            for w in words
        ),
        reply(text("all found")),
    )
    args = ["-p", "go", "--output-format", "json", "--dangerously-skip-permissions"]
    result = tether(*args)
    assert result.exit_code == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.json()["result"] == "all found"
    assert len(fake_model.requests) == len(words) + 1
