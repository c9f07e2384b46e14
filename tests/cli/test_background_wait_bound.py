"""`tether -p` waits for background work the model left running once it has answered, but
at most `TETHER_BACKGROUND_WAIT_MS` (ten minutes by default), and says so on stderr (with
stream-json also as a system notice line), naming the job; at the bound the job is stopped and
the process exits with its result's code. Before, a job that never ended (`while true`) held
`-p` for ever, silently, after the result. `--input-format stream-json` (the Agent SDK's mode)
waits the same way once the client's input has ended (before, for ever and silently). Real
tether processes, on both wires."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.cli.test_killed_runs import _gone, _kill_survivors, _wait_for_pid
from tether.testing import FakeModelServer, Turn, reply, text, tool_use
from tether.testing.recorded import RecordedRequest

ENDLESS = "echo $$ > bg.pid; exec sh -c 'while true; do sleep 1; done'"


STREAM_IN = (  # the Agent SDK's mode
    *("--input-format", "stream-json", "--output-format", "stream-json"),
    *("--verbose", "--permission-mode", "bypassPermissions"),
)
GO = json.dumps({"type": "user", "message": {"role": "user", "content": "go"}}) + "\n"


def _lines(done: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.fixture
def unsandboxed(trusted_workspace: Path) -> Path:
    (trusted_workspace / ".tether").mkdir()
    (trusted_workspace / ".tether" / "settings.json").write_text('{"sandbox": {"enabled": false}}')
    return trusted_workspace


def _spin_then_answer(fake_model: FakeModelServer) -> None:
    """The model starts the endless job in the background, then answers "all done"."""
    started = tool_use("Bash", command=ENDLESS, run_in_background=True, description="spin")
    fake_model.script(reply(started), reply(text("all done")))


def _run(
    workspace: Path, wire: str, *argv: str, wait_ms: str = "1500", stdin: str | None = None
) -> tuple[subprocess.CompletedProcess[str], int]:
    """tether `-p` with `argv` and the prompt `go`; or, given `stdin`, the input it reads
    (then closed, as the Agent SDK's one-shot query closes it)."""
    model = ["--model", "openai/gpt-4.1"] if wire == "openai" else []
    env = dict(os.environ, TETHER_BACKGROUND_WAIT_MS=wait_ms)
    prompt = ["go"] if stdin is None else []
    with tempfile.TemporaryFile() as given:  # holds `stdin`, then ends
        given.write((stdin or "").encode())
        given.seek(0)
        proc = subprocess.Popen(
            [sys.executable, "-m", "tether", "--cwd", str(workspace), *model, "-p", *prompt, *argv],
            stdin=subprocess.DEVNULL if stdin is None else given,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
    job = _wait_for_pid(workspace / "bg.pid", proc)
    try:
        # Bounded only so that the failure before the fix (a wait for ever) ends the test.
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    finally:
        _kill_survivors([job])
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), job


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_print_mode_waits_for_an_endless_job_at_most_the_bound_says_so_and_stops_it(
    fake_model: FakeModelServer, unsandboxed: Path, wire: str
) -> None:
    _spin_then_answer(fake_model)
    done, job = _run(unsandboxed, wire, "--permission-mode", "bypassPermissions")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "all done\n"
    said = [line for line in done.stderr.splitlines() if "background work" in line]
    assert len(said) == 2, done.stderr
    assert "waiting for background work to end before exiting: bash_1 (echo $$" in said[0]
    assert "is stopped (TETHER_BACKGROUND_WAIT_MS sets the bound)" in said[0]
    assert "background work still running after 1.5 s, stopped: bash_1 (" in said[1]
    assert _gone(job), "the background job was left running"
    assert len(fake_model.requests) == 2  # no turn woken


@pytest.mark.parametrize("stream_input", [False, True], ids=["print", "stream-json-input"])
def test_a_bound_of_zero_waits_for_nothing_and_says_only_what_it_stopped(
    fake_model: FakeModelServer, unsandboxed: Path, stream_input: bool
) -> None:
    _spin_then_answer(fake_model)
    argv = STREAM_IN if stream_input else ("--permission-mode", "bypassPermissions")
    done, job = _run(
        unsandboxed, "anthropic", *argv, wait_ms="0", stdin=GO if stream_input else None
    )
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "background work" in line]
    assert len(said) == 1, done.stderr  # no "waiting ... in 0 s" first
    stopped = "background work still running, stopped (TETHER_BACKGROUND_WAIT_MS is 0): bash_1 ("
    assert stopped in said[0], done.stderr
    if stream_input:  # the client is told too
        notices = [line["message"] for line in _lines(done) if line.get("subtype") == "notice"]
        assert len(notices) == 1, notices
        assert str(notices[0]).startswith(stopped), notices
    assert _gone(job), "the background job was left running"


