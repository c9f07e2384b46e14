"""An SDK `interrupt` while prompts sent during the turn wait: its answer lists them under
`still_queued` (as Claude Code's does), and they run next, joined in one turn; prompts sent
before the first turn starts join the turn after it, as in Claude Code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tether.testing import FakeModelServer, reply, text, tool_use


def _send(process: subprocess.Popen[str], line: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(line) + "\n")
    process.stdin.flush()


def _until(process: subprocess.Popen[str], wanted: Any) -> dict[str, Any]:
    assert process.stdout is not None
    for raw in process.stdout:
        line = json.loads(raw)
        if wanted(line):
            return line
    raise AssertionError("tether ended before the line came")


def _stream_json(workspace: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "tether", "--cwd", str(workspace)]
    command += ["--permission-mode", "bypassPermissions", "--verbose"]
    command += ["--input-format", "stream-json", "--output-format", "stream-json"]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def _user(words: str, uuid: str) -> dict[str, Any]:
    return {"type": "user", "uuid": uuid, "message": {"role": "user", "content": words}}


def test_an_interrupt_lists_the_prompts_still_queued(
    model_env: FakeModelServer, workspace: Path
) -> None:
    model_env.script(
        reply(tool_use("Bash", command="sleep 30")),
        reply(text("took the queued ones")),
    )
    with _stream_json(workspace) as process:
        _send(process, _user("first", "u-first"))
        _until(process, lambda line: line["type"] == "assistant")  # the call runs now
        _send(process, _user("QUEUED-A", "u-a"))
        _send(process, _user("QUEUED-B", "u-b"))
        request = {"subtype": "interrupt"}
        _send(process, {"type": "control_request", "request_id": "i1", "request": request})
        answer = _until(process, lambda line: line["type"] == "control_response")
        results = [_until(process, lambda line: line["type"] == "result") for _ in range(2)]
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    assert answer["response"] == {
        "subtype": "success",
        "request_id": "i1",
        "response": {"still_queued": ["u-a", "u-b"]},
    }
    assert [r["subtype"] for r in results] == ["error_during_execution", "success"]
    # One turn, joined as Claude Code joins them (it was "\n\n").
    assert model_env.requests[-1].last_user_text().endswith("QUEUED-A\nQUEUED-B")


def test_no_idle_is_said_while_a_prompt_waits(model_env: FakeModelServer, workspace: Path) -> None:
    # As Claude Code: the SDK ends a run at `idle` (its stdin may be closed already), so idle
    # between two results while the second prompt waits lost that prompt (client7 F1).
    model_env.script(reply(text("one")), reply(text("two")))
    command = [sys.executable, "-m", "tether", "--cwd", str(workspace), "--verbose"]
    command += ["--input-format", "stream-json", "--output-format", "stream-json"]
    both = "".join(json.dumps(_user(w, f"u-{w}")) + "\n" for w in ("first", "second"))
    done = subprocess.run(command, input=both, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(raw) for raw in done.stdout.splitlines()]
    said = [
        line.get("state") or line.get("result")
        for line in lines
        if line["type"] == "result" or line.get("subtype") == "session_state_changed"
    ]
    assert said == ["running", "one", "two", "idle"]


def test_prompts_sent_before_the_first_turn_starts_make_one_more_turn(
    model_env: FakeModelServer, workspace: Path
) -> None:
    # As Claude Code: the first prompt's turn, then one with the rest joined. Before, each
    # was a turn of its own (four results where an SDK loop counting them expects two).
    model_env.script(reply(text("one")), reply(text("two")))
    command = [sys.executable, "-m", "tether", "--cwd", str(workspace), "--verbose"]
    command += ["--input-format", "stream-json", "--output-format", "stream-json"]
    words = [f"prompt-{n}" for n in range(4)]
    sent = "".join(json.dumps(_user(w, f"u-{w}")) + "\n" for w in words)
    done = subprocess.run(command, input=sent, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(raw) for raw in done.stdout.splitlines()]
    assert [line["result"] for line in lines if line["type"] == "result"] == ["one", "two"]
    asked = [request.last_user_text() for request in model_env.requests]
    assert asked[0].endswith("prompt-0")
    assert asked[1].endswith("prompt-1\nprompt-2\nprompt-3")
    assert "prompt-1" not in asked[0]


def test_an_interrupt_right_after_the_first_message_stops_its_turn(
    model_env: FakeModelServer, workspace: Path
) -> None:
    """Sent together with the first message, the interrupt came while the session was still
    being built: nothing ran, so nothing stopped, and the turn ran to its end. It is that
    message's turn the client means: it stops as it begins, before any model call."""
    model_env.script(reply(text("should not run")), reply(text("the second one ran")))
    with _stream_json(workspace) as process:
        _send(process, _user("first", "u-first"))
        request = {"subtype": "interrupt"}
        _send(process, {"type": "control_request", "request_id": "i1", "request": request})
        first = _until(process, lambda line: line["type"] == "result")
        _send(process, _user("second", "u-second"))
        second = _until(process, lambda line: line["type"] == "result")
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    assert first["subtype"] == "error_during_execution", first
    assert second["subtype"] == "success", second
    assert second["result"] == "should not run"  # the first answer, to the second message
    assert len(model_env.requests) == 1
