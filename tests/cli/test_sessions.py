"""Sessions on disk: every entry appended as it happens; -c, -r and --fork-session continue
them; a session killed at any moment resumes with a valid first request."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.chains import message_chain_problem
from tether.cli.sessions_cmd import pick_session
from tether.main import main as tether_main
from tether.store import list_sessions, load_session
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def _sessions(workspace: Path) -> list[Path]:
    home = Path(os.environ["TETHER_HOME"])
    return [s.path for s in list_sessions(home, workspace)]


def test_continue_sends_the_earlier_conversation(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="echo 42 > answer.txt")),
        reply(text("wrote it")),
        reply(text("it was 42")),
    )
    first = tether("-p", "write the answer", "--output-format", "json")
    assert first.exit_code == 0, first.stderr
    session_id = first.json()["session_id"]
    [path] = _sessions(workspace)
    assert path.name == f"{session_id}.jsonl"
    assert load_session(path).title == "write the answer"

    second = tether("-c", "-p", "what was it?", "--output-format", "json")
    assert second.exit_code == 0, second.stderr
    assert second.json()["session_id"] == session_id
    request = fake_model.requests[2]
    assert [m["role"] for m in request.messages()] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert request.last_user_text() == "what was it?"
    assert _sessions(workspace) == [path]  # the same file, appended to
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    assert [e["type"] for e in entries] == [
        "meta",
        "user",
        "title",
        "assistant",
        "user",
        "assistant",
        "last-prompt",  # no entry of the conversation: no uuid, no parent
        "user",
        "assistant",
        "last-prompt",
    ]
    assert [e["lastPrompt"] for e in entries if e["type"] == "last-prompt"] == [
        "write the answer",
        "what was it?",
    ]
    assert message_chain_problem(entries) is None
    # Only messages are on the chain (Claude Code and its SDK follow it): the first prompt too.
    assert entries[1]["parentUuid"] is None
    assert {e["sessionId"] for e in entries} == {session_id}
    assert entries[3]["message"]["usage"]["output_tokens"] > 0


def test_fork_diverges_without_touching_the_original(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(reply(text("A")), reply(text("B")), reply(text("C")))
    original_id = tether("-p", "start", "--output-format", "json").json()["session_id"]
    [original] = _sessions(workspace)
    before = original.read_bytes()

    forked = tether(
        "-r", original_id[:8], "--fork-session", "-p", "go left", "--output-format", "json"
    )
    assert forked.exit_code == 0, forked.stderr
    fork_id = forked.json()["session_id"]
    assert fork_id != original_id
    assert original.read_bytes() == before
    assert fake_model.requests[1].last_user_text() == "go left"
    assert len(fake_model.requests[1].messages()) == 3

    back = tether("-r", original_id, "-p", "go right", "--output-format", "json")
    assert back.json()["session_id"] == original_id
    sent = [m for m in fake_model.requests[2].messages() if m["role"] == "user"]
    assert "go left" not in json.dumps(sent)
    fork = load_session(original.with_name(f"{fork_id}.jsonl"))
    assert fork.forked_from is not None
    assert fork.forked_from[0] == original_id
    assert fork.title == "start"


def test_sessions_list_show_rm(
    fake_model: FakeModelServer, tether: Run, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_model.script(reply(text("hello there")))
    session_id = tether("-p", "greet me", "--output-format", "json").json()["session_id"]
    cwd = ["--cwd", str(workspace)]
    assert tether_main(["sessions", "list", *cwd]) == 0
    listed = capsys.readouterr().out
    assert session_id in listed
    assert "greet me" in listed
    assert tether_main(["sessions", "show", session_id[:6], *cwd]) == 0
    shown = capsys.readouterr().out
    assert "> greet me" in shown
    assert "hello there" in shown
    assert tether_main(["sessions", "show", "nope", *cwd]) == 2
    assert "no session" in capsys.readouterr().err.lower()
    assert tether_main(["sessions", "rm", session_id, *cwd]) == 0
    assert _sessions(workspace) == []


def test_continue_with_no_session_starts_a_new_one(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    # As Claude Code: nothing to continue is not an error; a new session starts, and says so.
    fake_model.script(reply(text("hello")))
    result = tether("-c", "-p", "hi")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "hello"
    assert "no earlier session" in result.stderr
    assert len(_sessions(workspace)) == 1


def test_a_torn_last_line_is_skipped_with_a_warning(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(reply(text("one")), reply(text("two")))
    tether("-p", "first")
    [path] = _sessions(workspace)
    with path.open("a") as f:
        f.write('{"type": "user", "uuid": "x", "mess')  # a crash mid-write
    result = tether("-c", "-p", "second")
    assert result.exit_code == 0, result.stderr
    # meta, user, title, assistant, last-prompt: the torn line is the sixth
    assert "line 6 could not be read (torn or invalid); skipped" in result.stderr
    assert fake_model.requests[1].last_user_text() == "second"
    assert load_session(path).warnings != ()  # the torn line stays, skipped
    assert [json.loads(line)["type"] for line in path.read_text().splitlines()[-3:-1]] == [
        "user",
        "assistant",
    ]


def _start(workspace: Path, *argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tether", "--cwd", str(workspace), *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TETHER_RETRY_DELAY_MS": "1"},
    )


def _wait_for(path: Path, proc: subprocess.Popen[str]) -> int:
    for _ in range(3000):  # bounded: the process writes the file when its tool starts
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    raise AssertionError(f"{path} never written")


def _sleeper() -> object:
    return tool_use("Bash", command="echo $$ > shell.pid; sleep 60")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
@pytest.mark.usefixtures("trusted_workspace")
def test_a_signal_stops_headless_cleanly_and_the_session_resumes(
    fake_model: FakeModelServer, model_env: object, tether: Run, workspace: Path, signum: int
) -> None:
    fake_model.script(reply(_sleeper()), reply(text("resumed fine")))  # type: ignore[arg-type]
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "settings.json").write_text('{"sandbox": {"enabled": false}}')
    proc = _start(
        workspace, "-p", "work", "--output-format", "json", "--permission-mode", "bypassPermissions"
    )
    shell = _wait_for(workspace / "shell.pid", proc)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum, err
    result = json.loads(out)
    assert (result["subtype"], result["is_error"]) == ("error_during_execution", True)
    # Ctrl+C is said as before a turn starts; another signal is named.
    said = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
    assert result["errors"] == [said]
    with pytest.raises(ProcessLookupError):
        os.kill(shell, 0)  # the command's group was stopped

    again = tether("-c", "-p", "what happened?")
    assert (again.exit_code, again.stdout) == (0, "resumed fine\n"), again.stderr
    follow_up = fake_model.requests[1]
    assert follow_up.tool_result_errors() == [True]
    assert "Interrupted" in follow_up.tool_results()[0]


@pytest.mark.usefixtures("trusted_workspace")
def test_sighup_is_said_in_one_line_and_the_session_kept(
    fake_model: FakeModelServer, model_env: object, tether: Run, workspace: Path
) -> None:
    # SIGHUP (a closed terminal, `kill -HUP`) ended tether at once with no word.
    fake_model.script(reply(_sleeper()), reply(text("resumed fine")))  # type: ignore[arg-type]
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "settings.json").write_text('{"sandbox": {"enabled": false}}')
    proc = _start(workspace, "-p", "work", "--permission-mode", "bypassPermissions")
    shell = _wait_for(workspace / "shell.pid", proc)
    proc.send_signal(signal.SIGHUP)
    out, err = proc.communicate(timeout=30)
    assert (proc.returncode, out, err) == (128 + signal.SIGHUP, "", "tether: stopped by SIGHUP\n")
    with pytest.raises(ProcessLookupError):
        os.kill(shell, 0)
    again = tether("-c", "-p", "what happened?")
    assert (again.exit_code, again.stdout) == (0, "resumed fine\n"), again.stderr
    assert fake_model.requests[1].tool_result_errors() == [True]


@pytest.mark.usefixtures("trusted_workspace")
def test_sigkill_mid_tool_resumes_with_a_valid_request(
    fake_model: FakeModelServer, model_env: object, tether: Run, workspace: Path
) -> None:
    fake_model.script(reply(_sleeper()), reply(text("picked up")))  # type: ignore[arg-type]
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "settings.json").write_text('{"sandbox": {"enabled": false}}')
    proc = _start(workspace, "-p", "work", "--permission-mode", "bypassPermissions")
    shell = _wait_for(workspace / "shell.pid", proc)
    proc.kill()
    proc.communicate(timeout=30)
    os.killpg(shell, signal.SIGKILL)  # its own group outlives a SIGKILLed parent

    again = tether("-c", "-p", "carry on")
    assert (again.exit_code, again.stdout) == (0, "picked up\n"), again.stderr
    follow_up = fake_model.requests[1]  # the fake server refuses invalid requests
    assert follow_up.tool_result_errors() == [True]
    assert "outcome is unknown" in follow_up.tool_results()[0]
    assert follow_up.last_user_text() == "carry on"
    [path] = _sessions(workspace)
    types = [json.loads(line)["type"] for line in path.read_text().splitlines()]
    # The killed run's turn never ended: only the resumed one's prompt is the last asked.
    assert types == [
        "meta",
        "user",
        "title",
        "assistant",
        "user",
        "user",
        "assistant",
        "last-prompt",
    ]


def test_a_session_that_cannot_be_saved_runs_no_tool_and_says_so(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    home = Path(os.environ["TETHER_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "projects").write_text("not a directory")  # every session file fails to open
    fake_model.script(reply(tool_use("Bash", command="touch ran")), reply(text("done anyway")))
    result = tether("-p", "work")
    assert (result.exit_code, result.stdout) == (1, "")
    assert not (workspace / "ran").exists()
    # One line: no promise to save later what it says was not saved.
    assert "this session is not being saved" not in result.stderr
    assert result.stderr.count("stopped before asking the model") == 1
    assert "projects" in result.stderr
    assert fake_model.requests == []  # none of it could be kept: the model is not asked
    assert "Nothing of this session was saved, not even its prompt" in result.stderr
    assert "(-c)" not in result.stderr


def test_the_resume_picker_takes_a_number_or_an_id(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(reply(text("a")), reply(text("b")))
    first = tether("-p", "first", "--output-format", "json").json()["session_id"]
    second = tether("-p", "second", "--output-format", "json").json()["session_id"]
    out = io.StringIO()
    assert pick_session(workspace, out, io.StringIO("2\n")) == first  # newest first
    assert "1. " + second in out.getvalue()
    assert (
        pick_session(workspace, io.StringIO(), io.StringIO("x\n" + second[:6] + "\n")) == second[:6]
    )
    assert pick_session(workspace, io.StringIO(), io.StringIO("\n")) is None
