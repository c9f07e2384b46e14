"""A server's form (elicitation) answered as Claude Code answers it: `Elicitation` hooks first
(matched on the server's name: `action` and `content` answer, exit 2 declines), else the SDK
client driving the session (an `elicitation` control request), else declined; then
`ElicitationResult` hooks see the answer and may change it. The fixture server's `favourite`
tool asks for a colour and says what it got; a real `-p` run or stream-json process each time."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.mcp.conftest import SCRIPTS
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult


def _config(tmp_path: Path) -> str:
    path = tmp_path / "servers.json"
    server = {"command": sys.executable, "args": [str(SCRIPTS / "asking_server.py")]}
    path.write_text(json.dumps({"mcpServers": {"ask": server}}))
    return str(path)


def _hook(tmp_path: Path, name: str, body: str) -> str:
    """A command hook that keeps its input in `<name>.json` and then runs `body` (Python)."""
    script = tmp_path / f"{name}.py"
    kept = tmp_path / f"{name}.json"
    script.write_text(
        f"import json, sys\ndata = json.load(sys.stdin)\nopen({str(kept)!r}, 'w')"
        f".write(json.dumps(data))\n{body}\n"
    )
    return f"{sys.executable} {script}"


def _settings(**events: tuple[str, str]) -> str:
    """`--settings` with one command hook per event: (matcher, command)."""
    hooks = {
        event: [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]
        for event, (matcher, command) in events.items()
    }
    return json.dumps({"hooks": hooks})


def _answer(action: str, **content: str) -> str:
    said: dict[str, Any] = {"hookEventName": "Elicitation", "action": action}
    if content:
        said["content"] = content
    return f"print(json.dumps({{'hookSpecificOutput': {said!r}}}))"


def _run(
    tether: Callable[..., CliResult], fake_model: FakeModelServer, tmp_path: Path, settings: str
) -> str:
    return _run_with_stderr(tether, fake_model, tmp_path, settings)[0]


def _run_with_stderr(
    tether: Callable[..., CliResult], fake_model: FakeModelServer, tmp_path: Path, settings: str
) -> tuple[str, str]:
    fake_model.script(reply(tool_use("mcp__ask__favourite")), reply(text("Done.")))
    result = tether("-p", "ask", "--mcp-config", _config(tmp_path), "--settings", settings)
    assert result.exit_code == 0, result.stderr
    [said] = fake_model.requests[1].tool_results()
    return said, result.stderr


def test_an_elicitation_hook_answers_the_form(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], tmp_path: Path
) -> None:
    hook = _hook(tmp_path, "asked", _answer("accept", colour="teal"))
    said = _run(tether, fake_model, tmp_path, _settings(Elicitation=("ask", hook)))
    assert said == "colour=teal"
    asked = json.loads((tmp_path / "asked.json").read_text())
    assert asked["hook_event_name"] == "Elicitation"
    assert asked["mcp_server_name"] == "ask"
    assert asked["message"] == "What is your favourite colour?"
    assert asked["mode"] == "form"
    assert asked["requested_schema"]["properties"]["colour"]["type"] == "string"


def test_an_elicitation_hook_that_exits_2_declines(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], tmp_path: Path
) -> None:
    hook = _hook(tmp_path, "asked", "sys.exit(2)")
    said = _run(tether, fake_model, tmp_path, _settings(Elicitation=("", hook)))
    assert "decline" in said
    assert (tmp_path / "asked.json").exists()


def test_a_hook_for_another_server_is_not_run_and_the_form_is_declined(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], tmp_path: Path
) -> None:
    hook = _hook(tmp_path, "asked", _answer("accept", colour="teal"))
    said = _run(tether, fake_model, tmp_path, _settings(Elicitation=("other", hook)))
    assert "decline" in said
    assert not (tmp_path / "asked.json").exists()


def test_an_elicitation_result_hook_sees_the_answer_and_may_change_it(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], tmp_path: Path
) -> None:
    changed = (
        "{'hookEventName': 'ElicitationResult', 'action': 'accept', 'content': {'colour': 'red'}}"
    )
    hook = _hook(tmp_path, "result", f"print(json.dumps({{'hookSpecificOutput': {changed}}}))")
    said = _run(tether, fake_model, tmp_path, _settings(ElicitationResult=("ask", hook)))
    assert said == "colour=red"
    seen = json.loads((tmp_path / "result.json").read_text())
    assert seen["hook_event_name"] == "ElicitationResult"
    assert seen["mcp_server_name"] == "ask"
    assert (seen["action"], seen["mode"]) == ("decline", "form")  # nobody else answered


def test_an_elicitation_result_hook_that_exits_2_declines_a_hooks_accept(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], tmp_path: Path
) -> None:
    answer = _hook(tmp_path, "asked", _answer("accept", colour="teal"))
    veto = _hook(tmp_path, "result", "sys.exit(2)")
    settings = _settings(Elicitation=("ask", answer), ElicitationResult=("", veto))
    said = _run(tether, fake_model, tmp_path, settings)
    assert "decline" in said
    seen = json.loads((tmp_path / "result.json").read_text())
    assert (seen["action"], seen["content"]) == ("accept", {"colour": "teal"})


def test_an_elicitation_hook_with_a_bad_action_is_reported_and_the_form_declined(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], tmp_path: Path
) -> None:
    hook = _hook(tmp_path, "asked", _answer("maybe"))
    settings = _settings(Elicitation=("ask", hook))
    said, stderr = _run_with_stderr(tether, fake_model, tmp_path, settings)
    assert "decline" in said
    assert "hookSpecificOutput.action must be" in stderr
    assert "'maybe'" in stderr


# --- the SDK client ----------------------------------------------------------------------------


def _send(process: subprocess.Popen[str], line: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(line) + "\n")
    process.stdin.flush()


def _until(process: subprocess.Popen[str], wanted: Callable[[dict[str, Any]], bool]) -> Any:
    assert process.stdout is not None
    for raw in process.stdout:
        line = json.loads(raw)
        if wanted(line):
            return line
    raise AssertionError("tether ended before the line came")


def _stream_json(workspace: Path, tmp_path: Path, *more: str) -> list[str]:
    command = [sys.executable, "-m", "tether", "--cwd", str(workspace)]
    command += ["--permission-mode", "bypassPermissions", "--verbose", *more]
    command += ["--mcp-config", _config(tmp_path)]
    return [*command, "--input-format", "stream-json", "--output-format", "stream-json"]


def _ask_client(
    workspace: Path, tmp_path: Path, answer: dict[str, Any] | None, *more: str
) -> dict[str, Any]:
    """A client that answers the `elicitation` request with `answer` (None: with an error, as
    a client that takes no forms); the request it was sent."""
    with subprocess.Popen(
        _stream_json(workspace, tmp_path, *more),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        prompt = {"role": "user", "content": "ask"}
        _send(process, {"type": "user", "message": prompt})
        request = _until(
            process,
            lambda line: (
                line["type"] == "control_request" and line["request"]["subtype"] == "elicitation"
            ),
        )
        if answer is None:
            response = {"subtype": "error", "request_id": request["request_id"], "error": "no"}
        else:
            response = {
                "subtype": "success",
                "request_id": request["request_id"],
                "response": answer,
            }
        _send(process, {"type": "control_response", "response": response})
        _until(process, lambda line: line["type"] == "result")
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    return request["request"]


def test_the_sdk_client_is_shown_the_form_and_its_answer_reaches_the_server(
    model_env: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    model_env.script(reply(tool_use("mcp__ask__favourite")), reply(text("Done.")))
    asked = _ask_client(workspace, tmp_path, {"action": "accept", "content": {"colour": "blue"}})
    assert asked["mcp_server_name"] == "ask"
    assert asked["message"] == "What is your favourite colour?"
    assert asked["mode"] == "form"
    assert asked["requested_schema"]["properties"]["colour"]["type"] == "string"
    assert asked["property_order"] == ["colour"]
    assert model_env.requests[1].tool_results() == ["colour=blue"]


def test_a_client_that_takes_no_forms_has_them_declined(
    model_env: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    model_env.script(reply(tool_use("mcp__ask__favourite")), reply(text("Done.")))
    _ask_client(workspace, tmp_path, None)
    [said] = model_env.requests[1].tool_results()
    assert "decline" in said


def test_an_elicitation_result_hook_sees_the_clients_answer(
    model_env: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    model_env.script(reply(tool_use("mcp__ask__favourite")), reply(text("Done.")))
    seen = _hook(tmp_path, "result", "")
    settings = _settings(ElicitationResult=("ask", seen))
    answer = {"action": "accept", "content": {"colour": "green"}}
    _ask_client(workspace, tmp_path, answer, "--settings", settings)
    result = json.loads((tmp_path / "result.json").read_text())
    assert (result["action"], result["content"]) == ("accept", {"colour": "green"})
    assert model_env.requests[1].tool_results() == ["colour=green"]
