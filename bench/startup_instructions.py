"""`tether -p hi` to its first request, in instructions: a figure the machine's load does not move.

    .venv/bin/python bench/startup_instructions.py [--sdk-mcp | --stream-json] [SRC]

Wall-clock start-up figures on a shared machine move by tens of percent with the load; the
number of instructions executed does not (within about half a percent). This runs `tether -p
hi` under valgrind's callgrind against the fake server, from compiled bytecode, and ends the
process the moment it connects to the server (its first request): the count is everything
before, both threads (the HTTP preload's trust store included). SRC, another checkout's `src`
(the main branch's, say), is measured instead of this one: compare two trees with the same
interpreter and libraries. A run takes one to two minutes. Needs valgrind (skipped, with a
note, when absent).

With `--sdk-mcp`, what is counted is instead the Agent SDK's `query()` with an in-process SDK
MCP server (`create_sdk_mcp_server`, one tool): tether started by the SDK (under callgrind, by
a launcher script), its `initialize` handshake, the server connected through the SDK and its
tools listed, to the first request. With `--stream-json`, tether is started with the flags the
Agent SDK passes (`--output-format stream-json --verbose --input-format stream-json`) and one
user message on its standard input, as the SDK's `query("hi")` sends it.
"""

from __future__ import annotations

import compileall
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from startup_costs import STREAM_JSON, USER_LINE
from tether.testing import FakeModelServer, reply, text

# Run as `python -c CHILD PORT ARGS...`: tether's command line, ended at its first connection
# to PORT (os._exit: nothing after it is counted).
CHILD = """\
import os, sys
port = int(sys.argv[1])
sys.argv = ["tether", *sys.argv[2:]]
def first_connection(event, args):
    if event == "socket.connect" and isinstance(args[1], tuple) and args[1][1] == port:
        os._exit(0)
sys.addaudithook(first_connection)
from tether.main import console_main
console_main()
"""


def instructions(
    src: Path | None = None, *, sdk_mcp: bool = False, stream_json: bool = False
) -> int | None:
    """Instructions `tether -p hi` (or, `sdk_mcp`, the Agent SDK's query with an SDK MCP
    server; `stream_json`, the SDK's flags with one user message) executes before its first
    request; None without valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    tree = src or Path(__file__).parents[1] / "src"
    compileall.compile_dir(tree / "tether", quiet=1)
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        server.expect_rejections = True
        server.script(reply(text("ok")))
        port = server.url.rsplit(":", 1)[1].split("/")[0]
        home, workspace = Path(tmp) / "home", Path(tmp) / "workspace"
        home.mkdir()
        workspace.mkdir()
        env = {
            **os.environ,
            "PYTHONPATH": str(tree),
            "TETHER_HOME": str(home),
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "bench",
        }
        env.pop("TETHER_MODEL", None)
        callgrind = (
            *(valgrind, "--tool=callgrind", f"--callgrind-out-file={tmp}/callgrind.out"),
            f"--log-file={tmp}/callgrind.log",
            *(sys.executable, "-c", CHILD, port),
        )
        if sdk_mcp:
            _sdk_query_with_mcp(Path(tmp), callgrind, workspace, env)
        else:
            subprocess.run(
                [*callgrind, *(STREAM_JSON if stream_json else ("-p", "hi"))],
                cwd=workspace,
                env=env,
                input=USER_LINE + "\n" if stream_json else None,
                capture_output=True,
                text=True,
            )
        log = (Path(tmp) / "callgrind.log").read_text(encoding="utf-8", errors="replace")
    found = re.search(r"Collected : (\d+)", log)
    if found is None:
        raise RuntimeError(f"callgrind gave no count: {log[-2000:]}")
    return int(found.group(1))


def _sdk_query_with_mcp(
    tmp: Path, callgrind: tuple[str, ...], workspace: Path, env: dict[str, str]
) -> None:
    """The Agent SDK's query() with an in-process MCP server, tether run under callgrind by a
    launcher (the SDK passes its flags on). tether ends at its first request: the SDK's error
    about that is expected."""
    import asyncio

    from claude_agent_sdk import ClaudeAgentOptions, create_sdk_mcp_server, query, tool

    @tool("echo", "Echo the text", {"text": str})
    async def echo(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": args["text"]}]}

    launcher = tmp / "tether-under-callgrind"
    launcher.write_text("#!/bin/sh\nexec " + " ".join(map(shlex.quote, callgrind)) + ' "$@"\n')
    launcher.chmod(0o755)
    options = ClaudeAgentOptions(
        cli_path=str(launcher),
        cwd=str(workspace),
        env=env,
        mcp_servers={"bench": create_sdk_mcp_server("bench", tools=[echo])},
    )

    async def run() -> None:
        try:
            async for _ in query(prompt="hi", options=options):
                pass
        except Exception:  # the CLI ended at its first request, as it was made to
            pass

    # Under callgrind tether runs some fifty times slower: the SDK's initialize waits longer.
    os.environ["CLAUDE_CODE_STREAM_CLOSE_TIMEOUT"] = "900000"
    asyncio.run(run())


def main() -> None:
    args = sys.argv[1:]
    sdk_mcp = "--sdk-mcp" in args
    stream_json = "--stream-json" in args
    trees = [a for a in args if a not in ("--sdk-mcp", "--stream-json")]
    src = Path(trees[0]).resolve() if trees else None
    count = instructions(src, sdk_mcp=sdk_mcp, stream_json=stream_json)
    if count is None:
        print("instructions to the first request: skipped (valgrind is not installed)")
        return
    what = (
        "SDK query() with an SDK MCP server"
        if sdk_mcp
        else "stream-json, one user message"
        if stream_json
        else "tether -p hi"
    )
    print(f"instructions to the first request, {what}: {count / 1e6:,.0f} M ({src or 'this tree'})")


if __name__ == "__main__":
    main()
