"""A model whose every reply holds something it has not seen (a clock, a random number, a
counter in a failing call's string, the same failing call every third reply beside a call that
works) but that changes no file and looks at nothing new is told, then stopped, over the wire,
on both wires; the session goes on. Before, each of these ran for ever (or was reminded more
than a hundred times and never stopped). Loops that work the way a model works, editing with
the shell or exploring file after file, run to their end."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.idle_runs import IDLE, Run, wire_model
from tether.core.repeated_calls import IDLE_NOTE_AT, IDLE_STOP_AT
from tether.testing import FakeModelServer, reply, text, tool_use


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


def _reminders(fake_model: FakeModelServer) -> list[list[str]]:
    """Each request's reminders (in its newest message, after the tool results)."""
    told: list[list[str]] = []
    for request in fake_model.requests:
        content = request.messages()[-1].get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        said = " ".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
        told.append(re.findall(r"<system-reminder>(.*?)</system-reminder>", said, re.S))
    return told


def _bash(command: str) -> Any:
    return tool_use("Bash", command=command)


def _works_to_the_end(
    fake_model: FakeModelServer, tether: Run, steps: list[Any], answer: str, *args: str
) -> None:
    """`steps`, then `answer`, run headless: the turn ends with `answer`, never reminded."""
    fake_model.script(*steps, reply(text(answer)))
    flags = ["--output-format", "json", "--dangerously-skip-permissions"]
    result = tether("-p", "work", *flags, *args)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.json()["result"] == answer
    assert not any(notes for notes in _reminders(fake_model))


LOOPS: dict[str, Callable[[int, Path], Any]] = {
    "random_output_only": lambda i, ws: reply(_bash("echo $RANDOM$RANDOM")),
    "counter_in_a_failing_path_beside_a_clock": lambda i, ws: reply(
        tool_use("Read", file_path=f"/nonexistent/x{i}.txt"), _bash("date +%s%N")
    ),
    "counter_in_a_failing_command_beside_a_counter": lambda i, ws: reply(
        _bash(f"X={i} false"), _bash(f"echo {i}")
    ),
    "counter_in_old_string_beside_a_plan": lambda i, ws: reply(
        tool_use("Edit", file_path=f"{ws}/f.txt", old_string=f"missing {i}", new_string="x"),
        tool_use(
            "TodoWrite",
            todos=[{"content": f"step {i}", "status": "in_progress", "activeForm": f"doing {i}"}],
        ),
    ),
    "same_failing_read_every_third_reply_beside_a_clock": lambda i, ws: reply(
        tool_use("Read", file_path=["/nonexistent/x.txt", "/NONEXISTENT/x.txt", "x.TXT"][i % 3]),
        _bash("date +%N"),
    ),
}


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_a_loop_that_only_sees_new_output_is_told_then_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path, wire: str, loop: str
) -> None:
    (workspace / "f.txt").write_text("hello\n")
    make = LOOPS[loop]
    fake_model.responder = lambda request: make(request.index, workspace)
    # The turn limit only bounds the test where the guard has a hole (the run went on for ever).
    args = ["-p", "go", "--output-format", "json", "--max-turns", "60"]
    result = tether(*args, "--dangerously-skip-permissions", *wire_model(wire))
    assert result.exit_code == 1, result.stdout + result.stderr
    outcome = result.json()
    assert outcome["errors"][0].startswith(f"stopped: the model {IDLE} in {IDLE_STOP_AT} replies")
    assert "the session is kept" in outcome["errors"][0]
    # The loop's first output was new (the first reply is headway, then none is).
    calls = len(fake_model.requests)
    assert calls in (IDLE_STOP_AT, IDLE_STOP_AT + 1)
    told = [n for n, notes in enumerate(_reminders(fake_model)) if any(IDLE in x for x in notes)]
    assert told == list(range(calls - (IDLE_STOP_AT - IDLE_NOTE_AT), calls))  # the last ten
    fake_model.responder = reply(text("I will stop."))
    again = tether("-p", "-c", "what now?", "--output-format", "json", *wire_model(wire))
    assert again.exit_code == 0, again.stderr
    assert again.json()["result"] == "I will stop."


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_fixing_tests_with_the_shell_alone_is_work(
    fake_model: FakeModelServer, tether: Run, workspace: Path, wire: str
) -> None:
    """Each fix a `sed -i` (a Bash command, not an Edit), each test run failing with a new
    count: twice the stop's count of replies, none of them a repeat."""
    bugs = IDLE_STOP_AT
    (workspace / "src.txt").write_text("".join(f"bug{i};\n" for i in range(bugs)))
    (workspace / "test.sh").write_text(
        'n=$(grep -c bug src.txt); echo "$n tests failing"; [ "$n" -eq 0 ]\n'
    )
    steps = [reply(_bash("cat src.txt"))]
    for i in range(bugs):
        steps += [reply(_bash("sh test.sh")), reply(_bash(f"sed -i 's/bug{i};/ok;/' src.txt"))]
    steps.append(reply(_bash("sh test.sh")))
    _works_to_the_end(fake_model, tether, steps, "fixed", *wire_model(wire))
    assert (workspace / "src.txt").read_text() == "ok;\n" * bugs


