"""MCP server configuration read from real files: every source and its precedence, `${VAR}`
expansion, validation messages, broken files, limits and project approvals."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tether.mcp.config import (
    McpConfig,
    is_project_server_enabled,
    load_limits,
    load_servers,
    project_servers_needing_approval,
)
from tether.mcp.servers import HttpTransport, McpLimits, Scope, ServerConfig, StdioTransport
from tether.protocol import ConfigError


@dataclass(frozen=True)
class Dirs:
    workspace: Path
    home: Path
    tether_home: Path

    @property
    def claude(self) -> Path:
        return self.home / ".claude.json"

    @property
    def tether_user(self) -> Path:
        return self.tether_home / "mcp.json"

    @property
    def project(self) -> Path:
        return self.workspace / ".mcp.json"

    @property
    def local(self) -> Path:
        return self.workspace / ".tether" / "mcp.local.json"

    @property
    def seed(self) -> Path:
        return self.workspace / "config" / "mcp_config.yaml"

    def load(self, env: dict[str, str] | None = None) -> McpConfig:
        return load_servers(
            self.workspace, home=self.home, tether_home=self.tether_home, env=env or {}
        )


@pytest.fixture
def dirs(tmp_path: Path) -> Dirs:
    made = Dirs(tmp_path / "ws", tmp_path / "user-home", tmp_path / "tether-home")
    for path in (made.workspace, made.home, made.tether_home):
        path.mkdir()
    return made


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = data if isinstance(data, str) else json.dumps(data, indent=2)
    path.write_text(text, encoding="utf-8")
    return path


def servers_file(servers: Any) -> dict[str, Any]:
    return {"mcpServers": servers}


def stdio(name: str, command: str, scope: Scope, source: Path, *args: str) -> ServerConfig:
    return ServerConfig(name, StdioTransport(command, args), scope, source)


def test_no_files_no_servers(dirs: Dirs) -> None:
    assert dirs.load() == McpConfig()


def test_each_source_replaces_the_ones_before_it(dirs: Dirs) -> None:
    # "upto{j}" is defined by sources 0..j: the last of them must win.
    sources = ["seed", "claude user", "tether user", "project", "claude local", "tether local"]

    def entries(i: int) -> dict[str, Any]:
        return {f"upto{j}": {"command": f"source{i}"} for j in range(i, len(sources))}

    write(
        dirs.seed,
        "servers:\n"
        + "".join(f"  - name: upto{j}\n    command: source0\n" for j in range(len(sources))),
    )
    write(
        dirs.claude,
        {
            "numStartups": 3,
            "mcpServers": entries(1),
            "projects": {
                str(dirs.workspace): {"allowedTools": [], "mcpServers": entries(4)},
                "/some/other/project": {"mcpServers": {"elsewhere": {"command": "x"}}},
            },
        },
    )
    write(dirs.tether_user, servers_file(entries(2)))
    write(dirs.project, servers_file(entries(3)))
    write(dirs.local, servers_file(entries(5)))

    files = [dirs.seed, dirs.claude, dirs.tether_user, dirs.project, dirs.claude, dirs.local]
    scopes: list[Scope] = ["seed", "user", "user", "project", "local", "local"]
    assert dirs.load() == McpConfig(
        tuple(stdio(f"upto{j}", f"source{j}", scopes[j], files[j]) for j in range(len(sources)))
    )


def test_claude_code_docs_mcp_json_loads_unchanged(dirs: Dirs) -> None:
    # The examples of Claude Code's MCP documentation, as a repository would commit them.
    write(
        dirs.project,
        """{
  "mcpServers": {
    "shared-server": {
      "command": "/path/to/server",
      "args": [],
      "env": {}
    },
    "my-tool": {
      "command": "node",
      "args": ["./my-mcp-server.js"],
      "env": {"DEBUG": "${DEBUG:-false}"}
    },
    "api-server": {
      "type": "http",
      "url": "${API_BASE_URL:-https://api.example.com}/mcp",
      "headers": {"Authorization": "Bearer ${API_KEY}"}
    },
    "remote-api": {
      "type": "sse",
      "url": "https://api.example.com/mcp/sse",
      "headers": {"X-API-Key": "${API_KEY}"}
    },
    "typed": {"type": "stdio", "command": "npx", "args": ["-y", "@scope/server"], "env": {}}
  }
}
""",
    )
    assert dirs.load({"API_KEY": "k-123"}) == McpConfig(
        (
            ServerConfig(
                "api-server",
                HttpTransport("https://api.example.com/mcp", {"Authorization": "Bearer k-123"}),
                "project",
                dirs.project,
            ),
            ServerConfig(
                "my-tool",
                StdioTransport("node", ("./my-mcp-server.js",), {"DEBUG": "false"}),
                "project",
                dirs.project,
            ),
            ServerConfig(
                "remote-api",
                HttpTransport(
                    "https://api.example.com/mcp/sse", {"X-API-Key": "k-123"}, kind="sse"
                ),
                "project",
                dirs.project,
            ),
            stdio("shared-server", "/path/to/server", "project", dirs.project),
            stdio("typed", "npx", "project", dirs.project, "-y", "@scope/server"),
        )
    )


def test_streamable_http_and_a_url_without_type_are_http(dirs: Dirs) -> None:
    write(
        dirs.local,
        servers_file(
            {
                "a": {"type": "streamable-http", "url": "http://127.0.0.1:9/mcp"},
                "b": {"url": "https://example.com/mcp"},
            }
        ),
    )
    assert dirs.load() == McpConfig(
        (
            ServerConfig("a", HttpTransport("http://127.0.0.1:9/mcp"), "local", dirs.local),
            ServerConfig("b", HttpTransport("https://example.com/mcp"), "local", dirs.local),
        )
    )


def test_expansion_everywhere_with_defaults(dirs: Dirs) -> None:
    write(
        dirs.project,
        servers_file(
            {
                "s": {
                    "command": "${BIN}/server",
                    "args": ["--root", "${ROOT:-/srv}", "${EMPTY:-unused}", "$NOT_BRACED"],
                    "env": {"TOKEN": "t=${TOKEN}", "MODE": "${MODE:-dev}"},
                    "cwd": "${SUB:-sub}",
                },
                "h": {"type": "http", "url": "${BASE}/mcp", "headers": {"X-Key": "${TOKEN}"}},
            }
        ),
    )
    env = {"BIN": "/opt/bin", "TOKEN": "secret", "EMPTY": "", "BASE": "http://localhost:1"}
    assert dirs.load(env) == McpConfig(
        (
            ServerConfig(
                "h",
                HttpTransport("http://localhost:1/mcp", {"X-Key": "secret"}),
                "project",
                dirs.project,
            ),
            ServerConfig(
                "s",
                StdioTransport(
                    "/opt/bin/server",
                    ("--root", "/srv", "", "$NOT_BRACED"),
                    {"TOKEN": "t=secret", "MODE": "dev"},
                    cwd=dirs.workspace / "sub",
                ),
                "project",
                dirs.project,
            ),
        )
    )


def test_a_missing_variable_makes_only_that_server_unusable(dirs: Dirs) -> None:
    write(
        dirs.project,
        servers_file(
            {
                "ok": {"command": "run"},
                "needs-keys": {
                    "type": "http",
                    "url": "https://${HOST}/mcp",
                    "headers": {"Authorization": "Bearer ${API_TOKEN}"},
                },
            }
        ),
    )
    assert dirs.load() == McpConfig(
        (stdio("ok", "run", "project", dirs.project),),
        (
            f"{dirs.project}: server 'needs-keys': environment variable not set and no default "
            "given: ${HOST} (in url), ${API_TOKEN} (in headers.Authorization)",
        ),
    )


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("npx server", "must be an object, not a string"),
        ({"type": "ws", "url": "ws://x"}, "unknown type 'ws' (expected stdio, http, "
         "streamable-http, sse)"),
        ({"type": 3, "command": "x"}, "unknown type 3 (expected stdio, http, streamable-http, "
         "sse)"),
        ({"args": ["x"]}, "missing 'command'"),
        ({"type": "stdio", "command": ""}, "command is empty"),
        ({"command": ["npx", "x"]}, "command must be a string, not a list"),
        ({"command": "x", "args": "--flag"}, "args must be a list of strings, not a string"),
        ({"command": "x", "args": ["--port", 80]}, "args must be a list of strings (args[1] is "
         "a number)"),
        ({"command": "x", "env": ["A=1"]}, "env must be an object of strings, not a list"),
        ({"command": "x", "env": {"PORT": 80}}, "env must be an object of strings (env.PORT is "
         "a number)"),
        ({"command": "x", "cwd": 1}, "cwd must be a string, not a number"),
        ({"type": "http"}, "missing 'url'"),
        ({"type": "sse", "url": None}, "missing 'url'"),
        ({"type": "http", "url": "example.com/mcp"}, "url must start with http:// or https://, "
         "not 'example.com/mcp'"),
        ({"type": "http", "url": "http://x", "headers": {"A": True}}, "headers must be an object "
         "of strings (headers.A is a boolean)"),
        ({"type": "http", "url": "http://x", "headers": "A: b"}, "headers must be an object of "
         "strings, not a string"),
    ],
)  # fmt: skip
def test_validation_messages(dirs: Dirs, entry: Any, message: str) -> None:
    write(dirs.project, servers_file({"bad": entry, "good": {"command": "run"}}))
    assert dirs.load() == McpConfig(
        (stdio("good", "run", "project", dirs.project),),
        (f"{dirs.project}: server 'bad': {message}",),
    )


def test_server_names_are_any_printable_text_as_in_claude_code(dirs: Dirs) -> None:
    # Claude Code takes `my.server x` (an SDK program's name); the tools' names are made valid
    # for the model elsewhere. Blank, control characters and very long names are refused.
    long = "x" * 201
    write(
        dirs.local,
        servers_file(
            {
                "my server": {"command": "x"},
                "a/b": {"command": "x"},
                " ": {"command": "x"},
                "tab\there": {"command": "x"},
                long: {"command": "x"},
            }
        ),
    )
    rule = "a name must be printable text, not blank, of at most 200 characters"
    loaded = dirs.load()
    assert [s.name for s in loaded.servers] == ["a/b", "my server"]
    assert loaded.problems == (
        f"{dirs.local}: server ' ': {rule}",
        f"{dirs.local}: server 'tab\\there': {rule}",
        f"{dirs.local}: server '{long}': {rule}",
    )


def test_unknown_fields_are_reported_and_ignored(dirs: Dirs) -> None:
    write(dirs.project, servers_file({"s": {"command": "x", "arg": ["-v"]}}))
    assert dirs.load() == McpConfig(
        (stdio("s", "x", "project", dirs.project),),
        (
            f"{dirs.project}: server 's': unknown field 'arg' ignored "
            "(expected type, command, args, env, cwd)",
        ),
    )


def test_a_broken_entry_hides_the_server_it_would_replace(dirs: Dirs) -> None:
    write(dirs.tether_user, servers_file({"db": {"command": "user-db"}}))
    write(dirs.local, servers_file({"db": {"command": "local-db", "args": "oops"}}))
    assert dirs.load() == McpConfig(
        (), (f"{dirs.local}: server 'db': args must be a list of strings, not a string",)
    )


@pytest.mark.parametrize("which", ["claude", "tether_user", "project", "local"])
def test_broken_json_names_file_line_and_column(dirs: Dirs, which: str) -> None:
    write(getattr(dirs, which), '{\n  "mcpServers": {\n    "a": {"command" "x"}\n  }\n}\n')
    write(dirs.seed, "servers:\n  - name: fine\n    command: run\n")
    assert dirs.load() == McpConfig(
        (stdio("fine", "run", "seed", dirs.seed),),
        (
            f"{getattr(dirs, which)} is not valid JSON: Expecting ':' delimiter "
            "at line 3, column 21",
        ),
    )


def test_files_of_the_wrong_shape(dirs: Dirs) -> None:
    write(dirs.project, "[1, 2]")
    write(dirs.local, servers_file(["a"]))
    write(dirs.claude, {"projects": {str(dirs.workspace): {"mcpServers": 1}}})
    write(dirs.tether_user, "")  # an empty file is an empty configuration
    assert dirs.load() == McpConfig(
        (),
        (
            f"{dirs.project} must hold a JSON object, not a list",
            f"{dirs.claude} (projects[{str(dirs.workspace)!r}]): mcpServers must be an object, "
            "not a number",
            f"{dirs.local}: mcpServers must be an object, not a list",
        ),
    )


def test_claude_config_dir_moves_claude_json(dirs: Dirs, tmp_path: Path) -> None:
    moved = write(
        tmp_path / "claude-config" / ".claude.json", servers_file({"c": {"command": "c"}})
    )
    write(dirs.claude, servers_file({"ignored": {"command": "x"}}))
    config = dirs.load({"CLAUDE_CONFIG_DIR": str(moved.parent)})
    assert config == McpConfig((stdio("c", "c", "user", moved),))


def test_seed_yaml(dirs: Dirs) -> None:
    write(
        dirs.seed,
        """\
