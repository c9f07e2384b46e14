"""Loops new only in random words are stopped at the stop's count of replies, over the wire:
a subagent asked a new random question answering another random word, a rotation of searches
and subagents asked random words, a random word passed through a workspace file, a counter or
a random name written to files. Each ran to the test's cap before (a random word through a
file, or a subagent's fresh word, counted as new content; a new file each reply as a new
path)."""

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

BOUND = IDLE_STOP_AT + REWRITTEN_AT + 6
"""At most this many of the lead's replies before the stop: the first of each shape is new."""


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


def _word() -> str:
    return "".join(random.choice(string.ascii_lowercase) for _ in range(9))


def _task(prompt: str) -> Any:
    return tool_use("Task", prompt=prompt, description="check", subagent_type="general-purpose")


LOOPS: dict[str, Callable[[int, Path], Any]] = {
    "task_new_random_question_random_answer": lambda i, ws: _task(f"SUB: is {_word()} used?"),
    "rotation_of_searches_and_tasks_for_random_words": lambda i, ws: [
        tool_use("Grep", pattern=_word(), path=str(ws)),
        tool_use("Glob", pattern=f"**/{_word()}*", path=str(ws)),
        _task(f"SUB: is {_word()} used?"),
        tool_use("Bash", command=f"grep -r {_word()} . || echo none"),
    ][i % 4],
    "a_random_word_through_a_file": lambda i, ws: tool_use(
        "Bash", command=f"echo {_word()} > scratch.txt && cat scratch.txt"
    ),
    "a_counter_written_then_shown": lambda i, ws: [
        tool_use("Write", file_path=f"{ws}/state.json", content=json.dumps({"n": i})),
        tool_use("Bash", command="cat state.json"),
    ][i % 2],
    "a_junk_file_touched_each_reply": lambda i, ws: tool_use(
        "Bash", command=f"touch junk_{_word()}.tmp"
    ),
    "the_same_text_written_under_new_names": lambda i, ws: tool_use(
        "Write", file_path=f"{ws}/gen/{_word()}.txt", content="generated\n"
    ),
    "files_named_by_a_counter": lambda i, ws: tool_use(
        "Write", file_path=f"{ws}/out/result_{i}.txt", content=f"result {i}\n"
    ),
}


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_a_loop_new_only_in_random_words_is_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path, wire: str, loop: str
) -> None:
    (workspace / "app.py").write_text("print('hello')\n")
    leads: list[int] = []

    def respond(request: RecordedRequest) -> Any:
        first = next(m for m in request.messages() if m["role"] == "user")
        if "SUB:" in json.dumps(first["content"]):
            return text(f"checked: {_word()} is not used")
        leads.append(request.index)
        if len(leads) > LONG_HUNT:  # reached only where the guard has a hole
            return text("gave up")
        return reply(LOOPS[loop](len(leads), workspace))

    fake_model.responder = respond
    args = ["-p", "go", "--output-format", "json", "--dangerously-skip-permissions"]
    result = tether(*args, *wire_model(wire))
    assert result.exit_code == 1, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.json()["errors"][0].startswith(f"stopped: the model {IDLE} in {IDLE_STOP_AT}")
    assert len(leads) <= BOUND
