"""What OpenTelemetry export costs: per tool call with it on, and start-up with it off.

    .venv/bin/python bench/otel_bench.py
    BENCH_BASELINE=<another checkout>/src .venv/bin/python bench/otel_bench.py

Per tool call: the events one tool call makes a session emit (`events_bench.tool_call_events`),
handed to the hub as the session hands them, 2,000 times over, for the event log alone and for
the log with the OpenTelemetry sink (metrics and traces, OTLP http/protobuf to a collector in a
process of its own answering 200). Two figures each: on the loop (what `emit` pays), and the
process's CPU time, all threads, once every span and metric point was exported.

Start-up (with BENCH_BASELINE): `tether -p hi`, spawn to first request, telemetry off, this
tree and the baseline tree interleaved; and this tree with telemetry on. Medians and ratios.
And what importing the SDK and its exporter costs on their own (`-X importtime`, once).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).parent))
import events_bench
from tether.observe.hub import EventContext, EventHub
from tether.observe.log_file import AppendFile
from tether.observe.otel_config import read_otel_config
from tether.observe.otel_facts import SessionFacts
from tether.observe.otel_sink import OtelSink, open_otel_sink
from tether.observe.records import LOG_NAME, log_dir

CALLS = events_bench.CALLS
RUNS = events_bench.RUNS
BASELINE = os.environ.get("BENCH_BASELINE")


def _telemetry_env(url: str) -> dict[str, str]:
    return {
        "TETHER_ENABLE_TELEMETRY": "1",
        "OTEL_METRICS_EXPORTER": "otlp",
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_ENDPOINT": url,
    }


def _per_call(
    hub: EventHub, sink: OtelSink | None, events: list[list[BaseModel]]
) -> tuple[float, float]:
    context = EventContext("bench-session")
    if sink is not None:
        sink.session_opened(SessionFacts("bench-session", "main", None, "claude", "anthropic"))
    observe = hub.observer(context)
    cpu = time.process_time()
    on_loop = 0.0
    for call in events:
        started = time.perf_counter()
        for event in call:
            observe(event)
        on_loop += time.perf_counter() - started
    assert hub.flush(120)
    if sink is not None:
        report = sink.close(time.monotonic() + 120)  # everything exported, within the clock
        assert report is None, report
    hub.close()
    return on_loop / len(events), (time.process_time() - cpu) / len(events)


def per_tool_call() -> dict[str, tuple[float, float]]:
    events = [events_bench.tool_call_events(n) for n in range(CALLS)]
    server = subprocess.Popen(
        [sys.executable, "-c", events_bench.SERVER], stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    url = f"http://127.0.0.1:{server.stdout.readline().strip()}"
    samples: dict[str, list[tuple[float, float]]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for run in range(RUNS):
                home = Path(tmp) / f"home-{run}"
                plain = EventHub(AppendFile(log_dir(home) / LOG_NAME))
                samples.setdefault("event log", []).append(_per_call(plain, None, events))
                sink = open_otel_sink(read_otel_config(_telemetry_env(url)))
                hub = EventHub(AppendFile(log_dir(home / "o") / LOG_NAME), sinks=[sink])
                samples.setdefault("log + OpenTelemetry", []).append(_per_call(hub, sink, events))
    finally:
        server.kill()  # the collector this bench started
        server.wait()
        server.stdout.close()
    return {
        name: (statistics.median(s[0] for s in v), statistics.median(s[1] for s in v))
        for name, v in samples.items()
    }


def startup() -> dict[str, float] | None:
    """Medians of spawn-to-first-request: off (this tree), off (baseline), on (this tree)."""
    if BASELINE is None:
        return None
    import startup as startup_bench

    variants = {
        "off": {},
        "baseline": {"PYTHONPATH": BASELINE},
        "on": _telemetry_env("http://127.0.0.1:9"),  # nothing listens: the exit is bounded
    }
    return startup_bench.first_requests(variants, RUNS * 2)


def sdk_import_ms() -> float:
    """The SDK, its OTLP/HTTP exporters and tether's sink, imported on their own (ms)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import tether.observe.otel_sink"],
        capture_output=True,
        text=True,
        check=True,
    )
    self_us = 0
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "self" not in line:
            self_us += int(line.split(":", 1)[1].split("|")[0])
    baseline = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import tether.observe.records"],
        capture_output=True,
        text=True,
        check=True,
    )
    for line in baseline.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "self" not in line:
            self_us -= int(line.split(":", 1)[1].split("|")[0])
    return self_us / 1000


def main() -> dict[str, object]:
    return {
        "per_tool_call": per_tool_call(),
        "startup": startup(),
        "sdk_import_ms": sdk_import_ms(),
        "load": os.getloadavg()[0],
    }


def report(figures: dict[str, object]) -> None:
    print(f"OpenTelemetry, per tool call ({CALLS} calls x {RUNS} runs, medians)")
    print(f"  {'':<22} {'on the loop':>12} {'all threads (CPU)':>18}")
    per_call = figures["per_tool_call"]
    assert isinstance(per_call, dict)
    for name, (loop_s, cpu_s) in per_call.items():
        print(f"  {name:<22} {loop_s * 1e6:>9.1f} us {cpu_s * 1e6:>15.1f} us")
    print(f"  importing the SDK and its exporters: {figures['sdk_import_ms']:.0f} ms")
    started = figures["startup"]
    if started is None:
        print("  start-up: set BENCH_BASELINE to another tree's src for the before/after")
    else:
        assert isinstance(started, dict)
        off, base, on = started["off"], started["baseline"], started["on"]
        print(
            f"  start-up, -p hi to first request: off {off * 1000:.0f} ms, baseline "
            f"{base * 1000:.0f} ms (ratio {off / base:.2f}); on {on * 1000:.0f} ms "
            f"(ratio to off {on / off:.2f})"
        )
    print(f"  (load average {figures['load']:.1f})")


if __name__ == "__main__":
    report(main())
