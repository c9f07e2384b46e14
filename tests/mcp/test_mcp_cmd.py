"""`tether mcp list|get|add|remove`, run in-process against real files in the test's own
home, tether home and project."""

from __future__ import annotations

import json
import shlex
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tether.config.trust import record_trust
from tether.main import main


@dataclass(frozen=True)
class Cli:
    workspace: Path
    home: Path
    tether_home: Path
    capsys: pytest.CaptureFixture[str]

    def __call__(self, *argv: str) -> tuple[int, str, str]:
        """Run `tether mcp ARGV` in the project: exit code, stdout, stderr."""
        command, *rest = argv
        try:
            code = main(["mcp", command, "--cwd", str(self.workspace), *rest])
        except SystemExit as e:  # argparse's usage errors
            code = int(e.code or 0)
        out = self.capsys.readouterr()
        return code, out.out, out.err

    def files(self) -> dict[str, Path]:
        return {
            "local": self.workspace / ".tether" / "mcp.local.json",
            "project": self.workspace / ".mcp.json",
            "user": self.tether_home / "mcp.json",
        }


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    made = Cli(tmp_path / "ws", tmp_path / "user-home", tmp_path / "tether-home", capsys)
    for path in (made.workspace, made.home):
        path.mkdir()
    # The user's own project: its servers may start (tests/cli/test_trust.py has the others).
    record_trust(made.workspace, True, tether_home=made.tether_home, user_home=made.home)
    monkeypatch.setenv("HOME", str(made.home))
    monkeypatch.setenv("TETHER_HOME", str(made.tether_home))
    for name in ("CLAUDE_CONFIG_DIR", "MCP_TIMEOUT", "MCP_TOOL_TIMEOUT", "MAX_MCP_OUTPUT_TOKENS"):
        monkeypatch.delenv(name, raising=False)
    return made


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


