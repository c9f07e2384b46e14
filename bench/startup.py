"""Start-up, tether and Claude Code side by side against the same fake API, in one run.

    .venv/bin/python bench/startup.py          (BENCH_RUNS=N for more runs; 9 by default)

Figures, each the median of the runs (interleaved, so that load changes hit every figure
alike; this machine is shared, so compare the ratios more than the milliseconds):
- `--version`;
- spawn to first model request for `-p hi` (the request reaching the fake server);
- the REPL's prompt on screen (tether: the "> " drawn on a pseudo-terminal);
- where tether's time to the first request goes: interpreter start, imports, settings, the
  session build, its preparations, and the first turn up to the request (HTTP client, system
  prompt, encoding), measured by `startup_phases.py` doing the same steps;
- what the libraries tether could import would cost on their own.

Claude Code is the binary bundled in the `claude-agent-sdk` wheel (a dev dependency), pointed at
the fake server with ANTHROPIC_BASE_URL, a dummy key, and a temporary HOME and CLAUDE_CONFIG_DIR
so that it never reads or writes a real one; auto-update and non-essential traffic are off, as
there is no network here. Its column is skipped, with a note, when the wheel is absent.
"""

from __future__ import annotations

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

from tether.testing import FakeModelServer, RecordedRequest, Turn, reply, text

PY = sys.executable
RUNS = int(os.environ.get("BENCH_RUNS", "9"))
HERE = Path(__file__).parent
LIBRARIES = ("pydantic", "httpx2", "rich", "prompt_toolkit", "mcp", "anthropic", "openai")
PHASES = (
    ("python", "interpreter start"),
    ("imports", "imports (tether.cli.headless)"),
    ("settings", "settings files"),
    ("build", "session build (tools, rules, sandbox)"),
    ("prepare", "preparations (MCP servers)"),
    ("request", "first turn to its request"),
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
        os.execve(PY, [PY, "-m", "tether"], env)
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

    def expect(self, requests: int) -> None:
        self.times.clear()
        self.server.reset()
        answer: Callable[[RecordedRequest], Turn] = self._answer
        self.server.script(*[answer] * requests)

    def _answer(self, request: RecordedRequest) -> Turn:
        self.times.append(time.time())
        return reply(text("ok"))


def _first_request(
    arrivals: _Arrivals, argv: list[str], env: dict[str, str], cwd: str
) -> tuple[float, str]:
    """Seconds from spawn to the first request, and the child's stdout."""
    arrivals.expect(8)  # side requests (titles, summaries) must not be refused
    spawned = time.time()
    done = subprocess.run(argv, check=True, capture_output=True, text=True, env=env, cwd=cwd)
    return arrivals.times[0] - spawned, done.stdout


def _phases(arrivals: _Arrivals, env: dict[str, str], cwd: str) -> dict[str, float]:
    """tether's steps to its first request, in seconds each."""
    arrivals.expect(8)
    spawned = time.time()
    done = subprocess.run(
        [PY, str(HERE / "startup_phases.py")],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
    )
    marks = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        "python": marks["started"] - spawned,
        "imports": marks["imported"] - marks["started"],
        "settings": marks["settings"] - marks["imported"],
        "build": marks["built"] - marks["settings"],
        "prepare": marks["prepared"] - marks["built"],
        "request": arrivals.times[0] - marks["prepared"],
    }


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
    claude = claude_code()
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        server.expect_rejections = True  # a tool's extra request beyond the script is no failure
        arrivals = _Arrivals(server)
        tether_home = Path(tmp) / "tether-home"
        claude_home = Path(tmp) / "claude-home"
        workspace = Path(tmp) / "workspace"
        for path in (tether_home, claude_home, workspace):
            path.mkdir()
        env = {
            **os.environ,
            "TETHER_HOME": str(tether_home),
            "HOME": str(tether_home),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "bench",
            "TERM": "xterm-256color",
        }
        env.pop("TETHER_MODEL", None)
        cc_env = _claude_env(server, claude_home)
        samples: dict[str, list[float]] = {}

        def add(key: str, value: float) -> None:
            samples.setdefault(key, []).append(value)

        for _ in range(RUNS):  # interleaved so load changes hit every figure alike
            add("python", _time_command([PY, "-c", "pass"]))
            add("version", _time_command([PY, "-m", "tether", "--version"]))
            add("repl_prompt", _time_to_prompt(env, str(workspace)))
            first, said = _first_request(arrivals, [PY, "-m", "tether", "-p", "hi"], env, tmp)
            assert said.strip() == "ok", said
            add("first_request", first)
            for key, value in _phases(arrivals, env, str(workspace)).items():
                add(f"phase_{key}", value)
            if claude is not None:
                add("cc_version", _time_command([str(claude), "--version"], cc_env))
                first, said = _first_request(arrivals, [str(claude), "-p", "hi"], cc_env, tmp)
                assert said.strip() == "ok", said
                add("cc_first_request", first)
        figures = {key: statistics.median(values) for key, values in samples.items()}
        for module in LIBRARIES:
            times = [t for t in (_import_time(module) for _ in range(3)) if t is not None]
            if times:
                figures[f"import_{module}"] = statistics.median(times)
    return figures


def report(figures: dict[str, float]) -> None:
    base = figures["python"]
    has_claude = "cc_first_request" in figures
    print(f"start-up (median of {RUNS} runs; bare python = {base * 1000:.0f} ms)")
    print(f"  {'':30} {'tether':>9} {'Claude Code':>12} {'ratio':>7}")
    for key, label in (
        ("version", "--version"),
        ("first_request", "-p: spawn to first request"),
        ("repl_prompt", "REPL prompt on screen"),
    ):
        ours = figures[key]
        theirs = figures.get(f"cc_{key}")
        if theirs is None:
            print(f"  {label:30} {ours * 1000:7.0f}ms {'-':>12}")
        else:
            ratio = ours / theirs
            print(f"  {label:30} {ours * 1000:7.0f}ms {theirs * 1000:10.0f}ms {ratio:6.2f}x")
    if not has_claude:
        print(
            "  (Claude Code column skipped: claude-agent-sdk, which bundles it, is not installed)"
        )
    print("  tether's way to its first request (startup_phases.py, same steps):")
    for key, label in PHASES:
        print(f"    {label:38} {figures[f'phase_{key}'] * 1000:6.0f} ms")
    total = sum(figures[f"phase_{key}"] for key, _ in PHASES)
    print(f"    {'total':38} {total * 1000:6.0f} ms")
    print("  import cost on its own (over bare python; anthropic and openai are no longer used):")
    for module in LIBRARIES:
        value = figures.get(f"import_{module}")
        shown = f"{value * 1000:6.0f} ms" if value is not None else "  not installed"
        print(f"    import {module:31} {shown}")


if __name__ == "__main__":
    report(main())
