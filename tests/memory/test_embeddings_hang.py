"""An embeddings endpoint that takes the request and never answers: a session's start waits
for it briefly (the offer goes by words, said once), the failure is remembered for the next
processes, which do not wait for it again, and the user's own `tether memory search` waits
longer and tells the sessions when it answers again. Over the wire: a real hanging HTTP
server, `tether -p` as real processes against the fake model."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.config.settings import tether_home
from tether.memory.embedders import TIMEOUT_S
from tether.memory.endpoint_health import health_path
from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import CliResult, run_cli_process

from .conftest import Endpoint, memory_cli, save_in_a_session, undated, use_endpoint

Run = Callable[..., CliResult]

CACHE = "The cache lives in /var/cache/app"


def _session(workspace: Path, prompt: str) -> CliResult:
    argv = ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", "-p", prompt]
    return run_cli_process(argv, timeout_s=120)


def _memory_notices(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "memory" in line]


def test_a_hanging_endpoint_holds_a_session_briefly_once_then_not_again(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    endpoint: Endpoint,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_endpoint(monkeypatch, endpoint.base_url)
    save_in_a_session(fake_model, tether, CACHE)
    shown = f"{endpoint.base_url}/embeddings"

    endpoint.hanging = True
    fake_model.requests.clear()
    fake_model.script(text("ok"))
    first = _session(workspace, "where does the cache live?")
    assert first.exit_code == 0, first.stderr
    assert endpoint.hung == 1  # tried once, waited for within the start's own time
    assert CACHE in str(fake_model.requests[0].messages())  # offered by its words
    assert _memory_notices(first.stderr) == [
        f"tether: memory: searching by words only: cannot embed for memory: {shown}: "
        "no answer within 1.5 s"
    ]
    [remembered] = json.loads(health_path(tether_home()).read_text()).values()
    assert (remembered["failures"], remembered["slow"]) == (1, True)  # slow for a start

    fake_model.requests.clear()
    fake_model.script(tool_use("MemorySearch", query="cache"), text("ok"))
    second = _session(workspace, "where does the cache live?")
    assert second.exit_code == 0, second.stderr
    # Another process's start does not wait for it again; its tool, which waits longer, does
    # (the endpoint may only be slow), and finds it down.
    assert endpoint.hung == 2
    assert CACHE in str(fake_model.requests[0].messages())
    [found] = fake_model.requests[1].tool_results()
    assert found.startswith("Ranked by words only: the query could not be embedded ")
    assert f"no answer within {TIMEOUT_S:g} s" in found
    assert undated(found).endswith(f"Memory 1: {CACHE}")
    # Said once each: the start's skip, with when it is tried again, then the tool's wait.
    notice, waited = _memory_notices(second.stderr)
    assert notice.startswith(
        f"tether: memory: searching by words only: cannot embed for memory: {shown}: "
        "no answer within 1.5 s (at "
    )
    assert "; not tried again before " in notice
    assert waited == (
        f"tether: memory: searching by words only: cannot embed for memory: {shown}: "
        f"no answer within {TIMEOUT_S:g} s"
    )
    [remembered] = json.loads(health_path(tether_home()).read_text()).values()
    assert (remembered["failures"], remembered["slow"]) == (2, False)  # down for all now

    fake_model.requests.clear()
    fake_model.script(tool_use("MemorySearch", query="cache"), text("ok"))
    third = _session(workspace, "where does the cache live?")
    assert third.exit_code == 0, third.stderr
    assert endpoint.hung == 2  # down: neither the start nor the tool waits for it
    [found] = fake_model.requests[1].tool_results()
    assert found.startswith("Ranked by words only: the query could not be embedded ")

    # The user asks: tried again however it was remembered, and waited for longer.
    searched = memory_cli("--cwd", str(workspace), "search", "cache")
    assert searched.exit_code == 0, searched.stderr
    assert f"(words)  {CACHE}" in searched.stdout
    assert endpoint.hung == 3
    assert searched.stderr == (
        f"tether memory: searching by words only: cannot embed for memory: {shown}: "
        f"no answer within {TIMEOUT_S:g} s\n"
    )

    endpoint.release()  # it answers again: the user's search says so to the sessions
    again = memory_cli("--cwd", str(workspace), "search", "cache")
    assert (again.exit_code, again.stderr) == (0, "")
    assert json.loads(health_path(tether_home()).read_text()) == {}
    fake_model.requests.clear()
    fake_model.script(text("ok"))
    before = len(endpoint.requests)
    fourth = _session(workspace, "where does the cache live?")
    assert fourth.exit_code == 0, fourth.stderr
    assert _memory_notices(fourth.stderr) == []
    assert len(endpoint.requests) > before  # by meaning again


def test_a_slow_endpoint_is_skipped_by_starts_but_used_by_the_tools(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    endpoint: Endpoint,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_endpoint(monkeypatch, endpoint.base_url)
    save_in_a_session(fake_model, tether, CACHE)
    endpoint.delay_s = 3.0  # past a start's 1.5 s, well within the tools' 10 s

    for session in range(2):
        fake_model.requests.clear()
        fake_model.script(tool_use("MemorySearch", query="where is the cache"), text("ok"))
        asked = len(endpoint.requests)
        done = _session(workspace, "where does the cache live?")
        assert done.exit_code == 0, done.stderr
        [found] = fake_model.requests[1].tool_results()
        assert not found.startswith("Ranked by words only"), found  # by meaning
        assert CACHE in found
        # The first start tried it and gave up at 1.5 s; the next start does not wait for it.
        assert len(endpoint.requests) - asked == (2 if session == 0 else 1)
        [remembered] = json.loads(health_path(tether_home()).read_text()).values()
        assert remembered["slow"] is True  # still slow for starts, though it answers
