"""The idle bound's holes and its false stops, over the wire. Each runaway here ran for ever
before (a Read with a changing `limit` of a file shown whole already, a command whose own `tee`
or `>` rewrote a file, background jobs each waking the model to start the next); each piece
of work was stopped at the 30th reply (numbered searches and `git show HEAD~N`, subagents
that each fixed a bug, a background job's output polled as it came)."""

from __future__ import annotations

import json
import random
import re
import string
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.idle_runs import IDLE, LONG_HUNT, Run, wire_model
from tether.core.headway_rewrites import REWRITTEN_AT
from tether.core.repeated_calls import IDLE_STOP_AT, WAITING_STOP_AT
from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use

CAP = 3 * WAITING_STOP_AT
"""Where the scripted model gives up: reached only where the guard has a hole."""


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


def _bash(command: str, **more: Any) -> Any:
    return tool_use("Bash", command=command, **more)


RUNAWAYS: dict[str, Callable[[int, Path], Any]] = {
    "read_with_a_growing_limit": lambda i, ws: reply(
        tool_use("Read", file_path=f"{ws}/tiny.txt", limit=2000 + i)
    ),
    "read_with_an_offset_and_limit_grid": lambda i, ws: reply(
        tool_use("Read", file_path=f"{ws}/tiny.txt", offset=1 + i % 3, limit=1 + i // 3)
    ),
    "the_same_failing_test_teed_to_a_log": lambda i, ws: reply(
        _bash("sh test.sh 2>&1 | tee out.log")
    ),
    "a_stamp_rewritten_with_the_same_content": lambda i, ws: reply(
        _bash("echo same > stamp.txt; cat /nonexistent 2>/dev/null; echo retry")
    ),
    "a_file_the_command_rewrites_with_new_content": lambda i, ws: reply(
        _bash("date +%s%N > now.txt")
    ),
}


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize("loop", sorted(RUNAWAYS))
def test_a_loop_that_shows_nothing_new_is_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path, wire: str, loop: str
) -> None:
    (workspace / "tiny.txt").write_text("one\ntwo\nthree\n")
    (workspace / "test.sh").write_text('echo "3 tests failing"; exit 1\n')
    make = RUNAWAYS[loop]
    fake_model.responder = lambda r: make(r.index, workspace) if r.index < CAP else text("gave up")
    args = ["-p", "go", "--output-format", "json", "--dangerously-skip-permissions"]
    result = tether(*args, *wire_model(wire))
    assert result.exit_code == 1, result.stdout + result.stderr
    assert result.json()["errors"][0].startswith(f"stopped: the model {IDLE} in {IDLE_STOP_AT}")
    assert len(fake_model.requests) <= IDLE_STOP_AT + REWRITTEN_AT + 6


def _woken(request: RecordedRequest) -> bool:
    return "background-task event" in json.dumps(request.messages()[-1])


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_background_jobs_each_waking_the_model_to_start_the_next_are_bounded_in_all(
    fake_model: FakeModelServer, tether: Run, workspace: Path, wire: str
) -> None:
    """The model starts a short job, echoes a random number a few times, ends its reply;
    the job's end wakes it, and it starts another: each turn is short of the bound, and each
    wake began the counts anew, so `-p` never ended."""
    replies = {"turn": 0, "job": 0}

    def respond(request: RecordedRequest) -> Any:
        if request.index >= CAP:
            (workspace / f"ended{replies['job']}").touch()
            return text("gave up")
        if request.index == 0 or _woken(request):
            replies["turn"] = 0
            replies["job"] += 1  # it ends once the reply has ended: its end wakes the model
            job = f"until [ -e ended{replies['job']} ]; do sleep 0.01; done"
            return reply(_bash(job, run_in_background=True))
        replies["turn"] += 1
        if replies["turn"] > 12:
            (workspace / f"ended{replies['job']}").touch()
            return text("waiting for the job")
        return reply(_bash("echo $RANDOM$RANDOM"))

    fake_model.responder = respond
    result = tether("-p", "go", "--output-format", "json", *wire_model(wire))
    assert result.exit_code == 1, result.stdout + result.stderr
    assert result.json()["errors"][0].startswith(f"stopped: the model {IDLE}")
    assert len(fake_model.requests) < CAP


def test_a_job_left_running_by_a_stopped_loop_does_not_keep_p_waiting(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """After the stop, `-p` waited for the background job (to wake the loop again); then it
    stopped it without a word."""
    fake_model.responder = lambda r: (
        reply(_bash("sleep 600", run_in_background=True))
        if r.index == 0
        else reply(_bash("echo $RANDOM$RANDOM"))
    )
    result = tether("-p", "go", "--output-format", "json")
    assert result.exit_code == 1, result.stdout + result.stderr
    assert result.json()["errors"][0].startswith(f"stopped: the model {IDLE} in {WAITING_STOP_AT}")
    assert "still running, stopped with the turn the guard ended: bash_1 (sleep 600)" in (
        result.stderr
    )


def _git_history(ws: Path, commits: int) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "a@example.com")
    git("config", "user.name", "a")
    for k in range(commits):
        (ws / "f.txt").write_text(f"{k}\n")
        git("add", "f.txt")
        git("commit", "-qm", f"c{k}")


HUNTS = IDLE_STOP_AT + 10
WORK: dict[str, Callable[[int, Path], Any]] = {
    "grep_for_numbered_codes": lambda i, ws: tool_use(
        "Grep", pattern=f"E{1000 + i}\\b", path=str(ws), output_mode="content"
    ),
    "shell_grep_for_numbered_codes": lambda i, ws: _bash(f"grep -rn 'E{1000 + i}' ."),
    "sed_paging_a_log": lambda i, ws: _bash(f"sed -n '{1 + i * 10},{(i + 1) * 10}p' big.log"),
    "git_show_commit_after_commit": lambda i, ws: _bash(f"git show HEAD~{i} --stat"),
}