servers:
  - name: git
    transport: stdio
    command: mcp-server-git
    args: ["--repository", "."]
    env: {GIT_TERMINAL_PROMPT: "0"}
  - name: remote
    transport: sse
    url: http://localhost:8000/sse
    headers: {Authorization: "Bearer ${TOKEN:-none}"}
  - name: remote
    transport: http
    url: http://localhost:8000/mcp
  - command: nameless
  - name: odd
    transport: carrier-pigeon
""",
    )
    assert dirs.load() == McpConfig(
        (
            ServerConfig(
                "git",
                StdioTransport(
                    "mcp-server-git", ("--repository", "."), {"GIT_TERMINAL_PROMPT": "0"}
                ),
                "seed",
                dirs.seed,
            ),
            ServerConfig("remote", HttpTransport("http://localhost:8000/mcp"), "seed", dirs.seed),
        ),
        (
            f"{dirs.seed}: server 'remote' is defined twice; the last one is used",
            f"{dirs.seed}: servers[3] needs a name (a string)",
            f"{dirs.seed}: server 'odd': unknown transport 'carrier-pigeon' "
            "(expected stdio, http, streamable-http, sse)",
        ),
    )


def test_broken_seed_yaml(dirs: Dirs) -> None:
    write(dirs.seed, "servers:\n  - name: [unclosed\n")
    write(dirs.project, servers_file({"p": {"command": "p"}}))
    assert dirs.load() == McpConfig(
        (stdio("p", "p", "project", dirs.project),),
        (
            f"{dirs.seed} is not valid YAML: expected ',' or ']', but got '<stream end>' "
            "at line 3, column 1",
        ),
    )


def test_seed_yaml_of_the_wrong_shape(dirs: Dirs) -> None:
    write(dirs.seed, "servers: {git: {command: x}}\n")
    assert dirs.load().problems == (f"{dirs.seed}: servers must be a list, not an object",)


def test_limits_default() -> None:
    assert load_limits({}, {}) == McpLimits()


def test_limits_from_settings_and_environment() -> None:
    settings = {
        "tether": {
            "mcp": {
                "startupTimeoutMs": 5000,
                "toolTimeoutMs": 60000,
                "maxOutputChars": 2000,
                "toolSearchShare": 0.25,
            }
        }
    }
    assert load_limits(settings, {}) == McpLimits(5.0, 60.0, 2000, 0.25)
    env = {"MCP_TIMEOUT": "1500", "MCP_TOOL_TIMEOUT": "90000.5", "MAX_MCP_OUTPUT_TOKENS": "1000"}
    assert load_limits(settings, env) == McpLimits(1.5, 90.0005, 4000, 0.25)
    assert load_limits({}, {"MCP_TIMEOUT": " "}) == McpLimits()  # empty is unset


@pytest.mark.parametrize(
    ("settings", "env", "message"),
    [
        ({"tether": []}, {}, 'settings key "tether" must be an object'),
        ({"tether": {"mcp": 5}}, {}, 'settings key "tether.mcp" must be an object'),
        (
            {"tether": {"mcp": {"timeoutMs": 1}}},
            {},
            'unknown settings key "tether.mcp.timeoutMs" (expected startupTimeoutMs, '
            "toolTimeoutMs, maxOutputChars, toolSearchShare)",
        ),
        (
            {"tether": {"mcp": {"startupTimeoutMs": "5s"}}},
            {},
            'settings key "tether.mcp.startupTimeoutMs" must be a positive number of milliseconds',
        ),
        (
            {"tether": {"mcp": {"toolTimeoutMs": 0}}},
            {},
            'settings key "tether.mcp.toolTimeoutMs" must be a positive number of milliseconds',
        ),
        (
            {"tether": {"mcp": {"maxOutputChars": 10.5}}},
            {},
            'settings key "tether.mcp.maxOutputChars" must be a positive whole number',
        ),
        (
            {"tether": {"mcp": {"toolSearchShare": 1.5}}},
            {},
            'settings key "tether.mcp.toolSearchShare" must be a number from 0 to 1',
        ),
        (
            {},
            {"MCP_TIMEOUT": "ten"},
            "environment variable MCP_TIMEOUT must be a number of milliseconds from 1 to "
            "86,400,000, not 'ten'",
        ),
        (
            {},
            {"MCP_TOOL_TIMEOUT": "-1"},
            "environment variable MCP_TOOL_TIMEOUT must be a number of milliseconds from 1 to "
            "86,400,000, not '-1'",
        ),
        (
            {},
            {"MAX_MCP_OUTPUT_TOKENS": "2.5"},
            "environment variable MAX_MCP_OUTPUT_TOKENS must be a whole number of tokens from 1 "
            "to 25,000,000, not '2.5'",
        ),
        (
            {},
            {"MCP_TIMEOUT": "1e300"},
            "environment variable MCP_TIMEOUT must be a number of milliseconds from 1 to "
            "86,400,000, not '1e300'",
        ),
    ],
)
def test_bad_limits(settings: dict[str, Any], env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_limits(settings, env)
    assert str(caught.value) == message


def test_project_server_approval(dirs: Dirs) -> None:
    write(dirs.project, servers_file({n: {"command": n} for n in ("a", "b", "c", "d")}))
    write(dirs.local, servers_file({"mine": {"command": "mine"}}))
    config = dirs.load()
    settings = {"enabledMcpjsonServers": ["a", "c"], "disabledMcpjsonServers": ["b", "c"]}
    # A rejection wins over an approval, as in Claude Code.
    assert [is_project_server_enabled(n, settings) for n in "abcd"] == [True, False, False, None]
    assert project_servers_needing_approval(config, settings) == ["d"]
    everything = {"enableAllProjectMcpServers": True, "disabledMcpjsonServers": ["b"]}
    assert project_servers_needing_approval(config, everything) == []
    assert [is_project_server_enabled(n, everything) for n in "ab"] == [True, False]
    assert project_servers_needing_approval(config, {}) == ["a", "b", "c", "d"]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"enableAllProjectMcpServers": "yes"}, "must be true or false"),
        ({"enabledMcpjsonServers": "a"}, "must be a list of server names"),
        ({"disabledMcpjsonServers": [1]}, "must be a list of server names"),
    ],
)
def test_bad_approval_settings(settings: dict[str, Any], message: str) -> None:
    [key] = settings
    with pytest.raises(ConfigError) as caught:
        is_project_server_enabled("a", settings)
    assert str(caught.value) == f'settings key "{key}" {message}'
