"""What the event log and webhook sinks cost: per tool call, and at start-up. One command:

    .venv/bin/python bench/events_bench.py
    BENCH_BASELINE=<another checkout>/src .venv/bin/python bench/events_bench.py

Per tool call: the events one tool call makes a session emit (the reply streamed with its
tool_use, the call started and finished with a 2 KB result, the message of results), handed
to the log as the session hands them, 2,000 times over. Two figures each:
- on the loop: what `emit` pays (the observer's call: a timestamp and a queue put), as the
  wall clock and as the loop thread's CPU, mean and p99 side by side (on a loaded machine the
  wall clock's p99 is the wait for a CPU and for the interpreter, not the work);
- all threads: the process's CPU time per tool call, the background thread's writing (and
  posting, for the webhook) included, once everything queued was written and delivered.
For: no observer; the log; the log and one webhook (every kind, a local server answering 200).

Start-up (with BENCH_BASELINE): `tether -p hi`, spawn to first request, this tree and the
baseline tree interleaved; medians and their ratio (1.00 = unchanged).
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

from tether.observe.hub import EventContext, EventHub
from tether.observe.log_file import AppendFile
from tether.observe.records import LOG_NAME, log_dir, parse_record
from tether.observe.webhook_settings import WebhookConfig
from tether.observe.webhooks import WebhookSink
from tether.protocol import (
    BlockCompleted,
    Message,
    MessageCompleted,
    ResponseStarted,
    TextBlock,
    ToolFinished,
    ToolInputDelta,
    ToolResultBlock,
    ToolStarted,
    ToolUseBlock,
    Usage,
)

ONE_KIND = frozenset({"tool_finished"})
CALLS = int(os.environ.get("BENCH_CALLS", "2000"))
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
BASELINE = os.environ.get("BENCH_BASELINE")


def tool_call_events(n: int) -> list[BaseModel]:
    call_id = f"toolu_{n:06d}"
    use = ToolUseBlock(id=call_id, name="Read", input={"file_path": "src/app.py"})
    result = "x" * 2048
    return [
        ResponseStarted(message_id=f"msg_{n}", model="claude-sonnet-4-5", ttft_ms=300),
        *[ToolInputDelta(call_id=call_id, name="Read", partial_json='{"file') for _ in range(3)],
        BlockCompleted(block=use, model="claude-sonnet-4-5"),
        MessageCompleted(
            message=Message(role="assistant", content=[TextBlock(text="Reading."), use]),
            usage=Usage(input_tokens=1200, output_tokens=40),
            model="claude-sonnet-4-5",
        ),
        ToolStarted(call_id=call_id, name="Read", input={"file_path": "src/app.py"}),
        ToolFinished(call_id=call_id, name="Read", content=result, is_error=False, duration_ms=3),
        MessageCompleted(
            message=Message(
                role="user", content=[ToolResultBlock(tool_use_id=call_id, content=result)]
            )
        ),
    ]


SERVER = """
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Ok(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real collector

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Ok)
print(server.server_address[1], flush=True)
server.serve_forever()
"""
"""A collector in a process of its own: its CPU time is not the bench's."""


Figures = tuple[float, float, float, float, float]
"""Per tool call, in seconds: on the loop the wall clock's mean and p99, the loop thread's
CPU mean and p99; the CPU of all threads."""