@pytest.mark.parametrize("scope", ["local", "project", "user"])
def test_add_get_remove_round_trip(cli: Cli, scope: str) -> None:
    path = cli.files()[scope]
    code, out, err = cli("add", "-s", scope, "-e", "TZ=UTC", "clock", "--", "clock-server", "-v")
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == f"Added stdio MCP server 'clock' to the {scope} scope: {path}"
    assert read(path) == {
        "mcpServers": {
            "clock": {
                "type": "stdio",
                "command": "clock-server",
                "args": ["-v"],
                "env": {"TZ": "UTC"},
            }
        }
    }
    assert path.read_text(encoding="utf-8").endswith("}\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it may hold keys

    code, out, _ = cli("get", "clock", "--no-connect")
    approval = "\n  Status: not started: needs approval (tether asks in the REPL)"
    assert (code, out) == (
        0,
        f"clock:\n  Scope: {scope} ({path})\n  Type: stdio\n  Command: clock-server -v\n"
        f"  Environment:\n    TZ=***{approval if scope == 'project' else ''}\n\n"
        f"To remove it: tether mcp remove clock -s {scope}\n",
    )

    code, out, _ = cli("remove", "clock")
    assert (code, out) == (0, f"Removed MCP server 'clock' from the {scope} scope: {path}\n")
    assert read(path) == {"mcpServers": {}}
    assert cli("list", "--no-connect")[:2] == (
        0,
        "No MCP servers configured. Add one: tether mcp add NAME -- COMMAND [ARGS...]\n",
    )


def test_add_keeps_the_rest_of_the_file(cli: Cli) -> None:
    project = write(
        cli.files()["project"], {"$comment": "team servers", "mcpServers": {"a": {"command": "a"}}}
    )
    project.chmod(0o644)
    assert cli("add", "-s", "project", "b", "b-server")[0] == 0
    assert read(project) == {
        "$comment": "team servers",
        "mcpServers": {
            "a": {"command": "a"},
            "b": {"type": "stdio", "command": "b-server", "args": [], "env": {}},
        },
    }
    assert stat.S_IMODE(project.stat().st_mode) == 0o644
    assert project.read_text(encoding="utf-8").startswith('{\n  "$comment": "team servers",\n')
    assert [p.name for p in project.parent.iterdir()] == [".mcp.json"]  # no temporary file left


@pytest.mark.parametrize(
    ("argv", "command", "args"),
    [
        (["s", "--", "npx", "-y", "pkg", "--flag"], "npx", ["-y", "pkg", "--flag"]),
        (["s", "npx", "-y", "pkg", "--flag"], "npx", ["-y", "pkg", "--flag"]),
        (["-e", "K=V", "s", "cmd", "a", "--", "-b"], "cmd", ["a", "--", "-b"]),
        (["s", "-e", "K=V", "--", "cmd", "-e", "x"], "cmd", ["-e", "x"]),
        (["s", "cmd", "--", "x"], "cmd", ["--", "x"]),
        (["--scope=local", "-t", "stdio", "s", "cmd", "-s", "user"], "cmd", ["-s", "user"]),
    ],
)
def test_everything_after_the_command_is_its_arguments(
    cli: Cli, argv: list[str], command: str, args: list[str]
) -> None:
    assert cli("add", *argv)[0] == 0
    entry = read(cli.files()["local"])["mcpServers"]["s"]
    assert (entry["command"], entry["args"]) == (command, args)


def test_add_http_and_sse_with_headers(cli: Cli) -> None:
    url = "https://mcp.example.com/mcp"
    auth = "Authorization: Bearer ${TOKEN}"
    # Options may follow a URL, as in Claude Code's documented examples.
    code, out, _ = cli("add", "-t", "http", "-H", auth, "api", url, "--header", "X-Team:  core ")
    assert (code, out) == (
        0,
        f"Added http MCP server 'api' to the local scope: {cli.files()['local']}\n",
    )
    assert (
        cli("add", "events", "http://localhost:9/sse", "--transport", "sse", "-s", "user")[0] == 0
    )
    assert read(cli.files()["local"]) == {
        "mcpServers": {
            "api": {
                "type": "http",
                "url": url,
                "headers": {"Authorization": "Bearer ${TOKEN}", "X-Team": "core"},
            }
        }
    }
    assert read(cli.files()["user"]) == {
        "mcpServers": {"events": {"type": "sse", "url": "http://localhost:9/sse"}}
    }


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["a b", "cmd"], "bad server name 'a b': use letters, digits, '_', '-' and '.'"),
        (["s"], "missing COMMAND_OR_URL: tether mcp add [options] NAME -- COMMAND ..."),
        (["s", "--"], "missing COMMAND_OR_URL: tether mcp add [options] NAME -- COMMAND ..."),
        (["-H", "A: b", "s", "cmd"], "--header is for http and sse servers"),
        (["-e", "NOVALUE", "s", "cmd"], "--env takes KEY=VALUE, not 'NOVALUE'"),
        (["-t", "http", "s", "mcp.example.com"], "'mcp.example.com' is not a URL (http:// or "
         "https://)"),
        (["-t", "sse", "-e", "A=1", "s", "http://x"], "--env is for stdio servers (an http "
         "server's keys go in --header)"),
        (["-t", "http", "-H", "no colon", "s", "http://x"], "--header takes \"Name: value\", "
         "not 'no colon'"),
    ],
)  # fmt: skip
def test_add_refuses_with_a_clear_message(cli: Cli, argv: list[str], message: str) -> None:
    assert cli("add", *argv) == (2, "", f"tether: error: {message}\n")
    assert not cli.files()["local"].exists()


def test_add_refuses_a_name_the_file_has(cli: Cli) -> None:
    assert cli("add", "s", "one")[0] == 0
    before = cli.files()["local"].read_text(encoding="utf-8")
    assert cli("add", "s", "two") == (
        2,
        "",
        f"tether: error: server 's' already exists in {cli.files()['local']}; remove it first\n",
    )
    assert cli.files()["local"].read_text(encoding="utf-8") == before


def test_add_to_a_broken_file_changes_nothing(cli: Cli) -> None:
    path = cli.files()["project"]
    path.write_text('{"mcpServers": {,}}', encoding="utf-8")
    assert cli("add", "-s", "project", "s", "cmd") == (
        2,
        "",
        f"tether: error: {path} is not valid JSON: Expecting property name enclosed in double "
        "quotes at line 1, column 17\n",
    )
    assert path.read_text(encoding="utf-8") == '{"mcpServers": {,}}'


def test_a_url_given_as_a_command_gets_a_note(cli: Cli) -> None:
    assert cli("add", "s", "https://example.com/mcp") == (
        0,
        f"Added stdio MCP server 's' to the local scope: {cli.files()['local']}\n",
        "note: https://example.com/mcp is run as a command; for a URL use -t http\n",
    )


