"""What `tether -p` and the Agent SDK's stream-json front end load before their first request:
only what that request needs. The costly parts that come later (the permission engine at the
first tool call, the terminal UI, MCP with the first server) are not imported, and neither are
the vendor SDKs at all. Checked at the moment the real command first connects to the model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from claude_agent_sdk import ResultMessage, create_sdk_mcp_server, query, tool

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use

LATER = (
    "tether.permissions.engine",
    "tether.permissions.shell",
    "rich",
    "prompt_toolkit",
    "mcp",
    "anthropic",
    "openai",
    "yaml",  # tether's own skills' front matter is known ahead
)


def test_headless_builds_its_session_without_what_comes_later(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    program = (
        "import sys\n"
        "from pathlib import Path\n"
        "import tether.cli.headless\n"
        "from tether.cli.setup import RunOptions, build_session\n"
        f"env = {{'ANTHROPIC_API_KEY': 'k', 'TETHER_HOME': {str(tmp_path / 'home')!r}, "
        f"'HOME': {str(tmp_path)!r}, 'PATH': ''}}\n"
        f"build_session(RunOptions(cwd=Path({str(workspace)!r}), env=env))\n"
        f"print(sorted(m for m in {LATER!r} if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert result.stdout == "[]\n"


NOT_BEFORE_THE_PROMPT = (
    "tether.protocol",
    "tether.core.lifecycle",
    "tether.tools.context",
    "tether.cli.toolview",
    "tether.hooks",
    "pydantic",
)
"""What the REPL's own modules do not load: the session's layers (the protocol, the tools'
records, the hooks) are imported by the worker thread that builds the session once the first
prompt is on screen (`tether.cli.startup`), so that drawing it does not wait for them."""


def test_the_repl_draws_its_prompt_before_the_sessions_layers_load() -> None:
    program = (
        "import sys\n"
        "import tether.cli.app, tether.cli.repl, tether.cli.startup\n"
        f"print(sorted(m for m in {NOT_BEFORE_THE_PROMPT!r} if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert result.stdout == "[]\n"


def test_the_permission_engine_loads_on_first_use() -> None:
    program = (
        "import sys\n"
        "import tether.permissions as policy\n"
        "before = 'tether.permissions.engine' in sys.modules\n"
        "decide = policy.decide\n"
        "print(before, 'tether.permissions.engine' in sys.modules, decide.__module__)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert result.stdout == "False True tether.permissions.engine\n"


# Run as `python -c PROGRAM PORT ARGS...`: tether's command line, noting on stderr every module
# loaded when the process first connects to the model server at PORT (its first request).
AT_FIRST_REQUEST = """\
import json, sys
port = int(sys.argv[1])
sys.argv = ["tether", *sys.argv[2:]]
noted = []
entry_points = []
def note(event, args):
    if event == "open" and not noted and str(args[0]).endswith("entry_points.txt"):
        entry_points.append(str(args[0]))
    if event == "socket.connect" and not noted and isinstance(args[1], tuple):
        if args[1][1] == port:
            noted.append(True)
            sys.stderr.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n")
            built = sorted(
                f"{name}.{key}" for name, module in list(sys.modules.items())
                if name.startswith("tether.tools.builtin")
                for key, value in vars(module).items()
                if getattr(value, "__pydantic_complete__", False) and value.__module__ == name
            )
            sys.stderr.write("BUILT " + json.dumps(built) + "\\n")
            sys.stderr.write("ENTRY_POINTS " + json.dumps(entry_points) + "\\n")