@pytest.mark.parametrize("work", sorted(WORK))
def test_a_hunt_through_numbered_things_runs_to_its_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path, work: str
) -> None:
    (workspace / "codes.py").write_text("".join(f"E{1000 + k} = 'error {k}'\n" for k in range(99)))
    (workspace / "big.log").write_text("".join(f"line {k} event\n" for k in range(HUNTS * 10)))
    if work.startswith("git"):
        _git_history(workspace, HUNTS + 1)
    make = WORK[work]
    fake_model.script(*(reply(make(i, workspace)) for i in range(HUNTS)), reply(text("found")))
    args = ["-p", "hunt", "--output-format", "json", "--dangerously-skip-permissions"]
    result = tether(*args)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.json()["result"] == "found"


def test_subagents_that_each_fix_a_bug_are_the_leads_headway(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """The lead asks for 'fix failing test number N' again and again, numbers aside the same
    task; each subagent edits the file. It was stopped though each one fixed a bug."""
    tasks = IDLE_STOP_AT + 5
    src = workspace / "src.txt"
    src.write_text("".join(f"bug{k}\n" for k in range(tasks)))

    def respond(request: RecordedRequest) -> Any:
        first = json.dumps(request.messages()[0]["content"])
        done = sum(1 for m in request.messages() if m["role"] == "assistant")
        if "SUB:" in first:
            if done == 0:
                return reply(tool_use("Read", file_path=str(src)))
            if done == 1:
                k = re.search(r"number (\d+)", first)
                assert k is not None
                edit = {"old_string": f"bug{k[1]}\n", "new_string": f"fix{k[1]}\n"}
                return reply(tool_use("Edit", file_path=str(src), **edit))
            return text("done")
        if done >= tasks:
            return text("all fixed")
        prompt = f"SUB: fix failing test number {done} in src.txt"
        task = {"description": "fix a test", "subagent_type": "general-purpose"}
        return reply(tool_use("Task", prompt=prompt, **task))

    fake_model.responder = respond
    args = ["-p", "fix them", "--output-format", "json", "--dangerously-skip-permissions"]
    result = tether(*args)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.json()["result"] == "all fixed"
    assert src.read_text() == "".join(f"fix{k}\n" for k in range(tasks))


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_subagents_asked_in_turn_answering_random_words_are_bounded(
    fake_model: FakeModelServer, tether: Run, wire: str
) -> None:
    """The lead asks two tasks in turn, again and again; each subagent answers in words it
    draws at random (punctuation, a word longer than 64 letters): each answer was headway,
    so it never stopped, a subagent's run paid for each lap."""
    leads: list[int] = []

    def respond(request: RecordedRequest) -> Any:
        first = next(m for m in request.messages() if m["role"] == "user")
        if "SUB:" in json.dumps(first["content"]):
            drawn = "".join(random.choice(".,;:-") for _ in range(30))
            word = "".join(random.choice(string.ascii_letters) for _ in range(80))
            return text(f"result {drawn} {word}")
        leads.append(request.index)
        if len(leads) > 2 * LONG_HUNT:  # reached only where the guard has a hole
            return text("gave up")
        prompt = f"SUB: check {'AB'[len(leads) % 2]}"
        task = {"description": "check", "subagent_type": "general-purpose"}
        return reply(tool_use("Task", prompt=prompt, **task))

    fake_model.responder = respond
    result = tether("-p", "check", "--output-format", "json", *wire_model(wire))
    assert result.exit_code == 1, result.stdout + result.stderr
    assert result.json()["errors"][0].startswith(f"stopped: the model {IDLE} in {IDLE_STOP_AT}")
    assert len(leads) <= IDLE_STOP_AT + 4  # the first answer of each task is new


def test_polling_a_background_job_that_prints_as_it_goes_is_not_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """The job prints a line each time the model's poll lets it go on, past the bound while
    background work runs: each poll shows new output (by its words: a count alone is not,
    `test_idle_figures`), till the job's end (it was stopped at the 40th poll)."""
    polls = WAITING_STOP_AT + 10
    letters = string.ascii_lowercase
    names = ["".join(random.choices(letters, k=8)) for _ in range(2 * polls)]
    (workspace / "names.txt").write_text(
        "".join(f"{a} {b}\n" for a, b in zip(names[::2], names[1::2], strict=True))
    )
    job = (
        f"for k in $(seq 1 {polls}); do while [ ! -e go$k ]; do sleep 0.01; done; "
        'echo "tick $k: compiled $(sed -n "${k}p" names.txt)"; touch said$k; done; echo DONE'
    )

    def respond(request: RecordedRequest) -> Any:
        n = request.index
        if n == 0:
            return reply(_bash(job, run_in_background=True))
        if "DONE" in json.dumps(request.messages()[-1]) or _woken(request):
            return text("the job is done")
        if n > polls + 5:
            return text("gave up")
        if n > 1:  # the tick the last poll let go is printed before this poll reads it
            _wait_for(workspace / f"said{n - 1}")
        (workspace / f"go{n}").touch()
        return reply(tool_use("BashOutput", bash_id="bash_1"))

    fake_model.responder = respond
    result = tether("-p", "watch it", "--output-format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.json()["result"] == "the job is done"


def _wait_for(path: Path) -> None:
    for _ in range(6000):
        if path.exists():
            return
        time.sleep(0.01)
