"""Start-up, tether and Claude Code side by side against the same fake API, in one run.

    .venv/bin/python bench/startup.py          (BENCH_RUNS=N for more runs; 9 by default)
    BENCH_BASELINE=<another checkout>/src .venv/bin/python bench/startup.py

With BENCH_BASELINE, the same `tether` command is also run from that tree's sources (on
PYTHONPATH, ahead of this checkout's install), interleaved with this tree's runs, for a
before/after in one run (the main branch's src, say); it gets a column of its own.

Figures, each the median of the runs (interleaved, so that load changes hit every figure
alike; the machine's load is printed with them: compare the ratios more than the milliseconds):
- `--version`;
- `-p hi`: spawn to the first model request reaching the fake server;
- stream-json: spawn with the flags the Agent SDK passes (`--output-format stream-json
  --verbose --input-format stream-json`), one user message on stdin, to the first request;
- the Agent SDK's `query()`: from the call (which spawns the CLI and does its `initialize`
  handshake first) to the first request;
- the REPL's prompt on screen (tether only: the "> " drawn on a pseudo-terminal);
- where tether's time to its first request goes, measured by `startup_phases.py` doing what
  `-p` does with each step timed, and the process's CPU time until its request body was ready
  (less moved by load than the wall-clock steps); and what the libraries it uses cost to
  import on their own.

For a figure the load does not move, `startup_instructions.py` counts the instructions of the
same `-p hi` up to its first request (under callgrind), for this tree or another's `src`; and
`startup_costs.py` says what share of its CPU time goes to making classes (dataclasses) and
compiling regular expressions.

tether runs as the `tether` command installed beside this interpreter, as the SDK runs it, from
compiled bytecode (compiled first here, as a wheel's install does: an editable checkout run with
PYTHONDONTWRITEBYTECODE would otherwise compile every module on every start). Claude Code is the
binary bundled in the `claude-agent-sdk` wheel (a dev dependency), pointed at the fake server
with ANTHROPIC_BASE_URL, a dummy key, and a temporary HOME and CLAUDE_CONFIG_DIR so that it
never reads or writes a real one; auto-update and non-essential traffic are off, as there is no
network here. Its column is skipped, with a note, when the wheel is absent.
"""

from __future__ import annotations

import asyncio
import compileall
import json
import os
import pty
import select
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tether
from tether.testing import FakeModelServer, RecordedRequest, Turn, reply, text

PY = sys.executable
TETHER = str(Path(PY).with_name("tether"))
RUNS = int(os.environ.get("BENCH_RUNS", "9"))
HERE = Path(__file__).parent
BASELINE = os.environ.get("BENCH_BASELINE")
"""Another tree's `src`, measured beside this one (the `baseline` column)."""
LIBRARIES = ("pydantic", "httpx2", "yaml", "rich", "prompt_toolkit", "mcp", "tree_sitter_bash")
STREAM_JSON = ("--output-format", "stream-json", "--verbose", "--input-format", "stream-json")
USER_LINE = json.dumps(
    {
        "type": "user",
        "message": {"role": "user", "content": "hi"},
        "parent_tool_use_id": None,
        "session_id": "default",
    }
)
ROWS = (
    ("version", "--version"),
    ("first_request", "-p: spawn to first request"),
    ("stream_json", "stream-json: spawn to request"),
    ("sdk_query", "SDK query(): call to request"),
    ("sdk_query_mcp", "SDK query(), an SDK MCP server"),
    ("repl_prompt", "REPL prompt on screen"),
)


def claude_code() -> Path | None:
    """The Claude Code binary bundled in the claude-agent-sdk wheel, if installed."""
    try:
        import claude_agent_sdk
    except ImportError:
        return None
    binary = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    return binary if binary.is_file() else None


