"""`http` hooks: the hook input POSTed to a real server on 127.0.0.1 in a live session, its
answer read as a command hook's output; headers filled only from the variables the hook allows;
a failing endpoint an error the session goes past, unless the hook is fail-closed."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.hooks.helpers import on
from tests.hooks.wire import write_settings
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


class HookServer:
    """A hook endpoint answering each POST with `status` and `body`, keeping what it got."""

    def __init__(self) -> None:
        self.status = 200
        self.body = b""
        self.drip = False
        """Answer 200 with a body that comes 4 KB every 50 ms for half a minute."""
        self.got: list[tuple[dict[str, str], dict[str, Any]]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                owner.got.append((dict(self.headers), json.loads(self.rfile.read(length))))
                if owner.drip:
                    self._drip()
                    return
                self.send_response(owner.status)
                self.send_header("Content-Length", str(len(owner.body)))
                self.end_headers()
                self.wfile.write(owner.body)

            def _drip(self) -> None:
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    for _ in range(600):
                        self.wfile.write(b"1000\r\n" + b" " * 4096 + b"\r\n")
                        self.wfile.flush()
                        time.sleep(0.05)
                except OSError:  # the client hung up
                    self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"


@pytest.fixture
def endpoint() -> Iterator[HookServer]:
    hooks = HookServer()
    thread = threading.Thread(target=hooks.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hooks
    finally:
        hooks.server.shutdown()
        hooks.server.server_close()
        thread.join()


def _http_hook(url: str, **extra: Any) -> dict[str, Any]:
    return {"type": "http", "url": url, **extra}


@pytest.mark.usefixtures("trusted_workspace")
def test_an_http_hook_denies_a_call_and_gets_only_the_variables_it_allows(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    endpoint: HookServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOOK_TOKEN", "t0ken")
    monkeypatch.setenv("OTHER_SECRET", "must-not-leave")
    endpoint.body = json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "policy server says no",
            }
        }
    ).encode()
    hook = _http_hook(
        endpoint.url,
        headers={"Authorization": "Bearer $HOOK_TOKEN", "X-Other": "${OTHER_SECRET}"},
        allowedEnvVars=["HOOK_TOKEN"],
    )
    write_settings(workspace, {"PreToolUse": on("Bash", hook)})
    fake_model.script(reply(tool_use("Bash", command="touch made")), reply(text("ok")))
    result = tether("-p", "go", "--allowedTools", "Bash(touch *)", "--permission-mode", "default")
    assert result.exit_code == 0, result.stderr
    assert not (workspace / "made").exists()
    [said] = fake_model.requests[1].tool_results()
    assert "policy server says no" in said
    [(headers, payload)] = endpoint.got
    assert payload["hook_event_name"] == "PreToolUse"
    assert payload["tool_input"] == {"command": "touch made"}
    assert headers["Authorization"] == "Bearer t0ken"
    assert headers["X-Other"] == ""


@pytest.mark.usefixtures("trusted_workspace")
@pytest.mark.parametrize(
    ("status", "body", "fail_closed"),
    [(500, b"oops", False), (200, b"not json", False), (503, b"", True)],
)
def test_a_failing_endpoint_is_an_error_the_session_goes_past_unless_fail_closed(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    endpoint: HookServer,
    status: int,
    body: bytes,
    fail_closed: bool,
) -> None:
    endpoint.status, endpoint.body = status, body
    extra = {"onFailure": "block"} if fail_closed else {}
    write_settings(workspace, {"PreToolUse": on("Bash", _http_hook(endpoint.url, **extra))})
    fake_model.script(reply(tool_use("Bash", command="touch made")), reply(text("ok")))
    result = tether("-p", "go", "--allowedTools", "Bash(touch *)", "--permission-mode", "default")
    assert result.exit_code == 0, result.stderr
    assert len(endpoint.got) == 1
    assert (workspace / "made").exists() is not fail_closed
    said = result.stderr + json.dumps(fake_model.requests[1].tool_results())
    why = f"answered HTTP {status}" if status != 200 else "answered with a body that is not a"
    place = endpoint.url.removesuffix("/hook")  # a hook's path can be its secret: not shown
    assert f"PreToolUse http hook {place} {why}" in said
    assert said.count(place) == said.count(f"http hook {place}")  # named once


@pytest.mark.usefixtures("trusted_workspace")
def test_an_http_hooks_credentials_and_query_reach_no_message_nor_the_event_log(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    endpoint: HookServer,
    tmp_path: Path,
) -> None:
    endpoint.status, endpoint.body = 500, b"oops"
    place = endpoint.url.removesuffix("/hook")
    url = place.replace("http://", "http://bob:hunter2@") + "/hook/s3cretpath?api_key=k3y&sig=s1g"
    write_settings(workspace, {"PreToolUse": on("Bash", _http_hook(url))})
    fake_model.script(reply(tool_use("Bash", command="touch made")), reply(text("ok")))
    result = tether("-p", "go", "--allowedTools", "Bash(touch *)", "--permission-mode", "default")
    assert result.exit_code == 0, result.stderr
    assert len(endpoint.got) == 1
    log = (tmp_path / "home" / "events" / "events.jsonl").read_text()
    said = result.stderr + json.dumps(fake_model.requests[1].tool_results())
    assert f"PreToolUse http hook {place} answered HTTP 500" in said
    assert f"http hook {place} answered HTTP 500" in log
    for secret in ("hunter2", "bob", "s3cretpath", "k3y", "s1g"):
        assert secret not in said + log, secret


@pytest.mark.usefixtures("trusted_workspace")
def test_an_answer_that_keeps_coming_is_cut_at_the_hooks_timeout(
    fake_model: FakeModelServer, tether: Run, workspace: Path, endpoint: HookServer
) -> None:
    # Each read gets a byte in time, so only a deadline for the whole answer ends it.
    endpoint.drip = True
    hook = _http_hook(endpoint.url, timeout=1)
    write_settings(workspace, {"PreToolUse": on("Bash", hook)})
    fake_model.script(reply(tool_use("Bash", command="touch made")), reply(text("ok")))
    result = tether("-p", "go", "--allowedTools", "Bash(touch *)", "--permission-mode", "default")
    assert result.exit_code == 0, result.stderr
    assert "timed out after 1 s" in result.stderr + json.dumps(
        fake_model.requests[1].tool_results()
    )
    assert (workspace / "made").exists()  # a hook that did not answer does not block


@pytest.mark.usefixtures("trusted_workspace")
@pytest.mark.parametrize("port", ["99999", "abc", "-1"])
def test_a_hook_url_that_cannot_be_connected_to_refuses_the_start(
    fake_model: FakeModelServer, tether: Run, workspace: Path, port: str
) -> None:
    # The hook may be what guards the allow rules beside it: going on without it would run
    # what it blocks (the event's hooks were left out whole before, and the command ran).
    write_settings(workspace, {"PreToolUse": on("Bash", _http_hook(f"http://127.0.0.1:{port}/h"))})
    path = workspace / ".claude" / "settings.json"
    fake_model.script(reply(tool_use("Bash", command="touch made")), reply(text("ok")))
    result = tether("-p", "go", "--dangerously-skip-permissions")
    assert (result.exit_code, result.stdout) == (2, ""), result.stderr
    [error] = result.stderr.splitlines()
    assert error.startswith(
        f"tether: settings file {path}: hooks.PreToolUse[0].hooks[0].url: "
        "must be an http:// or https:// URL (Port"
    ), error
    assert error.endswith(
        "; it guards what the file allows, so tether does not start without it: "
        "fix it or move the file away"
    )
    assert not (workspace / "made").exists()


@pytest.mark.usefixtures("trusted_workspace")
def test_a_hook_url_with_its_scheme_in_capitals_is_a_url_and_is_called(
    fake_model: FakeModelServer, tether: Run, workspace: Path, endpoint: HookServer
) -> None:
    write_settings(workspace, {"PreToolUse": on("Bash", _http_hook(endpoint.url.upper()))})
    fake_model.script(reply(tool_use("Bash", command="true")), reply(text("ok")))
    result = tether("-p", "go", "--dangerously-skip-permissions")
    assert result.exit_code == 0, result.stderr
    assert [payload["hook_event_name"] for _, payload in endpoint.got] == ["PreToolUse"]