def test_stream_json_says_the_wait_in_a_system_line_before_the_result(
    fake_model: FakeModelServer, unsandboxed: Path
) -> None:
    _spin_then_answer(fake_model)
    argv = ("--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions")
    done, job = _run(unsandboxed, "anthropic", *argv)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    notices = [line["message"] for line in lines if line.get("subtype") == "notice"]
    assert len(notices) == 2, notices
    assert notices[0].startswith("waiting for background work to end before exiting: bash_1")
    assert notices[1].startswith("background work still running after 1.5 s, stopped: bash_1")
    assert lines[-1]["type"] == "result"
    assert lines[-1]["subtype"] == "success"
    assert lines[-1]["result"] == "all done"
    assert _gone(job)


def test_a_job_that_ends_within_the_bound_still_wakes_a_turn(
    fake_model: FakeModelServer, unsandboxed: Path
) -> None:
    quick = "echo $$ > bg.pid; sleep 0.2; echo built"
    started = tool_use("Bash", command=quick, run_in_background=True, description="build")
    fake_model.script(reply(started), reply(text("started")), reply(text("it built")))
    done, _ = _run(unsandboxed, "anthropic", "--permission-mode", "bypassPermissions")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "started\n\nit built\n"
    assert "still running after" not in done.stderr
    assert len(fake_model.requests) == 3


def test_stream_json_input_that_ends_waits_at_most_the_bound_says_so_and_stops_the_job(
    fake_model: FakeModelServer, unsandboxed: Path
) -> None:
    """`--input-format stream-json` (the Agent SDK's mode): once the client's input ends, the
    same bounded wait as `-p`'s, said the same way (before, it waited for ever, silently)."""
    _spin_then_answer(fake_model)
    done, job = _run(unsandboxed, "anthropic", *STREAM_IN, stdin=GO)
    assert done.returncode == 0, done.stderr
    lines = _lines(done)
    notices = [line["message"] for line in lines if line.get("subtype") == "notice"]
    assert len(notices) == 2, notices
    assert str(notices[0]).startswith("waiting for background work to end before exiting: bash_1")
    assert "is stopped (TETHER_BACKGROUND_WAIT_MS sets the bound)" in str(notices[0])
    assert str(notices[1]).startswith("background work still running after 1.5 s, stopped: bash_1")
    said = [line for line in done.stderr.splitlines() if "background work" in line]
    assert len(said) == 2, done.stderr
    assert [r["result"] for r in lines if r["type"] == "result"] == ["all done"]
    assert _gone(job), "the background job was left running"
    assert len(fake_model.requests) == 2  # no turn woken


def test_stream_json_input_wakes_a_turn_for_the_job_that_ended_then_waits_again_bounded(
    fake_model: FakeModelServer, unsandboxed: Path
) -> None:
    """A build that ends within the bound wakes its turn (as `-p`); the endless job left is
    then waited for again, at most the bound, and stopped."""
    quick = "while [ ! -f go ]; do sleep 0.05; done; echo built"
    both = [
        tool_use("Bash", command=ENDLESS, run_in_background=True, description="spin"),
        tool_use("Bash", command=quick, run_in_background=True, description="build"),
    ]
    steps = [reply(*both), reply(text("started")), reply(text("it built"))]

    def respond(request: RecordedRequest) -> Turn:
        done = sum(1 for m in request.messages() if m.get("role") == "assistant")
        if done == 1:  # the build ends once the turn's last call is answered: news for a turn
            (unsandboxed / "go").touch()
        return steps[min(done, len(steps) - 1)]

    fake_model.responder = respond
    done, job = _run(unsandboxed, "anthropic", *STREAM_IN, stdin=GO)
    assert done.returncode == 0, done.stderr
    lines = _lines(done)
    results = [(r["result"], r.get("origin")) for r in lines if r["type"] == "result"]
    assert results == [
        ("started", None),
        ("it built", {"kind": "task-notification", "producer": "session-task"}),
    ]
    assert "bash_2" in fake_model.requests[2].last_user_text()
    notices = [str(line["message"]) for line in lines if line.get("subtype") == "notice"]
    assert notices[-1].startswith("background work still running after 1.5 s, stopped: bash_1")
    assert _gone(job), "the background job was left running"
    assert len(fake_model.requests) == 3


def test_stream_json_input_with_a_bound_out_of_range_says_so(
    fake_model: FakeModelServer, unsandboxed: Path
) -> None:
    fake_model.script(reply(text("all done")))
    done = subprocess.run(
        [sys.executable, "-m", "tether", "--cwd", str(unsandboxed), "-p", *STREAM_IN],
        input=GO,
        capture_output=True,
        text=True,
        env=dict(os.environ, TETHER_BACKGROUND_WAIT_MS="soon"),
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "TETHER_BACKGROUND_WAIT_MS must be " in done.stderr
    assert 'not "soon"' in done.stderr
    assert not fake_model.requests
