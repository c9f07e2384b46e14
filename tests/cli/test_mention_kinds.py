"""`@dir/` in a prompt attaches the directory's listing (bounded, ignored files left out) and
`@server:proto://resource` reads an MCP server's resource, as Claude Code does with them; a
mention of neither stays text."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def test_a_mentioned_directory_attaches_its_listing_without_ignored_files(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    lib = workspace / "src" / "lib"
    (lib / "deep").mkdir(parents=True)
    (lib / "util.py").write_text("UTIL_BODY = 1\n")
    (lib / "deep" / "inner.py").write_text("")
    (lib / "build.log").write_text("")
    (workspace / ".gitignore").write_text("*.log\n")
    fake_model.script(reply(text("It holds util.py.")))

    result = tether("-p", "look at @src/lib/ and @src/lib")

    assert result.exit_code == 0, result.stderr
    said = [block["text"] for block in fake_model.requests[0].messages()[-1]["content"]]
    assert said[0] == "look at @src/lib/ and @src/lib"
    assert len(said) == 3  # the call, then its result, once for the one directory
    assert f'"pattern": "**/*", "path": "{lib}"' in said[1]
    listing = json.loads(said[2].split("Glob tool: ", 1)[1].rsplit("\n", 1)[0])
    assert sorted(listing.splitlines()) == ["src/lib/deep/inner.py", "src/lib/util.py"]
    assert "UTIL_BODY" not in str(fake_model.requests[0].body)  # a listing, not the files


def test_a_mentioned_mcp_resource_is_read_into_the_prompt(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path
) -> None:
    from tether.testing.mcp_http_server import McpHttpServer

    with McpHttpServer() as demo:
        servers = {"mcpServers": {"demo": {"type": "http", "url": demo.url}}}
        (trusted_workspace / ".mcp.json").write_text(json.dumps(servers))
        fake_model.script(reply(text("read it")))
        result = tether("-p", "summarise @demo:test://greeting and @nobody:test://x")

    assert result.exit_code == 0, result.stderr
    said = [block["text"] for block in fake_model.requests[0].messages()[-1]["content"]]
    assert "Called the ReadMcpResourceTool tool" in said[1]
    assert '"server": "demo", "uri": "test://greeting"' in said[1]
    assert "hello from the demo server" in said[2]
    assert "Error from" in said[4]  # a server there is not: the model is told, not misled


def test_the_repl_reads_a_mentioned_resource_of_a_server_it_connects(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    from tests.cli.pty_terminal import PtyRepl
    from tests.cli.test_repl_commands import anthropic_only
    from tether.testing.mcp_http_server import McpHttpServer

    model_env.script(reply(text("Read the greeting.")))
    with McpHttpServer() as demo:
        config = tmp_path / "servers.json"
        config.write_text(json.dumps({"mcpServers": {"demo": {"type": "http", "url": demo.url}}}))
        repl = PtyRepl(workspace, anthropic_only(home), "--mcp-config", str(config))
        try:
            repl.wait_for("> ")
            repl.send("summarise @demo:test://greeting\r")
            repl.wait_for("Read the greeting.")
        finally:
            repl.close()
    said = [block["text"] for block in model_env.requests[0].messages()[-1]["content"]]
    assert "Called the ReadMcpResourceTool tool" in said[-2]
    assert "hello from the demo server" in said[-1]


def test_the_at_menu_offers_the_servers_resources(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    from tests.cli.pty_terminal import PtyRepl
    from tests.cli.test_repl_commands import anthropic_only
    from tether.testing.mcp_http_server import McpHttpServer

    (workspace / "README.md").write_text("")
    with McpHttpServer() as demo:
        config = tmp_path / "servers.json"
        config.write_text(json.dumps({"mcpServers": {"demo": {"type": "http", "url": demo.url}}}))
        repl = PtyRepl(workspace, anthropic_only(home), "--mcp-config", str(config))
        try:
            repl.wait_for("> ")
            for asked in range(1, 60):  # until the server has connected (/mcp says so)
                repl.send("/mcp\r")
                repl.wait_for("reconnect a server", count=asked)
                if "demo                 connected" in repl.screen:
                    break
            repl.send("read @")  # the first `@` lists them; the menu shows them when listed
            repl.wait_for("demo:test://greeting")
            assert "MCP resource" in repl.screen
        finally:
            repl.close()