def test_remove_asks_which_scope_when_several_have_it(cli: Cli) -> None:
    for scope in ("local", "user"):
        assert cli("add", "-s", scope, "dup", "cmd")[0] == 0
    assert cli("remove", "dup") == (
        2,
        "",
        "tether: error: server 'dup' is in several scopes (local, user); choose one with -s\n",
    )
    assert cli("remove", "dup", "-s", "user")[0] == 0
    assert read(cli.files()["local"])["mcpServers"] == {"dup": _stdio("cmd")}
    assert read(cli.files()["user"])["mcpServers"] == {}


def test_remove_never_writes_claude_codes_file(cli: Cli) -> None:
    claude = write(
        cli.home / ".claude.json",
        {
            "mcpServers": {"theirs": {"command": "x"}},
            "projects": {str(cli.workspace): {"mcpServers": {"here": {"command": "y"}}}},
        },
    )
    before = claude.read_text(encoding="utf-8")
    assert cli("get", "here", "--no-connect")[1] == (
        f"here:\n  Scope: local ({claude})\n  Type: stdio\n  Command: y\n"
    )
    for name in ("theirs", "here"):
        assert cli("remove", name) == (
            2,
            "",
            f"tether: error: no MCP server {name!r} in tether's files; it is in {claude}, Claude "
            f"Code's file, which tether never writes (use `claude mcp remove {name}`)\n",
        )
    assert cli("remove", "theirs", "-s", "user")[2] == (
        f"tether: error: no MCP server 'theirs' in the user scope ({cli.files()['user']}); it is "
        f"in {claude}, Claude Code's file, which tether never writes "
        "(use `claude mcp remove theirs`)\n"
    )
    assert claude.read_text(encoding="utf-8") == before


def test_remove_of_a_seed_server_or_an_unknown_one(cli: Cli) -> None:
    seed = cli.workspace / "config" / "mcp_config.yaml"
    seed.parent.mkdir()
    seed.write_text("servers:\n  - name: git\n    command: mcp-server-git\n", encoding="utf-8")
    assert cli("remove", "git")[2] == (
        "tether: error: no MCP server 'git' in tether's files; it is in the seed's "
        "config/mcp_config.yaml: edit that file\n"
    )
    assert (
        cli("remove", "nothing")[2] == "tether: error: no MCP server 'nothing' in tether's files\n"
    )


def test_get_masks_secrets_unless_asked(cli: Cli) -> None:
    write(
        cli.files()["user"],
        {
            "mcpServers": {
                "api": {
                    "type": "http",
                    "url": "https://mcp.example.com/mcp",
                    "headers": {"Authorization": "Bearer ${TOKEN:-t0ken}"},
                },
                "db": {"command": "db-server", "env": {"DB_PASSWORD": "hunter2"}, "cwd": "sub"},
            }
        },
    )
    code, out, _ = cli("get", "api", "--no-connect")
    assert (code, out) == (
        0,
        f"api:\n  Scope: user ({cli.files()['user']})\n  Type: http\n"
        "  URL: https://mcp.example.com/mcp\n  Headers:\n    Authorization: ***\n\n"
        "To remove it: tether mcp remove api -s user\n",
    )
    assert "Bearer t0ken" in cli("get", "api", "--no-connect", "--show-secrets")[1]
    code, out, _ = cli("get", "db", "--no-connect", "--json")
    assert json.loads(out) == {
        "name": "db",
        "scope": "user",
        "source": str(cli.files()["user"]),
        "type": "stdio",
        "command": "db-server",
        "args": [],
        "env": {"DB_PASSWORD": "***"},
        "cwd": str(cli.workspace / "sub"),
        "approval": "enabled",
        "state": None,
        "tools": None,
        "error": None,
        "tool_names": None,
        "problems": [],
    }
    shown = json.loads(cli("get", "db", "--no-connect", "--json", "--show-secrets")[1])
    assert shown["env"] == {"DB_PASSWORD": "hunter2"}
    assert "hunter2" not in cli("list", "--no-connect", "--json")[1]


def test_get_of_a_server_that_cannot_be_used(cli: Cli) -> None:
    write(cli.files()["project"], {"mcpServers": {"bad": {"command": "x", "args": "-v"}}})
    assert cli("get", "bad") == (
        2,
        "",
        f"problem: {cli.files()['project']}: server 'bad': args must be a list of strings, "
        "not a string\ntether: error: no usable MCP server named 'bad' (configured: none)\n",
    )