def test_exploring_file_after_file_is_work(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """Reading a new file each reply (with Read, with `cat`, with `grep` on it), twice the
    stop's count of replies, with a search of the same place between: never told, not stopped."""
    files = IDLE_STOP_AT
    for i in range(files):
        (workspace / f"m{i}.py").write_text(f"def f{i}(): return {i}\n")
    steps: list[Any] = []
    for i in range(files):
        look = [
            tool_use("Read", file_path=str(workspace / f"m{i}.py")),
            _bash(f"cat m{i}.py"),
            _bash(f"grep -n def m{i}.py"),
        ][i % 3]
        steps += [reply(look), reply(tool_use("Grep", pattern="return", path=str(workspace)))]
    _works_to_the_end(fake_model, tether, steps, "explained")


def test_paging_a_long_file_and_searching_name_after_name_are_work(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """A long log read a hundred lines at a time, then a search for one name after another
    in the same place, each twice the stop's count of replies: never told, not stopped (each
    page and each search shows what was not seen; the same page again would not)."""
    pages = IDLE_STOP_AT + 5
    log = workspace / "build.log"
    log.write_text("".join(f"line {n}\n" for n in range(pages * 100)))
    steps: list[Any] = [
        reply(tool_use("Read", file_path=str(log), offset=1 + 100 * n, limit=100))
        for n in range(pages)
    ]
    names = [f"name_{chr(97 + n % 26)}{chr(97 + n // 26)}" for n in range(IDLE_STOP_AT + 5)]
    # Each name is found where it is defined (a search finding nothing shows nothing new).
    (workspace / "names.py").write_text("".join(f"def {name}(): ...\n" for name in names))
    steps += [reply(tool_use("Grep", pattern=name, path=str(workspace))) for name in names]
    _works_to_the_end(fake_model, tether, steps, "read")


def test_investigating_with_the_shell_is_work(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """A log paged with `sed -n` and searched name after name with `grep`, past the stop's
    count of replies: each shows what was not shown before, though it names no new file (it
    was stopped at the 30th reply)."""
    words = [f"{a}{b}" for a in "bcdfghjklm" for b in ("ar", "en", "ix", "ot", "up")]
    (workspace / "app.log").write_text("".join(f"request {w} handled\n" for w in words))
    steps = [reply(_bash(f"sed -n {n + 1},{n + 1}p app.log")) for n in range(IDLE_STOP_AT)]
    # The last lines first: a line the paging showed already is nothing new found again.
    steps += [reply(_bash(f"grep -n {w} app.log")) for w in words[::-1][:IDLE_STOP_AT]]
    _works_to_the_end(fake_model, tether, steps, "found it")


def test_the_same_page_again_and_again_is_no_headway(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("".join(f"{n}\n" for n in range(500)))
    fake_model.responder = lambda request: reply(
        tool_use("Read", file_path=str(workspace / "a.txt"), offset=1, limit=10),
        _bash("date +%N"),
    )
    args = ["-p", "go", "--output-format", "json", "--max-turns", "60"]
    result = tether(*args, "--dangerously-skip-permissions")
    assert result.exit_code == 1, result.stdout + result.stderr
    assert result.json()["errors"][0].startswith(f"stopped: the model {IDLE} in {IDLE_STOP_AT}")


CLOCK_SERVER = """
import time
from mcp.server.mcpserver import MCPServer

server = MCPServer("clock", log_level="WARNING")


@server.tool()
def now(step: str) -> str:
    \"\"\"The time, for a step.\"\"\"
    return f"{step}: {time.time_ns()}"


if __name__ == "__main__":
    server.run("stdio")
"""


def test_an_mcp_tool_asked_the_same_again_with_a_counter_is_no_headway(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path
) -> None:
    """An MCP tool's work is not seen, only its answer: one that echoes what it was asked
    beside a clock is no headway, whatever new it was asked or answers."""
    workspace = trusted_workspace
    (workspace / "clock.py").write_text(CLOCK_SERVER)
    server = {"command": sys.executable, "args": [str(workspace / "clock.py")]}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"clock": server}}))
    steps = ["build", "lint", "test", "deploy", "verify"]  # new in words, echoed back
    fake_model.responder = lambda request: reply(
        tool_use("mcp__clock__now", step=f"step {request.index}")
        if request.index >= len(steps)
        else tool_use("mcp__clock__now", step=steps[request.index])
    )
    args = ["-p", "go", "--output-format", "json", "--max-turns", "60"]
    result = tether(*args, "--dangerously-skip-permissions")
    assert result.exit_code == 1, result.stdout + result.stderr
    assert result.json()["errors"][0].startswith(f"stopped: the model {IDLE} in {IDLE_STOP_AT}")
    # Each answer echoes the step it was given beside a clock: none is new content, the new
    # words of the first five steps no more than the counter after them.
    assert len(fake_model.requests) in (IDLE_STOP_AT, IDLE_STOP_AT + 1)
