"""`-p` with `MCP_CONNECTION_NONBLOCKING=true` and a server that never answers its handshake,
against `-p` with no server: seconds to the first request and to the process's exit (median of
`BENCH_RUNS`, default 5, run alternately). Neither should wait on the hung server. Run:
`.venv/bin/python bench/mcp_hung_bench.py`."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tether.testing import FakeModelServer, reply, text

HUNG = "import time\ntime.sleep(1000)\n"  # reads nothing, answers nothing


def _run(workspace: Path, home: Path, config: str | None) -> tuple[float, float]:
    server = FakeModelServer().start()
    server.script(reply(text("first")))
    env = {
        **os.environ,
        "HOME": str(home),
        "TETHER_HOME": str(home / ".tether"),
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "sk-ant-bench",
        "MCP_TIMEOUT": "15000",
        "MCP_CONNECTION_NONBLOCKING": "true",
    }
    env.pop("OPENAI_API_KEY", None)
    args = [sys.executable, "-m", "tether", "-p", "hi", "--trust-workspace"]
    args += ["--strict-mcp-config", *(["--mcp-config", config] if config else [])]
    started = time.perf_counter()
    proc = subprocess.Popen(args, cwd=workspace, env=env, stdout=subprocess.PIPE, text=True)
    while not server.requests and proc.poll() is None:
        time.sleep(0.005)
    first = time.perf_counter() - started
    proc.communicate(timeout=120)
    ended = time.perf_counter() - started
    server.stop()
    return first, ended


def main() -> dict[str, tuple[float, float]]:
    runs = int(os.environ.get("BENCH_RUNS", "5"))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "ws").mkdir()
        (root / "hung.py").write_text(HUNG)
        config = {
            "mcpServers": {"hung": {"command": sys.executable, "args": [str(root / "hung.py")]}}
        }
        cases = {"no server": None, "a hung server": json.dumps(config)}
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(runs):
            for name, given in cases.items():
                times[name].append(_run(root / "ws", root, given))
    return {
        name: (statistics.median(t[0] for t in got), statistics.median(t[1] for t in got))
        for name, got in times.items()
    }


def report(figures: dict[str, tuple[float, float]]) -> None:
    print("-p, MCP_CONNECTION_NONBLOCKING=true: first request and exit (s, median)")
    for name, (first, ended) in figures.items():
        print(f"  {name:15} first request {first:5.2f}   exit {ended:5.2f}")
    print(f"  (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    report(main())