def test_list_without_connecting(cli: Cli) -> None:
    write(cli.files()["project"], {"mcpServers": {"team": {"type": "http", "url": "http://x/mcp"}}})
    write(cli.files()["user"], {"mcpServers": {"mine": {"command": "my server", "args": ["-v"]}}})
    write(cli.files()["local"], {"mcpServers": {"broken": {"command": 1}}})
    code, out, _ = cli("list", "--no-connect")
    assert (code, out) == (
        1,
        f"mine: 'my server' -v [user: {cli.files()['user']}]\n"
        "team: http://x/mcp (HTTP) [project: .mcp.json] - not started: needs approval "
        "(tether asks in the REPL)\n"
        f"problem: {cli.files()['local']}: server 'broken': command must be a string, "
        "not a number\n",
    )
    code, out, _ = cli("list", "--no-connect", "--json")
    assert code == 1
    assert json.loads(out) == {
        "servers": [
            {
                "name": "mine",
                "scope": "user",
                "source": str(cli.files()["user"]),
                "type": "stdio",
                "command": "my server",
                "args": ["-v"],
                "env": {},
                "cwd": None,
                "approval": "enabled",
                "state": None,
                "tools": None,
                "error": None,
            },
            {
                "name": "team",
                "scope": "project",
                "source": str(cli.files()["project"]),
                "type": "http",
                "url": "http://x/mcp",
                "headers": {},
                "approval": "needs approval",
                "state": None,
                "tools": None,
                "error": None,
            },
        ],
        "problems": [
            f"{cli.files()['local']}: server 'broken': command must be a string, not a number"
        ],
    }


def test_list_never_starts_a_project_server_nobody_approved(cli: Cli) -> None:
    marker = cli.workspace / "started"
    starter = [sys.executable, "-c", f"open({str(marker)!r}, 'w')"]
    servers = {name: {"command": starter[0], "args": starter[1:]} for name in ("new", "rejected")}
    write(cli.files()["project"], {"mcpServers": servers})
    write(cli.workspace / ".claude" / "settings.json", {"disabledMcpjsonServers": ["rejected"]})
    code, out, _ = cli("list")
    assert code == 0
    assert [line.split(" - ")[1] for line in out.splitlines()] == [
        "not started: needs approval (tether asks in the REPL)",
        "not started: disabled for this project (disabledMcpjsonServers in .claude/settings.json)",
    ]
    assert not marker.exists()


