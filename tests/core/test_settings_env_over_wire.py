"""The settings' `env` table reaches what tether runs, as in Claude Code: Bash commands (in the
sandbox too, where a name listed there is kept although it looks like a secret) and stdio MCP
servers. A workspace's own table needs the user's trust, like its hooks."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

ECHO = "echo P=$MY_PROJECT_VAR U=$MY_USER_VAR T=$MY_SERVICE_TOKEN"


@pytest.fixture
def configured(model_env: FakeModelServer, workspace: Path, tmp_path: Path) -> FakeModelServer:
    """User settings (under TETHER_HOME) and the workspace's own, each with an `env` table."""
    user = {"env": {"MY_USER_VAR": "from-user", "MY_SERVICE_TOKEN": "from-settings"}}
    (tmp_path / "home" / "settings.json").write_text(json.dumps(user))
    project = workspace / ".claude" / "settings.json"
    project.parent.mkdir()
    project.write_text(json.dumps({"env": {"MY_PROJECT_VAR": "from-project"}}))
    model_env.script(reply(tool_use("Bash", command=ECHO)), reply(text("done")))
    return model_env


@pytest.mark.parametrize("sandbox", ["on", "off"])
def test_bash_sees_the_env_table_of_a_trusted_workspace(
    configured: FakeModelServer,
    tether: Callable[..., CliResult],
    monkeypatch: pytest.MonkeyPatch,
    sandbox: str,
) -> None:
    # Named in `env`, a secret-looking variable of the real environment is kept (and wins).
    monkeypatch.setenv("MY_SERVICE_TOKEN", "from-shell")
    off = ["--settings", '{"sandbox": {"enabled": false}}'] if sandbox == "off" else []
    result = tether("-p", "go", "--trust-workspace", *off)
    assert result.exit_code == 0, result.stderr
    assert configured.requests[1].tool_results() == ["P=from-project U=from-user T=from-shell"]


def test_an_untrusted_workspace_env_table_is_not_applied(
    configured: FakeModelServer, tether: Callable[..., CliResult]
) -> None:
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr
    assert configured.requests[1].tool_results() == ["P= U=from-user T=from-settings"]


def test_a_stdio_mcp_server_gets_the_env_table(
    model_env: FakeModelServer, workspace: Path, tmp_path: Path, tether: Callable[..., CliResult]
) -> None:
    marker = tmp_path / "server-env"
    program = "import os, sys; open(sys.argv[1], 'w').write(os.environ.get('MY_USER_VAR', '-'))"
    servers = {"probe": {"command": sys.executable, "args": ["-c", program, str(marker)]}}
    settings = {"env": {"MY_USER_VAR": "from-user"}}
    (tmp_path / "home" / "settings.json").write_text(json.dumps(settings))
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    model_env.script(reply(text("done")))
    result = tether("-p", "go", "--mcp-config", str(config))
    assert result.exit_code == 0, result.stderr
    assert marker.read_text() == "from-user"
