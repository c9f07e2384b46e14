"""MCP servers in a real session, through the CLI: the model calls a real server's tool and
uses its result; permission rules, hooks and tool search treat MCP tools like built-in ones."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult
from tether.testing.script import raw_tool_use

from .conftest import SCRIPTS

Run = Callable[..., CliResult]

TRUSTED = pytest.mark.usefixtures("trusted_workspace")
"""The user's own project: its servers may start (tests/core/test_trust_over_wire.py has the
untrusted ones)."""


TIME_TOOL = "mcp__time__get_current_time"

# What Claude Code's documentation shows for a project's .mcp.json, unchanged.
TIME_SERVER = {"time": {"command": "mcp-server-time", "args": [], "env": {}}}


@pytest.fixture(autouse=True)
def servers_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real servers are console scripts beside this Python, as `uvx` or `pip` puts them."""
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")


def _mcp_json(workspace: Path, servers: dict[str, object]) -> None:
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2))


def _settings(workspace: Path, data: dict[str, object]) -> None:
    (workspace / ".tether").mkdir(exist_ok=True)
    (workspace / ".tether" / "settings.json").write_text(json.dumps(data))


@TRUSTED
def test_the_model_calls_a_real_mcp_tool_and_uses_its_result(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _mcp_json(workspace, TIME_SERVER)
    fake_model.script(reply(tool_use(TIME_TOOL, timezone="UTC")), reply(text("It is late.")))
    result = tether("-p", "what time is it?", "--output-format", "stream-json")
    assert result.exit_code == 0, result.stderr
    init = result.json_lines()[0]
    assert TIME_TOOL in init["tools"]
    first = fake_model.requests[0]
    assert TIME_TOOL in first.tool_names()
    spec = next(t for t in first.body["tools"] if t["name"] == TIME_TOOL)
    assert spec["input_schema"]["properties"]["timezone"]["type"] == "string"
    [answer] = fake_model.requests[1].tool_results()
    assert fake_model.requests[1].tool_result_errors() == [False]
    assert "UTC" in answer
    assert json.loads(result.stdout.splitlines()[-1])["result"] == "It is late."


@TRUSTED
def test_rules_and_hooks_apply_to_mcp_tools(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _mcp_json(workspace, TIME_SERVER)
    log = workspace / "hook.log"
    script = workspace / "hook.py"
    script.write_text(f"import sys\nopen({str(log)!r}, 'a').write(sys.stdin.read() + '\\n')\n")
    hook = {"type": "command", "command": f"{sys.executable} {script}"}
    _settings(
        workspace,
        {
            "permissions": {"deny": ["mcp__time__convert_time"]},
            "hooks": {"PreToolUse": [{"matcher": "mcp__time__.*", "hooks": [hook]}]},
        },
    )
    convert = tool_use(
        "mcp__time__convert_time", source_timezone="UTC", time="12:00", target_timezone="UTC"
    )
    fake_model.script(reply(tool_use(TIME_TOOL, timezone="UTC"), convert), reply(text("done")))
    # Headless in default mode: what no rule allows is refused; the allow rule lets one run.
    result = tether("-p", "time?", "--permission-mode", "default", "--allowedTools", "mcp__time")
    assert result.exit_code == 0, result.stderr
    assert fake_model.requests[1].tool_result_errors() == [False, True]
    assert "denied" in fake_model.requests[1].tool_results()[1].lower()
    logged = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    # Both calls were hooked (side by side: in either order), the denied one too.
    assert sorted(entry["tool_name"] for entry in logged) == ["mcp__time__convert_time", TIME_TOOL]


@TRUSTED
def test_a_bare_deny_hides_a_whole_server(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _mcp_json(workspace, TIME_SERVER)
    _settings(workspace, {"permissions": {"deny": ["mcp__time"]}})
    fake_model.script(reply(text("no clock")))
    assert tether("-p", "time?").exit_code == 0
    assert not any(n.startswith("mcp__") for n in fake_model.requests[0].tool_names())


@TRUSTED
def test_many_tools_are_offered_through_tool_search(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _mcp_json(workspace, TIME_SERVER)
    _settings(workspace, {"tether": {"mcp": {"toolSearchShare": 0.0001}}})
    fake_model.script(
        reply(tool_use("ToolSearch", query="current time")),
        reply(tool_use("CallTool", name=TIME_TOOL, arguments={"timezone": "UTC"})),
        reply(text("found it")),
    )
    result = tether("-p", "time?")
    assert result.exit_code == 0, result.stderr
    names = [r.tool_names() for r in fake_model.requests]
    assert all(n == names[0] for n in names)  # the same tools in every request
    assert "ToolSearch" in names[0]
    assert not any(n.startswith("mcp__") for n in names[0])
    found = fake_model.requests[1].tool_results()[0]
    assert found.startswith(TIME_TOOL)
    assert '"timezone"' in found
    assert fake_model.requests[2].tool_result_errors() == [False]
    assert "UTC" in fake_model.requests[2].tool_results()[0]


@TRUSTED
def test_a_broken_server_is_named_and_the_session_goes_on(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _mcp_json(
        workspace, {**TIME_SERVER, "ghost": {"command": "no-such-mcp-server-anywhere", "args": []}}
    )
    fake_model.script(reply(text("fine")))
    result = tether("-p", "hi")
    assert (result.exit_code, result.stdout) == (0, "fine\n")
    assert "ghost" in result.stderr
    assert TIME_TOOL in fake_model.requests[0].tool_names()


@TRUSTED
def test_resources_are_listed_and_read(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    from tether.testing.mcp_http_server import McpHttpServer

    with McpHttpServer() as demo:
        _mcp_json(workspace, {"demo": {"type": "http", "url": demo.url}})
        fake_model.script(
            reply(tool_use("ListMcpResourcesTool")),
            reply(tool_use("ReadMcpResourceTool", server="demo", uri="test://greeting")),
            reply(text("read it")),
        )
        result = tether("-p", "what resources are there?")
    assert result.exit_code == 0, result.stderr
    listed = fake_model.requests[1].tool_results()[0]
    assert '"uri": "test://greeting"' in listed
    assert '"server": "demo"' in listed
    assert fake_model.requests[2].tool_results() == ["hello from the demo server"]


@TRUSTED
def test_a_server_that_hangs_holds_the_session_only_until_its_timeout(
    fake_model: FakeModelServer, tether: Run, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hangs = Path(__file__).parent / "servers" / "hangs_at_initialise.py"
    _mcp_json(workspace, {"stuck": {"command": sys.executable, "args": [str(hangs)]}})
    monkeypatch.setenv("MCP_TIMEOUT", "1500")
    fake_model.script(reply(text("on time")))
    result = tether("-p", "time?")
    assert (result.exit_code, result.stdout) == (0, "on time\n"), result.stderr
    assert "stuck" in result.stderr
    assert not any(n.startswith("mcp__") for n in fake_model.requests[0].tool_names())


def test_a_session_without_mcp_servers_never_imports_the_sdk(tmp_path: Path) -> None:
    """The SDK costs most of a second to import: only sessions with servers pay it."""
    import subprocess

    workspace = tmp_path / "ws"
    workspace.mkdir()
    program = (
        "import sys\n"
        "from pathlib import Path\n"
        "from tether.cli.setup import RunOptions, build_session\n"
        f"env = {{'ANTHROPIC_API_KEY': 'k', 'TETHER_HOME': {str(tmp_path / 'home')!r}, "
        f"'HOME': {str(tmp_path)!r}}}\n"
        f"build_session(RunOptions(cwd=Path({str(workspace)!r}), env=env))\n"
        "print(sorted(m for m in ('mcp', 'anthropic', 'openai') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert result.stdout == "[]\n"


@TRUSTED
def test_a_signal_while_servers_connect_stops_headless_at_once(
    fake_model: FakeModelServer, model_env: object, workspace: Path
) -> None:
    import signal
    import subprocess
    import time

    hangs = Path(__file__).parent / "servers" / "hangs_at_initialise.py"
    _mcp_json(workspace, {"stuck": {"command": sys.executable, "args": [str(hangs)]}})
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tether",
            "--cwd",
            str(workspace),
            "-p",
            "hi",
            "--output-format",
            "json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "MCP_TIMEOUT": "120000"},
    )
    for _ in range(2000):  # until the server is started (it is a child of tether)
        children = subprocess.run(
            ["pgrep", "-P", str(proc.pid), "-f", "hangs_at_initialise"],
            capture_output=True,
            text=True,
        ).stdout.split()
        if children:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)  # not the two minutes of the server's timeout
    assert proc.returncode == 128 + signal.SIGTERM, err
    body = json.loads(out)
    assert (body["subtype"], body["errors"]) == ("error_during_execution", ["stopped by SIGTERM"])
    assert fake_model.requests == []


@TRUSTED
async def test_an_interrupt_while_servers_connect_leaves_a_usable_session(
    fake_model: FakeModelServer,
    model_env: object,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import asyncio

    from tether.cli.setup import RunOptions, build_session
    from tether.protocol import TurnFinished, UserInput

    hangs = Path(__file__).parent / "servers" / "hangs_at_initialise.py"
    _mcp_json(workspace, {"stuck": {"command": sys.executable, "args": [str(hangs)]}})
    monkeypatch.setenv("MCP_TIMEOUT", "120000")
    fake_model.script(reply(text("still here")))
    session = build_session(RunOptions(cwd=workspace, permission_mode="bypassPermissions"))
    try:
        preparing = asyncio.create_task(session.prepare())
        await asyncio.sleep(0)  # the preparations start
        assert session.preparing
        session.interrupt()
        assert await preparing == []
        first = [e async for e in session.submit(UserInput(text="hi"))][-1]
        assert isinstance(first, TurnFinished)
        assert (first.subtype, first.error) == ("error_during_execution", "interrupted by the user")
        second = [e async for e in session.submit(UserInput(text="hi again"))][-1]
        assert isinstance(second, TurnFinished)
        assert second.result == "still here"
    finally:
        await session.aclose()


@TRUSTED
def test_an_mcp_call_with_a_lone_surrogate_is_refused_before_the_server_sees_it(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    # Over the OpenAI wire (the Anthropic wire's history encoding is the session half's).
    _mcp_json(workspace, TIME_SERVER)
    fake_model.script(
        reply(raw_tool_use(TIME_TOOL, '{"timezone": "Europe/\\ud800"}')), reply(text("done"))
    )
    result = tether("-p", "time?", "--model", "openai/gpt-4.1")
    assert result.exit_code == 0, result.stderr
    assert fake_model.requests[1].tool_results() == [
        f"Error: Invalid input for {TIME_TOOL}: timezone: holds a lone surrogate (U+D800 at "
        "character 8), which is not Unicode text and cannot be written, run or sent; use the "
        "character itself, or escape a pair of surrogates together."
    ]


@TRUSTED
def test_a_slow_server_does_not_hold_the_first_request_and_shows_pending(
    fake_model: FakeModelServer, tether: Run, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It never answers its handshake; were it waited for, the run would wait out MCP_TIMEOUT.
    slow = {"command": sys.executable, "args": [str(SCRIPTS / "hangs_at_initialise.py")]}
    _mcp_json(workspace, {**TIME_SERVER, "slow": slow})
    monkeypatch.setenv("MCP_CONNECTION_NONBLOCKING", "1")
    monkeypatch.setenv("MCP_TIMEOUT", "3600000")
    fake_model.script(reply(text("Hello.")))
    result = tether("-p", "hi", "--output-format", "stream-json", "--verbose")
    assert result.exit_code == 0, result.stderr
    init = result.json_lines()[0]
    states = {s["name"]: s["status"] for s in init["mcp_servers"]}
    assert states["slow"] == "pending"
    assert json.loads(result.stdout.splitlines()[-1])["result"] == "Hello."


@TRUSTED
def test_a_server_that_never_answered_is_ended_at_once_when_the_session_ends(
    fake_model: FakeModelServer, tether: Run, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With MCP_CONNECTION_NONBLOCKING, -p answers without a hung server, then ends it with
    SIGTERM at once: it is not first asked to end by a closed stdin (which a hung server
    never reads) and given the SDK's 2 s, which held every such run's exit."""
    record = workspace.parent / "record.txt"
    hung = {"command": sys.executable, "args": [str(SCRIPTS / "never_answers.py"), str(record)]}
    _mcp_json(workspace, {"hung": hung})
    monkeypatch.setenv("MCP_CONNECTION_NONBLOCKING", "true")
    monkeypatch.setenv("MCP_TIMEOUT", "3600000")
    wait = f"until [ -s {record} ]; do sleep 0.05; done"  # the server has started
    fake_model.script(reply(tool_use("Bash", command=wait)), reply(text("Answered.")))
    result = tether("-p", "hi", "--permission-mode", "bypassPermissions")
    assert (result.exit_code, result.stdout) == (0, "Answered.\n"), result.stderr
    pid, *ends = record.read_text().split()
    assert ends == ["TERM"]
    assert not Path(f"/proc/{pid}").exists() or "Z" in _state(int(pid))


def _state(pid: int) -> str:
    """The process's state letter (Z: exited, waiting to be reaped by its new parent)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