def test_broken_settings_or_limits_are_errors(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = write(cli.workspace / ".claude" / "settings.json", {})
    settings.write_text("{", encoding="utf-8")
    assert cli("list", "--no-connect")[0] == 2
    settings.write_text("{}", encoding="utf-8")
    assert cli("add", "s", "cmd")[0] == 0
    monkeypatch.setenv("MCP_TIMEOUT", "soon")
    assert cli("list") == (
        2,
        "",
        "tether: error: environment variable MCP_TIMEOUT must be a number of milliseconds "
        "from 1 to 86,400,000, not 'soon'\n",
    )


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate"],
        ["add", "-s", "global", "s", "cmd"],
        ["add", "-t", "http", "s", "http://x", "extra"],
        ["get"],
        ["list", "-x"],
    ],
)
def test_usage_errors_exit_2(cli: Cli, argv: list[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["mcp", *argv])
    assert caught.value.code == 2
    assert "usage: tether mcp" in cli.capsys.readouterr().err


def test_list_and_get_connect_to_a_real_server(cli: Cli) -> None:
    server = str(Path(sys.executable).parent / "mcp-server-time")
    assert cli("add", "time", "--", server)[0] == 0
    assert cli("add", "-s", "user", "gone", "--", str(cli.workspace / "no-such-server"))[0] == 0
    code, out, _ = cli("list")
    lines = out.splitlines()
    assert code == 1
    user = f"user: {cli.files()['user']}"
    assert lines[0].startswith(f"gone: {cli.workspace / 'no-such-server'} [{user}] - failed: ")
    assert lines[1] == f"time: {server} [local: .tether/mcp.local.json] - connected, 2 tools"
    code, out, _ = cli("get", "time", "--json")
    body = json.loads(out)
    assert (code, body["state"], body["tools"], body["error"]) == (0, "connected", 2, None)
    assert sorted(body["tool_names"]) == ["convert_time", "get_current_time"]
    code, out, _ = cli("get", "time")
    assert "\n  Status: connected, 2 tools\n  Tools: " in out
    assert "get_current_time" in out


def _stdio(command: str) -> dict[str, Any]:
    return {"type": "stdio", "command": command, "args": [], "env": {}}


def test_a_local_server_file_is_kept_out_of_git(cli: Cli) -> None:
    """`.tether/mcp.local.json` is this machine's (it may hold keys): git ignores it as soon
    as it is written, before any session made `.tether/.gitignore`."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(cli.workspace)], check=True)
    code, _, err = cli("add", "-s", "local", "clock", "--", "clock-server")
    assert (code, err) == (0, "")
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=cli.workspace,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "mcp.local.json" not in status


def test_claude_codes_own_decisions_for_the_project_are_honoured(cli: Cli) -> None:
    # Claude Code's `/mcp disable` and its approvals, kept in the project's entry of its own
    # file: read (never written), as its servers and trust are.
    marker = cli.workspace / "started"
    starter = {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]}
    write(cli.files()["project"], {"mcpServers": {"team": starter, "shared": starter}})
    entry = {
        "disabledMcpServers": ["ccuser"],
        "disabledMcpjsonServers": ["team"],
        "enabledMcpjsonServers": ["shared"],
    }
    claude = write(
        cli.home / ".claude.json",
        {"mcpServers": {"ccuser": starter}, "projects": {str(cli.workspace): entry}},
    )
    code, out, _ = cli("list", "--no-connect")
    assert code == 0
    assert out.splitlines() == [
        f"ccuser: {sys.executable} -c {shlex.quote(starter['args'][1])} [user: ~/.claude.json]"
        " - not started: disabled for this project (disabledMcpServers in ~/.claude.json)",
        f"shared: {sys.executable} -c {shlex.quote(starter['args'][1])} [project: .mcp.json]",
        f"team: {sys.executable} -c {shlex.quote(starter['args'][1])} [project: .mcp.json]"
        " - not started: disabled for this project (disabledMcpjsonServers in ~/.claude.json)",
    ]
    assert not marker.exists()
    write(claude, {"projects": {str(cli.workspace): {"disabledMcpServers": "ccuser"}}})
    code, out, _ = cli("list", "--no-connect")
    assert (
        f'problem: {claude} (projects[{str(cli.workspace)!r}]): "disabledMcpServers" must be a '
        "list of server names"
    ) in out


def test_a_projects_settings_do_not_turn_off_the_users_servers(cli: Cli) -> None:
    # Claude Code reads `disabledMcpServers` only from the project's entry of its own file,
    # which is the user's: a repository's settings that list it turn nothing off (and are
    # told); the user's own settings and Claude Code's entry do.
    starter = {"command": "never-run"}
    write(cli.files()["user"], {"mcpServers": {"mine": starter, "ours": starter}})
    shared = write(cli.workspace / ".claude" / "settings.json", {"disabledMcpServers": ["mine"]})
    local = write(
        cli.workspace / ".claude" / "settings.local.json", {"disabledMcpServers": ["ours"]}
    )
    write(cli.home / ".claude" / "settings.json", {"disabledMcpServers": ["ours"]})
    code, out, _ = cli("list", "--no-connect")
    why = (
        ': "disabledMcpServers" is not read from a project\'s files: it would turn off servers '
        "the user configured (Claude Code keeps it in ~/.claude.json; /mcp disable keeps it "
        "for you, and disabledMcpjsonServers turns off the repository's own servers)"
    )
    user = f"user: {cli.files()['user']}"
    assert (code, out.splitlines()) == (
        1,
        [
            f"mine: never-run [{user}]",
            f"ours: never-run [{user}] - not started: disabled for this project "
            "(disabledMcpServers in ~/.claude/settings.json)",
            f"problem: {shared}{why}",
            f"problem: {local}{why}",
        ],
    )


def test_claude_codes_file_with_a_byte_order_mark_is_read(cli: Cli) -> None:
    # An editor on Windows may save ~/.claude.json with a UTF-8 mark; Claude Code reads it.
    claude = cli.home / ".claude.json"
    claude.write_bytes(
        b"\xef\xbb\xbf" + json.dumps({"mcpServers": {"theirs": {"command": "x"}}}).encode()
    )
    assert cli("list", "--no-connect") == (0, "theirs: x [user: ~/.claude.json]\n", "")
