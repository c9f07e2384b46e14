"""The Claude Agent SDK for TypeScript driving tether as its CLI, over the wire: a one-shot
query, the permission and hook callbacks, an in-process MCP server. The SDK is installed by
`scripts/test` (`ensure_node_agent_sdk`) with the machine's Node.js; without them this skips."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.sdk_harness import tether_launcher
from tether.testing import FakeModelServer, reply, text, tool_use

REPO = Path(__file__).parent.parent.parent
NODE_MODULES = REPO / ".venv" / "node-agent-sdk" / "node_modules"
DRIVER = Path(__file__).parent / "ts" / "drive_tether.mjs"

pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed"),
    pytest.mark.skipif(
        not (NODE_MODULES / "@anthropic-ai" / "claude-agent-sdk").is_dir(),
        reason="the TypeScript Agent SDK is not installed (scripts/test installs it with npm)",
    ),
]


def drive(
    case: str, workspace: Path, home: Path, **more_env: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run the driver's case; the SDK's messages and what its callbacks saw."""
    env = {**os.environ, "HOME": str(home), **more_env}
    # ES modules resolve imports beside the script: it runs next to the installed modules.
    script = workspace.parent / "drive_tether.mjs"
    shutil.copy(DRIVER, script)
    (workspace.parent / "node_modules").symlink_to(NODE_MODULES)
    done = subprocess.run(
        ["node", str(script), case, tether_launcher(), str(workspace)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return lines[:-1], lines[-1]


def test_one_shot_query(model_env: FakeModelServer, workspace: Path, home: Path) -> None:
    model_env.script(reply(tool_use("Bash", command="echo hi > out.txt")), reply(text("done")))
    messages, _ = drive("oneShot", workspace, home)
    assert [m["type"] for m in messages] == ["system", "assistant", "user", "assistant", "result"]
    assert messages[-1]["result"] == "done"
    assert (workspace / "out.txt").read_text() == "hi\n"


def test_permission_and_hook_callbacks(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    model_env.script(reply(tool_use("Bash", command="touch asked")), reply(text("ok")))
    messages, facts = drive("callbacks", workspace, home)
    assert facts["hooked"] == [{"command": "touch asked"}]
    assert facts["asked"] == [["Bash", {"command": "touch asked"}]]
    assert (workspace / "changed").exists()
    assert not (workspace / "asked").exists()
    assert messages[-1]["subtype"] == "success"


def test_in_process_mcp_server(model_env: FakeModelServer, workspace: Path, home: Path) -> None:
    model_env.script(reply(tool_use("mcp__calc__add", a=2, b=3)), reply(text("5")))
    messages, facts = drive("sdkMcp", workspace, home)
    assert facts["added"] == [{"a": 2, "b": 3}]
    assert model_env.requests[1].tool_results() == ["5"]
    assert model_env.requests[0].system().startswith("You add numbers.")
    init = messages[0]
    assert init["mcp_servers"] == [{"name": "calc", "status": "connected", "source": "sdk"}]


def test_control_requests(model_env: FakeModelServer, workspace: Path, home: Path) -> None:
    model_env.script(reply(text("one")), reply(text("two")))
    messages, facts = drive("controls", workspace, home)
    controls = facts["controls"]
    # Each answered as Claude Code answers it (none throws), with its effect on the next turn.
    assert {name: "error" in outcome for name, outcome in controls.items()} == {
        "setMaxThinkingTokens": False,
        "applyFlagSettings": False,
        "reloadSkills": False,
        "setMcpServers": False,
        "backgroundTasks": False,
        "reinitialize": False,
        # As Claude Code: a session not started so cannot be switched to bypassPermissions.
        "setPermissionMode": True,
    }
    assert controls["setMcpServers"]["ok"] == {"added": [], "removed": [], "errors": {}}
    assert controls["backgroundTasks"]["ok"] is False
    assert "bypassPermissions" in controls["setPermissionMode"]["error"]
    assert {s["name"] for s in controls["reloadSkills"]["ok"]["skills"]} >= {"code-review"}
    second = model_env.requests[1].body
    assert second["model"] == "claude-haiku-4-5"
    assert second["thinking"] == {"type": "enabled", "budget_tokens": 2000}
    assert [m["type"] for m in messages].count("result") == 2


SERVERS = Path(__file__).parent.parent / "mcp" / "servers"


def _server(script: str) -> str:
    return json.dumps([sys.executable, str(SERVERS / script)])


def test_servers_set_while_the_session_runs(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    model_env.script(
        reply(text("none yet")),
        reply(tool_use("mcp__p__pid")),
        reply(text("one")),
        reply(text("none again")),
    )
    _, facts = drive("setServers", workspace, home, SERVER=_server("pid_server.py"))
    assert facts["set"] == [
        {"added": ["p"], "removed": [], "errors": {}},
        {"added": [], "removed": ["p"], "errors": {}},
    ]
    offered = ["mcp__p__pid" in r.tool_names() for r in model_env.requests]
    assert offered == [False, True, True, False]
    assert model_env.requests[2].tool_results()[0].isdigit()  # the server answered


def test_a_servers_form_goes_to_on_elicitation(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    model_env.script(reply(tool_use("mcp__ask__favourite")), reply(text("done")))
    _, facts = drive("elicit", workspace, home, SERVER=_server("asking_server.py"))
    [asked] = facts["asked"]
    assert asked["serverName"] == "ask"
    assert asked["message"] == "What is your favourite colour?"
    assert asked["requestedSchema"]["properties"]["colour"]["type"] == "string"
    assert model_env.requests[1].tool_results() == ["colour=violet"]
