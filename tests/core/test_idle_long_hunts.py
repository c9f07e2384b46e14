"""Long honest work that differs call to call only by a number, over the wire, runs to its end:
each call shows content no call showed before (a commit's message, an issue's title, a log's
page, the line a key is on, a subagent's file, a flaky test's new failure). Each was stopped
before: at the 131st call, when a turn-wide allowance of 100 calls "new only in their numbers"
was spent, or at the 31st (a subagent per numbered file; a flaky test re-run)."""

from __future__ import annotations

import json
import random
import re
import string
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.idle_runs import LONG_HUNT, Run
from tether.core.repeated_calls import IDLE_STOP_AT
from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use

ARGS = ["-p", "hunt", "--output-format", "json", "--dangerously-skip-permissions"]


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


def _word() -> str:
    return "".join(random.choice(string.ascii_lowercase) for _ in range(8))


def _runs_to_its_end(fake_model: FakeModelServer, tether: Run, calls: list[Any]) -> None:
    fake_model.script(*(reply(call) for call in calls), reply(text("found")))
    result = tether(*ARGS)
    assert result.exit_code == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.json()["result"] == "found"
    assert len(fake_model.requests) == len(calls) + 1


def _commits(ws: Path, messages: list[str]) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "a@example.com")
    git("config", "user.name", "a")
    for k, message in enumerate(messages):
        (ws / f"file{k}.txt").write_text(f"{message}\n")
        git("add", ".")
        git("commit", "-qm", message)


def _log(ws: Path, lines: int) -> None:
    """A service's log: lines of a few kinds, differing in times, ids and durations."""
    kinds = ["GET /api/items handled", "cache miss for key", "worker heartbeat ok"]
    (ws / "app.log").write_text(
        "".join(
            f"2026-01-01T00:{k // 3600 % 60:02}:{k % 60:02}Z INFO req={random.getrandbits(32):08x} "
            f"{kinds[k % 3]} in {k % 97}ms\n"
            for k in range(lines)
        )
    )


PAGE = 20
"""Lines of a page of the log (pages of a hundred fill the fake model's window)."""

HUNTS: dict[str, Callable[[Path], list[Any]]] = {}


def hunt(name: str) -> Callable[[Callable[[Path], list[Any]]], Callable[[Path], list[Any]]]:
    def register(make: Callable[[Path], list[Any]]) -> Callable[[Path], list[Any]]:
        HUNTS[name] = make
        return make

    return register


@hunt("git_show_commits_with_their_own_messages")
def _git_show_distinct(ws: Path) -> list[Any]:
    _commits(ws, [f"{_word()} the {_word()} of {_word()}" for _ in range(LONG_HUNT)])
    return [tool_use("Bash", command=f"git show HEAD~{k}") for k in range(LONG_HUNT)]


@hunt("git_show_commits_numbered_bump_n")
def _git_show_bumps(ws: Path) -> list[Any]:
    _commits(ws, [f"bump {k}" for k in range(LONG_HUNT)])
    return [tool_use("Bash", command=f"git show HEAD~{k} --stat") for k in range(LONG_HUNT)]


@hunt("sed_paging_a_log_with_times_and_ids")
def _sed_paging(ws: Path) -> list[Any]:
    _log(ws, LONG_HUNT * PAGE)
    return [
        tool_use("Bash", command=f"sed -n '{1 + PAGE * p},{PAGE * (p + 1)}p' app.log")
        for p in range(LONG_HUNT)
    ]


@hunt("grep_numbered_codes_content_mode")
def _grep_codes(ws: Path) -> list[Any]:
    codes = "".join(f"E{1000 + k}: {_word()} failed\n" for k in range(LONG_HUNT))
    (ws / "codes.txt").write_text(codes)
    return [
        tool_use("Grep", pattern=f"E{1000 + k}\\b", path=str(ws), output_mode="content")
        for k in range(LONG_HUNT)
    ]


def _settings(ws: Path) -> list[str]:
    keys = [f"{_word().upper()}_{_word().upper()}" for _ in range(LONG_HUNT)]
    (ws / "settings.py").write_text("".join(f"{key} = {k}\n" for k, key in enumerate(keys)))
    return keys


@hunt("grep_keys_of_one_file_files_with_matches")
def _grep_keys(ws: Path) -> list[Any]:
    return [tool_use("Grep", pattern=key, path=str(ws)) for key in _settings(ws)]


