"""`tether mcp add-json NAME JSON [-s SCOPE]`, as `claude mcp add-json`: the entry written to the
file `tether mcp add` writes for the scope, checked as a session reads it, nothing written when
it cannot be used."""

from __future__ import annotations

import io
import json
import sys

import pytest

from tests.mcp import test_mcp_cmd
from tests.mcp.test_mcp_cmd import Cli, read, write

cli = test_mcp_cmd.cli  # the fixture of the `tether mcp` tests: a trusted project, its homes


@pytest.mark.parametrize("scope", ["local", "project", "user"])
def test_add_json_writes_what_add_writes_and_get_reads_it(cli: Cli, scope: str) -> None:
    path = cli.files()[scope]
    entry = {"type": "stdio", "command": "clock-server", "args": ["-v"], "env": {"TZ": "UTC"}}
    code, out, err = cli("add-json", "-s", scope, "clock", json.dumps(entry))
    assert (code, out.splitlines()[0], err) == (
        0,
        f"Added stdio MCP server 'clock' to the {scope} scope: {path}",
        "",
    )
    by_json = path.read_text(encoding="utf-8")
    assert cli("remove", "clock")[0] == 0
    assert cli("add", "-s", scope, "-e", "TZ=UTC", "clock", "--", "clock-server", "-v")[0] == 0
    assert path.read_text(encoding="utf-8") == by_json
    code, out, _ = cli("get", "clock", "--no-connect", "--json")
    assert (code, json.loads(out)["scope"]) == (0, scope)


def test_add_json_defaults_to_the_local_scope_kept_out_of_git(cli: Cli) -> None:
    code, out, _ = cli("add-json", "s", '{"command": "s-server"}')
    local = cli.files()["local"]
    assert (code, out) == (0, f"Added stdio MCP server 's' to the local scope: {local}\n")
    assert read(local) == {"mcpServers": {"s": {"command": "s-server"}}}
    ignored = (local.parent / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "*.local*" in ignored, ignored  # as `tether mcp add` keeps it


def test_add_json_of_an_http_server_with_an_unset_variable_is_written_with_a_note(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DOCS_TOKEN", raising=False)
    entry = {
        "type": "http",
        "url": "https://mcp.example.com/mcp",
        "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"},
    }
    code, out, err = cli("add-json", "--scope", "project", "docs", json.dumps(entry))
    project = cli.files()["project"]
    assert (code, out.splitlines()[0]) == (
        0,
        f"Added http MCP server 'docs' to the project scope: {project}",
    )
    assert err == (
        "note: environment variable not set and no default given: ${DOCS_TOKEN} "
        "(in headers.Authorization): set it before a session starts the server\n"
    )
    assert read(project) == {"mcpServers": {"docs": entry}}


def test_add_json_reads_the_entry_from_stdin_given_as_a_dash(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        sys, "stdin", io.StringIO('{"type": "sse", "url": "http://127.0.0.1:9/sse"}')
    )
    code, out, _ = cli("add-json", "-s", "user", "events", "-")
    assert (code, out.splitlines()[0]) == (
        0,
        f"Added sse MCP server 'events' to the user scope: {cli.files()['user']}",
    )
    assert read(cli.files()["user"]) == {
        "mcpServers": {"events": {"type": "sse", "url": "http://127.0.0.1:9/sse"}}
    }


@pytest.mark.parametrize(
    ("name", "given", "said"),
    [
        ("s", '{"command": "x",', "the server's JSON is not valid JSON: "),
        ("s", '["x"]', "the server's JSON must be an object, not a list"),
        ("s", '{"type": "websocket", "url": "ws://x"}', "server 's': unknown type 'websocket'"),
        ("s", '{"type": "http", "url": "ftp://x"}', "server 's': url must start with http://"),
        ("s", "{}", "server 's': "),
        ("s", '{"command": "x", "args": "-v"}', "server 's': "),
        ("bad name", '{"command": "x"}', "bad server name 'bad name'"),
    ],
)
def test_add_json_refuses_an_entry_it_cannot_use_and_writes_nothing(
    cli: Cli, name: str, given: str, said: str
) -> None:
    local = write(cli.files()["local"], {"mcpServers": {"kept": {"command": "k"}}})
    before = local.read_text(encoding="utf-8")
    code, out, err = cli("add-json", name, given)
    assert (code, out) == (2, ""), err
    assert err.startswith(f"tether: error: {said}"), err
    assert local.read_text(encoding="utf-8") == before


def test_add_json_refuses_a_name_the_scope_has(cli: Cli) -> None:
    local = write(cli.files()["local"], {"mcpServers": {"s": {"command": "old"}}})
    code, _, err = cli("add-json", "s", '{"command": "new"}')
    assert (code, err) == (
        2,
        f"tether: error: server 's' already exists in {local}; remove it first\n",
    )
    assert read(local) == {"mcpServers": {"s": {"command": "old"}}}


def test_add_json_tells_an_unknown_field_and_keeps_the_entry_as_given(cli: Cli) -> None:
    code, _, err = cli("add-json", "s", '{"command": "true", "timeout": 5}')
    assert code == 0
    assert err == (
        f"note: {cli.files()['local']}: server 's': unknown field 'timeout' ignored "
        "(expected type, command, args, env, cwd)\n"
    )
    assert read(cli.files()["local"]) == {"mcpServers": {"s": {"command": "true", "timeout": 5}}}
