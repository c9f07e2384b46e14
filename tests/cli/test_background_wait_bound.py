"""`tether -p` waits for background work the model left running once it has answered, but
at most `TETHER_BACKGROUND_WAIT_MS` (ten minutes by default), and says so on stderr (with
stream-json also as a system notice line), naming the job; at the bound the job is stopped and
the process exits with its result's code. Before, a job that never ended (`while true`) held
`-p` for ever, silently, after the result. Real tether processes, on both wires."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_killed_runs import _gone, _kill_survivors, _wait_for_pid
from tether.testing import FakeModelServer, reply, text, tool_use

ENDLESS = "echo $$ > bg.pid; exec sh -c 'while true; do sleep 1; done'"


@pytest.fixture
def unsandboxed(trusted_workspace: Path) -> Path:
    (trusted_workspace / ".tether").mkdir()
    (trusted_workspace / ".tether" / "settings.json").write_text('{"sandbox": {"enabled": false}}')
    return trusted_workspace


def _run(
    workspace: Path, wire: str, *argv: str, wait_ms: str = "1500"
) -> tuple[subprocess.CompletedProcess[str], int]:
    model = ["--model", "openai/gpt-4.1"] if wire == "openai" else []
    env = dict(os.environ, TETHER_BACKGROUND_WAIT_MS=wait_ms)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tether", "--cwd", str(workspace), *model, "-p", "go", *argv],
        stdin=subprocess.DEVNULL,
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
    started = tool_use("Bash", command=ENDLESS, run_in_background=True, description="spin")
    fake_model.script(reply(started), reply(text("all done")))
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


def test_a_bound_of_zero_waits_for_nothing_and_says_only_what_it_stopped(
    fake_model: FakeModelServer, unsandboxed: Path
) -> None:
    started = tool_use("Bash", command=ENDLESS, run_in_background=True, description="spin")
    fake_model.script(reply(started), reply(text("all done")))
    done, job = _run(
        unsandboxed, "anthropic", "--permission-mode", "bypassPermissions", wait_ms="0"
    )
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "background work" in line]
    assert len(said) == 1, done.stderr  # no "waiting ... in 0 s" first
    stopped = "background work still running, stopped (TETHER_BACKGROUND_WAIT_MS is 0): bash_1 ("
    assert stopped in said[0], done.stderr
    assert _gone(job), "the background job was left running"


def test_stream_json_says_the_wait_in_a_system_line_before_the_result(
    fake_model: FakeModelServer, unsandboxed: Path
) -> None:
    started = tool_use("Bash", command=ENDLESS, run_in_background=True, description="spin")
    fake_model.script(reply(started), reply(text("all done")))
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