sys.addaudithook(note)
from tether.main import console_main
console_main()
"""

NOT_BEFORE_THE_FIRST_REQUEST = (
    *LATER,
    "html",  # its entities table: only for an HTML error page's title
    "tree_sitter",
    "tree_sitter_bash",
    "tether.permissions.seed_yaml",
    "tether.mcp.manager",
    "tether.mcp.catalog",
    "tether.cli.mcp_tools",
    "tether.tools.tool_search",
    "tether.core.resume",
    "tether.core.replay",
    "tether.store.reader",
    "tether.store.branch",
    "tether.teams.board",
    "tether.teams.tools",
    "tether.store.task_store",
    "tether.mcp.client_side",
    "tether.sandbox.seccomp",
    "tether.sandbox.environment",
    "tether.teams.records",
    "tether.hooks.runner",
    "tether.hooks.http_hook",
    "tether.hooks.command",
    "tether.hooks.judged",
    "tether.cli.hook_judges",
    "tether.plugins",
    "tether.tools.web_searcher",
    "tether.permissions.tool_names",
    "tether.permissions.defaults",
    "tether.protocol.team_events",
    "pydantic",
    "pydantic_core",
    "tether.protocol.checking",
    "tether.tools.any_arguments",
    "tether.agents.task_input",
    "tether.skills.skill_input",
    "importlib.metadata",  # httpx2's and httpcore2's versions are read from their METADATA
)
"""What no headless run loads before its first request: pydantic (the protocol's records are
its own classes; input models and validators are imported at a tool's first call, or where
data from outside is checked), the permission engine and the shell
parser (first tool call), the terminal UI, MCP and its tools (first server), tool search (only
when MCP tools are deferred), reading a session back (only to resume one), the YAML parser
(only for a skill or rule file of the user's), a team's board and task store (only for a
session in a team), the vendor SDKs (never); the client's MCP channel (an SDK program's own
servers), the sandbox's seccomp filter and environment scrubbing (first command), the team's
records (resuming), the hooks' runner and the kinds of hook it runs, model-judged ones
included (a hook configured), the plugins' reader (a plugin named), WebSearch's records (its
first search), the tools' names and the permission defaults' tables (a tool named on the command
line, a path rule to check), a team's events' models (a session in a team, a webhook naming
kinds)."""

SDK_FRONT_END = (
    "tether.cli.stream_json",
    "tether.cli.stream_input",
    "tether.cli.control",
    "tether.cli.sdk_lines",
    "tether.cli.sdk_facts",
    "tether.cli.sdk_stream",
    "tether.cli.sdk_permissions",
    "tether.cli.sdk_requests",
    "tether.cli.tool_results",
)
"""The Agent SDK's front end and Claude Code's line shapes: not for `-p` with text output."""


def _modules_at_first_request(
    fake_model: FakeModelServer, workspace: Path, home: Path, *argv: str, stdin: str = ""
) -> set[str]:
    fake_model.script(reply(text("ok")))
    port = fake_model.url.rsplit(":", 1)[1].split("/")[0]
    done = subprocess.run(
        [sys.executable, "-c", AT_FIRST_REQUEST, port, *argv],
        cwd=workspace,
        env={**os.environ, "HOME": str(home)},
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )
    noted = [line for line in done.stderr.splitlines() if line.startswith("MODULES ")]
    assert len(noted) == 1, done.stderr
    modules = set(json.loads(noted[0].removeprefix("MODULES ")))
    assert "httpx2" in modules  # noted as the request went out
    built = [line for line in done.stderr.splitlines() if line.startswith("BUILT ")]
    # The tools' schemas are stored: their validators wait for the first call of each tool.
    assert built == ["BUILT []"], built
    # So are the built-in tools' descriptions: each module waits for its tool's first call.
    assert sorted(m for m in modules if m.startswith("tether.tools.builtin.")) == []
    # Pydantic was not let look for plugins in every installed package's entry points.
    read = [line for line in done.stderr.splitlines() if line.startswith("ENTRY_POINTS ")]
    assert read == ["ENTRY_POINTS []"], read
    return modules


def test_print_mode_loads_only_what_its_first_request_needs(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    modules = _modules_at_first_request(model_env, workspace, home, "-p", "hi")
    assert sorted(modules & {*NOT_BEFORE_THE_FIRST_REQUEST, *SDK_FRONT_END}) == []


def test_the_agent_sdks_front_end_loads_only_what_its_first_request_needs(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    line = {"type": "user", "message": {"role": "user", "content": "hi"}, "session_id": ""}
    modules = _modules_at_first_request(
        model_env,
        workspace,
        home,
        *("--output-format", "stream-json", "--verbose", "--input-format", "stream-json"),
        stdin=json.dumps(line) + "\n",
    )
    assert sorted(modules & set(NOT_BEFORE_THE_FIRST_REQUEST)) == []
    assert "tether.cli.stream_json" in modules


def _imported(argv: list[str]) -> set[str]:
    """The modules a command imports, as Python's import profiler lists them."""
    done = subprocess.run(
        argv,
        env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    return {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line and "imported package" not in line
    }


def test_version_costs_what_the_interpreter_does() -> None:
    # The installed command (what the Agent SDK starts) imports tether's entry point and
    # nothing else that bare Python does not: no `re`, as a generated console script would.
    # `resource` (built in, a tenth of a millisecond) tells the package whether a file size
    # limit would cut its bytecode short (tether/__init__.py); every other run loads it anyway.
    command = str(Path(sys.executable).with_name("tether"))
    extra = _imported([command, "--version"]) - _imported([sys.executable, "-c", "pass"])
    assert sorted(extra) == ["resource", "tether", "tether.main"]


# Run as the Agent SDK's CLI: tether, noting on stderr every module it loaded by the time it
# exits (what it needed for its whole run).
AT_EXIT = """\
import atexit, json, sys
sys.argv[0] = "tether"
atexit.register(lambda: sys.stderr.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
from tether.main import console_main
console_main()
"""

NOT_FOR_THE_CLIENTS_OWN_SERVERS = ("mcp", "mcp_types", "rich", "prompt_toolkit")
"""The MCP SDK is for the servers tether starts or reaches itself; an SDK's in-process server
is spoken to by tether's own client. The terminal UI is never loaded headless."""


async def test_an_sdk_mcp_server_is_served_without_the_mcp_library(
    sdk: SdkRun, model_env: FakeModelServer, tmp_path: Path
) -> None:
    calls: list[dict[str, object]] = []

    @tool("add", "Add two numbers", {"a": int, "b": int})
    async def add(args: dict[str, object]) -> dict[str, object]:
        calls.append(args)
        return {"content": [{"type": "text", "text": "5"}]}

    launcher = tmp_path / "tether-noting-modules"
    launcher.write_text(f"#!{sys.executable}\n{AT_EXIT}")
    launcher.chmod(0o755)
    model_env.script(reply(tool_use("mcp__calc__add", a=2, b=3)), reply(text("5")))
    options = replace(
        sdk.options(
            mcp_servers={"calc": create_sdk_mcp_server("calc", tools=[add])},
            allowed_tools=["mcp__calc__add"],
        ),
        cli_path=str(launcher),
    )
    messages = [m async for m in query(prompt="add 2 and 3", options=options)]
    assert calls == [{"a": 2, "b": 3}]  # the in-process server's tool ran, over the channel
    assert model_env.requests[1].tool_results() == ["5"]
    assert isinstance(messages[-1], ResultMessage)
    assert messages[-1].result == "5"
    noted = [line for line in sdk.stderr if line.startswith("MODULES ")]
    assert len(noted) == 1, sdk.stderr
    modules = set(json.loads(noted[0].removeprefix("MODULES ")))
    assert "tether.mcp.client_channel" in modules
    assert sorted(modules & set(NOT_FOR_THE_CLIENTS_OWN_SERVERS)) == []


def test_print_mode_with_no_servers_loads_neither_mcp_nor_the_terminal_ui(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    # (A whole -p run, to its end: the first request is checked above.)
    model_env.script(reply(text("ok")))
    done = subprocess.run(
        [sys.executable, "-c", AT_EXIT, "-p", "hi"],
        cwd=workspace,
        env={**os.environ, "HOME": str(home)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "ok"
    [noted] = [line for line in done.stderr.splitlines() if line.startswith("MODULES ")]
    modules = set(json.loads(noted.removeprefix("MODULES ")))
    assert sorted(modules & set(NOT_FOR_THE_CLIENTS_OWN_SERVERS)) == []