def _per_call(hub: EventHub | None, events: list[list[BaseModel]]) -> Figures:
    context = EventContext("bench-session")
    observe = hub.observer(context) if hub is not None else (lambda _event: None)
    cpu = time.process_time()
    walls: list[float] = []
    cpus: list[float] = []
    for call in events:
        started, thread = time.perf_counter(), time.thread_time()
        for event in call:
            observe(event)
        cpus.append(time.thread_time() - thread)
        walls.append(time.perf_counter() - started)
    if hub is not None:
        assert hub.flush(120)
        assert hub.log is not None
        # The records written, not the events: a call's streamed input pieces are one record.
        kinds = [parse_record(line).kind for line in hub.log.path.read_text().splitlines()]
        for sink in hub.sinks:
            assert isinstance(sink, WebhookSink)
            sent = sum(sink.config.wants(kind) for kind in kinds)
            while sink.tally.delivered + sink.tally.dropped < sent:  # before the clock stops
                time.sleep(0.001)
            assert sink.tally.dropped == 0, sink.report()
        hub.close()
    return (
        statistics.fmean(walls),
        statistics.quantiles(walls, n=100)[98],
        statistics.fmean(cpus),
        statistics.quantiles(cpus, n=100)[98],
        (time.process_time() - cpu) / len(events),
    )


def per_tool_call() -> dict[str, Figures]:
    events = [tool_call_events(n) for n in range(CALLS)]
    server = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    url = f"http://127.0.0.1:{server.stdout.readline().strip()}/hook"
    samples: dict[str, list[Figures]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for run in range(RUNS):
                home = Path(tmp) / f"home-{run}"
                cases: dict[str, EventHub | None] = {
                    "no observer": None,
                    "event log": EventHub(AppendFile(log_dir(home) / LOG_NAME)),
                    "log + webhook, all kinds": EventHub(
                        AppendFile(log_dir(home / "w") / LOG_NAME),
                        sinks=[WebhookSink(WebhookConfig(url, queue_size=100_000))],
                    ),
                    "log + webhook, 1 kind": EventHub(
                        AppendFile(log_dir(home / "k") / LOG_NAME),
                        sinks=[
                            WebhookSink(
                                WebhookConfig(
                                    url, events=frozenset({"tool_finished"}), queue_size=100_000
                                )
                            )
                        ],
                    ),
                }
                for name, hub in cases.items():
                    samples.setdefault(name, []).append(_per_call(hub, events))
    finally:
        server.kill()  # the collector this bench started
        server.wait()
        server.stdout.close()
    return {
        name: tuple(statistics.median(s[i] for s in values) for i in range(5))  # type: ignore[misc]
        for name, values in samples.items()
    }


def startup() -> tuple[float, float] | None:
    """Medians of spawn-to-first-request, this tree and the baseline's, or None without one."""
    if BASELINE is None:
        return None
    sys.path.insert(0, str(Path(__file__).parent))
    import startup as startup_bench

    medians = startup_bench.first_requests({"mine": {}, "base": {"PYTHONPATH": BASELINE}}, RUNS * 2)
    return medians["mine"], medians["base"]


def main() -> dict[str, object]:
    return {"per_tool_call": per_tool_call(), "startup": startup(), "load": os.getloadavg()[0]}


def report(figures: dict[str, object]) -> None:
    print(f"Event log and webhooks, per tool call ({CALLS} calls x {RUNS} runs, medians)")
    print(f"  {'':<26}{'on the loop, wall':>20}{'loop thread CPU':>20}{'all threads CPU':>17}")
    print(f"  {'':<26}{'mean':>10}{'p99':>10}{'mean':>10}{'p99':>10}{'mean':>17}")
    per_call = figures["per_tool_call"]
    assert isinstance(per_call, dict)
    for name, row in per_call.items():
        cells = "".join(f"{v * 1e6:>8.1f}us" for v in row[:4])
        print(f"  {name:<26}{cells}{row[4] * 1e6:>15.1f}us")
    started = figures["startup"]
    if started is None:
        print("  start-up: set BENCH_BASELINE to another tree's src for the before/after")
    else:
        assert isinstance(started, tuple)
        mine, base = started
        print(
            f"  start-up, -p hi to first request: {mine * 1000:.0f} ms, baseline "
            f"{base * 1000:.0f} ms, ratio {mine / base:.2f}"
        )
    print(f"  (load average {figures['load']:.1f})")


if __name__ == "__main__":
    report(main())
