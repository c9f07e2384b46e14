"""Start-up: `--version`, `--help`, the REPL's prompt on screen, and `-p` to its first request.

Each figure is the median of several runs, measured side by side in one run with bare Python as
the yardstick (shared machines are noisy: compare ratios, not absolute times).
"""

from __future__ import annotations

import os
import pty
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, reply, text

PY = sys.executable
RUNS = int(os.environ.get("BENCH_RUNS", "9"))


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


def _time_to_first_request(server: FakeModelServer, env: dict[str, str], cwd: str) -> float:
    arrivals: list[float] = []

    def answer(request: RecordedRequest) -> object:
        arrivals.append(time.perf_counter())
        return reply(text("ok"))

    server.script(answer)  # type: ignore[arg-type]
    started = time.perf_counter()
    subprocess.run(
        [PY, "-m", "tether", "-p", "hi"], check=True, capture_output=True, env=env, cwd=cwd
    )
    return arrivals[-1] - started


def _import_time(module: str) -> float:
    return _time_command([PY, "-c", f"import {module}"]) - _time_command([PY, "-c", "pass"])


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        env = {
            **os.environ,
            "TETHER_HOME": str(Path(tmp) / "home"),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "bench",
            "TERM": "xterm-256color",
        }
        env.pop("TETHER_MODEL", None)
        samples: dict[str, list[float]] = {
            k: [] for k in ("python", "version", "help", "repl_prompt", "first_request")
        }
        for _ in range(RUNS):  # interleaved so load changes hit every figure alike
            samples["python"].append(_time_command([PY, "-c", "pass"]))
            samples["version"].append(_time_command([PY, "-m", "tether", "--version"]))
            samples["help"].append(_time_command([PY, "-m", "tether", "--help"]))
            samples["repl_prompt"].append(_time_to_prompt(env, tmp))
            samples["first_request"].append(_time_to_first_request(server, env, tmp))
        figures = {k: statistics.median(v) for k, v in samples.items()}
        for module in ("pydantic", "rich", "prompt_toolkit", "anthropic", "openai"):
            figures[f"import_{module}"] = statistics.median(_import_time(module) for _ in range(3))
    return figures


def report(figures: dict[str, float]) -> None:
    base = figures["python"]
    print(f"start-up (median of {RUNS} runs; bare python = {base * 1000:.0f} ms)")
    for key, label, target in (
        ("version", "tether --version", 0.1),
        ("help", "tether --help", 0.1),
        ("repl_prompt", "REPL prompt on screen", 0.3),
        ("first_request", "-p to first model request", 1.5),
    ):
        value = figures[key]
        print(
            f"  {label:28} {value * 1000:7.0f} ms  ({value / base:4.1f}x python; "
            f"target {target * 1000:.0f} ms: {'ok' if value <= target else 'MISSED'})"
        )
    print("  where the time goes (import cost over bare python):")
    for module in ("pydantic", "rich", "prompt_toolkit", "anthropic", "openai"):
        print(f"    import {module:16} {figures[f'import_{module}'] * 1000:7.0f} ms")


if __name__ == "__main__":
    report(main())