def _time_command(argv: list[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=env)
    return time.perf_counter() - started


def _time_to_prompt(env: dict[str, str], cwd: str) -> float:
    """Seconds from spawning `tether` on a terminal until its prompt is drawn."""
    pid, fd = pty.fork()
    if pid == 0:  # child
        os.chdir(cwd)
        os.execve(TETHER, [TETHER], env)
    started = time.perf_counter()
    seen = b""
    try:
        while time.perf_counter() - started < 20:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    seen += os.read(fd, 65536)
                except OSError:
                    break
                if b"> " in seen.split(b"tether", 1)[-1]:
                    return time.perf_counter() - started
        raise RuntimeError(f"no prompt seen; output was {seen[-500:]!r}")
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(fd)


class _Arrivals:
    """Answers every request with "ok" and notes when each arrived (wall clock)."""

    def __init__(self, server: FakeModelServer) -> None:
        self.server = server
        self.times: list[float] = []

    def expect(self, requests: int = 8) -> None:
        """Side requests (titles, summaries) must not be refused: several are scripted."""
        self.times.clear()
        self.server.reset()
        answer: Callable[[RecordedRequest], Turn] = self._answer
        self.server.script(*[answer] * requests)

    def _answer(self, request: RecordedRequest) -> Turn:
        self.times.append(time.time())
        return reply(text("ok"))

    def first_after(self, spawned: float) -> float:
        assert self.times, "no request arrived"
        return self.times[0] - spawned


def _first_request(
    arrivals: _Arrivals, argv: list[str], env: dict[str, str], cwd: str, stdin: str | None = None
) -> tuple[float, str]:
    """Seconds from spawn to the first request, and the child's stdout."""
    arrivals.expect()
    spawned = time.time()
    done = subprocess.run(
        argv, check=True, capture_output=True, text=True, env=env, cwd=cwd, input=stdin
    )
    return arrivals.first_after(spawned), done.stdout


def first_requests(variants: dict[str, dict[str, str]], runs: int) -> dict[str, float]:
    """Median seconds from spawn to first request of `tether -p hi`, for each variant (its
    variables over a fresh home pointed at a fake server), the variants interleaved so that
    load changes hit each alike: for other benches' before/after start-up columns."""
    samples: dict[str, list[float]] = {name: [] for name in variants}
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        server.expect_rejections = True
        arrivals = _Arrivals(server)
        home = Path(tmp) / "home"
        home.mkdir()
        env = {
            **os.environ,
            "TETHER_HOME": str(home),
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "bench",
        }
        env.pop("TETHER_MODEL", None)
        argv = [TETHER, "-p", "hi"]
        for _ in range(runs):
            for name, extra in variants.items():
                samples[name].append(_first_request(arrivals, argv, {**env, **extra}, tmp)[0])
    return {name: statistics.median(values) for name, values in samples.items()}


def _stream_json_result(stdout: str) -> str:
    lines = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    results = [line for line in lines if line.get("type") == "result"]
    assert results, stdout[-2000:]
    return str(results[-1]["result"])


def _sdk_query(
    arrivals: _Arrivals, cli: str, env: dict[str, str], cwd: str, *, mcp: bool = False
) -> float:
    """Seconds from calling the Agent SDK's `query()` to the first request; `mcp`: with an
    in-process SDK MCP server (`create_sdk_mcp_server`), whose tools the first request lists."""
    from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, create_sdk_mcp_server, query
    from claude_agent_sdk import tool as sdk_tool

    @sdk_tool("echo", "Echo the text", {"text": str})
    async def echo(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": args["text"]}]}

    servers: dict[str, Any] = {"bench": create_sdk_mcp_server("bench", tools=[echo])} if mcp else {}

    async def run() -> str:
        options = ClaudeAgentOptions(cli_path=cli, cwd=cwd, env=env, mcp_servers=servers)
        results = [m async for m in query(prompt="hi", options=options)]
        return next(m.result or "" for m in results if isinstance(m, ResultMessage))

    arrivals.expect()
    called = time.time()
    said = asyncio.run(run())
    assert said == "ok", said
    return arrivals.first_after(called)


def _phases(arrivals: _Arrivals, env: dict[str, str], cwd: str) -> dict[str, float]:
    """tether's steps to its first request, in seconds each."""
    arrivals.expect()
    spawned = time.time()
    done = subprocess.run(
        [PY, str(HERE / "startup_phases.py")],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    marks, steps = found["marks"], found["steps"]
    build = marks["built"] - marks["imported"]
    figures = {
        "interpreter start": marks["started"] - spawned,
        "imports": marks["imported"] - marks["started"],
        **{f"build: {name}": seconds for name, seconds in steps.items() if "request" not in name},
        "build: the rest": build - sum(s for n, s in steps.items() if "request" not in n),
        "preparations (MCP servers)": marks["prepared"] - marks["built"],
        "first turn to its request body": marks["encoded"] - marks["prepared"],
        "HTTP client, connection, sending": arrivals.first_after(marks["encoded"]),
    }
    figures["total"] = sum(figures.values())
    # Process CPU time, both threads, until the body was ready: the figure least moved by
    # the machine's load (the steps above wait for the CPU as much as they use it).
    figures["CPU time to the request body"] = marks["cpu_at_encoded"]
    return figures


def _import_time(module: str) -> float | None:
    try:
        return _time_command([PY, "-c", f"import {module}"]) - _time_command([PY, "-c", "pass"])
    except subprocess.CalledProcessError:
        return None


def _claude_env(server: FakeModelServer, home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "bench",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "TERM": "xterm-256color",
    }


def main() -> dict[str, float]:
    compileall.compile_dir(Path(tether.__file__).parent, quiet=1)
    if BASELINE is not None:
        compileall.compile_dir(Path(BASELINE) / "tether", quiet=1)
    claude = claude_code()
    figures: dict[str, float] = {"load_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        server.expect_rejections = True  # a tool's extra request beyond the script is no failure
        arrivals = _Arrivals(server)
        tether_home = Path(tmp) / "tether-home"
        claude_home = Path(tmp) / "claude-home"
        workspace = Path(tmp) / "workspace"
        for path in (tether_home, claude_home, workspace):
            path.mkdir()
        own = {
            "TETHER_HOME": str(tether_home),
            "HOME": str(tether_home),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "bench",
        }
        os.environ.pop("TETHER_MODEL", None)
        env = {**os.environ, **own, "TERM": "xterm-256color"}
        cc_env = _claude_env(server, claude_home)
        samples: dict[str, list[float]] = {}

        def add(key: str, value: float) -> None:
            samples.setdefault(key, []).append(value)

        def compare(cli: str, run_env: dict[str, str], prefix: str) -> None:
            add(f"{prefix}version", _time_command([cli, "--version"], run_env))
            first, said = _first_request(arrivals, [cli, "-p", "hi"], run_env, tmp)
            assert said.strip() == "ok", said
            add(f"{prefix}first_request", first)
            first, said = _first_request(
                arrivals, [cli, *STREAM_JSON], run_env, tmp, stdin=USER_LINE + "\n"
            )
            assert _stream_json_result(said) == "ok", said[-2000:]
            add(f"{prefix}stream_json", first)
            sdk_env = cc_env if prefix == "cc_" else own
            if prefix == "base_":
                sdk_env = {**own, "PYTHONPATH": run_env["PYTHONPATH"]}
            add(f"{prefix}sdk_query", _sdk_query(arrivals, cli, sdk_env, tmp))
            add(f"{prefix}sdk_query_mcp", _sdk_query(arrivals, cli, sdk_env, tmp, mcp=True))

        for _ in range(RUNS):  # interleaved so load changes hit every figure alike
            add("python", _time_command([PY, "-c", "pass"]))
            add("python_isolated", _time_command([PY, "-I", "-S", "-c", "pass"]))
            compare(TETHER, env, "")
            add("repl_prompt", _time_to_prompt(env, str(workspace)))
            if BASELINE is not None:
                base_env = {**env, "PYTHONPATH": BASELINE}
                compare(TETHER, base_env, "base_")
                add("base_repl_prompt", _time_to_prompt(base_env, str(workspace)))
            for key, value in _phases(arrivals, env, str(workspace)).items():
                add(f"phase:{key}", value)
            if claude is not None:
                compare(str(claude), cc_env, "cc_")
        figures.update({key: statistics.median(values) for key, values in samples.items()})
        for module in LIBRARIES:
            times = [t for t in (_import_time(module) for _ in range(3)) if t is not None]
            if times:
                figures[f"import:{module}"] = statistics.median(times)
    figures["load_after"] = os.getloadavg()[0]
    return figures


def report(figures: dict[str, float]) -> None:
    print(
        f"start-up (median of {RUNS} runs; load average {figures['load_before']:.1f} before, "
        f"{figures['load_after']:.1f} after; bare python {figures['python'] * 1000:.0f} ms, "
        f"python -I -S {figures['python_isolated'] * 1000:.0f} ms)"
    )
    based = "base_first_request" in figures
    header = f"{'baseline':>10} " if based else ""
    print(f"  {'':32} {header}{'tether':>9} {'Claude Code':>12} {'ratio':>7}")
    for key, label in ROWS:
        ours = figures[key]
        theirs = figures.get(f"cc_{key}")
        base = figures.get(f"base_{key}")
        before = (f"{base * 1000:8.0f}ms " if base is not None else f"{'-':>10} ") if based else ""
        if theirs is None:
            print(f"  {label:32} {before}{ours * 1000:7.0f}ms {'-':>12}")
        else:
            ratio = ours / theirs
            print(
                f"  {label:32} {before}{ours * 1000:7.0f}ms {theirs * 1000:10.0f}ms {ratio:6.2f}x"
            )
    if based:
        print(f"  (baseline: the same command run from {BASELINE})")
    if "cc_first_request" not in figures:
        print(
            "  (Claude Code column skipped: claude-agent-sdk, which bundles it, is not installed)"
        )
    print("  tether's way to its first request (startup_phases.py, what -p does, step by step):")
    for key, value in figures.items():
        if key.startswith("phase:"):
            print(f"    {key.removeprefix('phase:'):40} {value * 1000:6.1f} ms")
    print("  import cost on its own (over bare python):")
    for module in LIBRARIES:
        value = figures.get(f"import:{module}")
        shown = f"{value * 1000:6.0f} ms" if value is not None else "  not installed"
        print(f"    import {module:33} {shown}")


if __name__ == "__main__":
    report(main())