@hunt("grep_keys_of_one_file_count_mode")
def _grep_key_counts(ws: Path) -> list[Any]:
    keys = _settings(ws)
    return [tool_use("Grep", pattern=key, path=str(ws), output_mode="count") for key in keys]


@pytest.mark.parametrize("work", sorted(HUNTS))
def test_a_long_hunt_differing_by_numbers_runs_to_its_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path, work: str
) -> None:
    _runs_to_its_end(fake_model, tether, HUNTS[work](workspace))


TRACKER = """
from mcp.server.mcpserver import MCPServer

server = MCPServer("tracker", log_level="WARNING")
TITLES = {titles!r}


@server.tool()
def get_issue(number: int) -> str:
    \"\"\"An issue of the tracker.\"\"\"
    return f"Issue #{{number}}: {{TITLES[number]}}"


if __name__ == "__main__":
    server.run("stdio")
"""


def test_an_mcp_tool_asked_issue_after_issue_runs_to_its_end(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path
) -> None:
    titles = [" ".join(_word() for _ in range(6)) for _ in range(LONG_HUNT)]
    (trusted_workspace / "tracker.py").write_text(TRACKER.format(titles=titles))
    server = {"command": sys.executable, "args": [str(trusted_workspace / "tracker.py")]}
    (trusted_workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"tracker": server}}))
    calls = [tool_use("mcp__tracker__get_issue", number=n) for n in range(LONG_HUNT)]
    _runs_to_its_end(fake_model, tether, calls)
    answers = [r.tool_results() for r in fake_model.requests[1:]]
    assert answers == [[f"Issue #{n}: {titles[n]}"] for n in range(LONG_HUNT)]


def test_a_subagent_per_numbered_file_runs_to_its_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """Each subagent Reads its own migration and finds nothing: its reads are the lead's
    headway (the same answer each time was stopped at the 31st task)."""
    files = IDLE_STOP_AT + 15
    (workspace / "migrations").mkdir()
    for k in range(files):
        body = f"def upgrade():\n    add_column('{_word()}', '{_word()}')\n"
        (workspace / "migrations" / f"{k:04}_auto.py").write_text(body)
    tasks: list[int] = []

    def respond(request: RecordedRequest) -> Any:
        first = json.dumps(request.messages()[0]["content"])
        done = sum(1 for m in request.messages() if m["role"] == "assistant")
        if "SUB:" in first:
            if done == 0:
                name = re.search(r"migrations/(\d+_auto\.py)", first)
                assert name is not None
                path = workspace / "migrations" / name[1]
                return reply(tool_use("Read", file_path=str(path)))
            return text("No issues found.")
        if done >= files:
            return text("all reviewed")
        tasks.append(done)
        prompt = f"SUB: review migrations/{done:04}_auto.py for bugs"
        task = {"description": "review", "subagent_type": "general-purpose"}
        return reply(tool_use("Task", prompt=prompt, **task))

    fake_model.responder = respond
    result = tether(*ARGS)
    assert result.exit_code == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.json()["result"] == "all reviewed"
    assert tasks == list(range(files))


def test_a_flaky_test_rerun_until_it_fails_differently_runs_to_its_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """The same command again and again, no edit between, two hundred times: a pass
    (timings aside) every fourth run, a failure of its own the others. Each new failure is
    headway (they were counted in the allowance, spent at the 101st)."""
    runs = LONG_HUNT + 50
    outcomes = [
        f"ran 12 tests in 0.{random.randrange(1000):03}s OK"
        if k % 4 == 0
        else f"ran 12 tests, FAILED test_{_word()}: expected {_word()}, got {_word()}"
        for k in range(runs)
    ]
    (workspace / "outcomes.txt").write_text("".join(f"{line}\n" for line in outcomes))
    (workspace / "runs").write_text("0\n")
    (workspace / "t.sh").write_text(
        'n=$(($(cat runs) + 1)); echo $n > runs; sed -n "${n}p" outcomes.txt\n'
    )
    _runs_to_its_end(fake_model, tether, [tool_use("Bash", command="sh t.sh") for _ in range(runs)])
    results = [r.tool_results() for r in fake_model.requests[1:]]
    assert results == [[line] for line in outcomes]
