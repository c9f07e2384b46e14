"""What the event log, the cost ledger and a webhook cost together, per tool call, side by
side with all of them off (the issue's aim: under 1 ms a tool call). One command:

    .venv/bin/python bench/observe_bench.py  [BENCH_CALLS=1000 BENCH_RUNS=3 BENCH_PACE_MS=5]

The events one tool call makes a session emit (`events_bench.tool_call_events`: the reply
streamed with its tool_use and usage, the call started and finished with a 2 KB result, the
message of results), handed to each observer as the session hands them, BENCH_CALLS times
over, a conversation that grows as a session's does, one call every BENCH_PACE_MS (a session
makes one a model answer, hundreds of ms at the least: 5 ms is far faster than any session,
yet not a burst that only measures the queue's bound). For each configuration:
- on the loop: the time `emit`'s observers take per tool call, as mean, p50 and p99 over
  the calls (what a session waits for);
- all threads: the process's CPU time per tool call once everything queued was written to
  the log and the ledger and delivered to the webhook (a local collector answering 200, in
  a process of its own): what the machine pays;
- dropped: the webhook's records not delivered (a full queue, the endpoint failing), a
  figure: dropping and counting is the sink's documented behaviour under a burst.
Each observer alone is measured too, so the table says what dominates.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).parent))

from events_bench import SERVER, tool_call_events
from tether.ledger import LedgerRecorder, LedgerWriter, Rates, ledger_path
from tether.observe.hub import EventContext, EventHub
from tether.observe.log_file import AppendFile
from tether.observe.records import LOG_NAME, log_dir
from tether.observe.webhook_settings import WebhookConfig
from tether.observe.webhooks import WebhookSink

CALLS = int(os.environ.get("BENCH_CALLS", "1000"))
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
PACE_S = float(os.environ.get("BENCH_PACE_MS", "5")) / 1e3
SETTLE_S = 120.0
CASES = ("all off", "event log", "ledger", "log + webhook", "log + ledger + webhook")


@dataclass
class _Observers:
    """One configuration: the observers `emit` calls, and how to wait for what they queued."""

    observers: list[Callable[[BaseModel], None]]
    hub: EventHub | None = None
    writer: LedgerWriter | None = None
    recorder: LedgerRecorder | None = None

    def settle(self, sent: int) -> int:
        """Everything written and delivered or dropped (`sent`: the records the webhook
        should get); how many the webhook dropped."""
        if self.recorder is not None and self.writer is not None:
            self.recorder.close()
            assert self.writer.flush(SETTLE_S)
            self.writer.close()
            assert self.writer.failed is None, self.writer.failed
        dropped = 0
        if self.hub is not None:
            self.hub.flush(SETTLE_S)
            deadline = time.monotonic() + SETTLE_S
            for sink in self.hub.sinks:
                assert isinstance(sink, WebhookSink)
                while sink.tally.delivered + sink.tally.dropped < sent:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.001)
                dropped += sent - sink.tally.delivered
            self.hub.close()
        return dropped


def _observers(case: str, home: Path, url: str) -> _Observers:
    if case == "all off":
        return _Observers([])
    made = _Observers([])
    context = EventContext("bench-session")
    if "log" in case:
        sinks = [WebhookSink(WebhookConfig(url, events=frozenset({"tool_finished"})))]
        made.hub = EventHub(
            AppendFile(log_dir(home) / LOG_NAME), sinks=sinks if "webhook" in case else []
        )
        made.observers.append(made.hub.observer(context))
    if "ledger" in case:
        made.writer = LedgerWriter(ledger_path(home), warn=print)
        made.recorder = LedgerRecorder(
            made.writer,
            session_id="bench-session",
            rates_for=lambda _m: Rates(3.0, 15.0, 3.75, 0.3),
        )
        made.recorder.started("claude-sonnet-4-5", "/")
        made.observers.append(made.recorder.observe)  # type: ignore[arg-type]
    return made


def _run(
    case: str, home: Path, url: str, events: list[list[BaseModel]]
) -> tuple[list[float], float, int]:
    """(seconds on the loop of each tool call, CPU seconds of all threads per tool call,
    records the webhook dropped), one call every `PACE_S`."""
    made = _observers(case, home, url)
    observers = made.observers
    cpu = time.process_time()
    on_loop: list[float] = []
    began = time.perf_counter()
    for n, call in enumerate(events):
        if (wait := began + n * PACE_S - time.perf_counter()) > 0:
            time.sleep(wait)  # not counted: process_time leaves sleep out
        started = time.perf_counter()
        for event in call:
            for observe in observers:  # as `Session.emit` calls them
                observe(event)
        on_loop.append(time.perf_counter() - started)
    dropped = made.settle(len(events) if "webhook" in case else 0)
    return on_loop, (time.process_time() - cpu) / len(events), dropped


Figures = dict[str, tuple[float, float, float, float, int]]


def main() -> Figures:
    """Per case: (mean, p50, p99 on the loop, CPU of all threads), seconds per tool call, and
    the webhook's records dropped over the runs."""
    events = [tool_call_events(n) for n in range(CALLS)]
    server = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    url = f"http://127.0.0.1:{server.stdout.readline().strip()}/hook"
    loops: dict[str, list[float]] = {case: [] for case in CASES}
    cpus: dict[str, list[float]] = {case: [] for case in CASES}
    drops: dict[str, int] = {case: 0 for case in CASES}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for run in range(RUNS):
                for n, case in enumerate(CASES):  # interleaved: the machine's load shared
                    on_loop, cpu, dropped = _run(case, Path(tmp) / f"{run}-{n}", url, events)
                    loops[case].extend(on_loop)
                    cpus[case].append(cpu)
                    drops[case] += dropped
    finally:
        server.kill()  # the collector this bench started
        server.wait()
        server.stdout.close()
    figures: Figures = {}
    for case in CASES:
        cuts = statistics.quantiles(loops[case], n=100)
        figures[case] = (
            statistics.fmean(loops[case]),
            cuts[49],
            cuts[98],
            statistics.median(cpus[case]),
            drops[case],
        )
    return figures


def report(figures: Figures) -> None:
    print(
        f"Event log, cost ledger and a webhook (tool_finished), per tool call "
        f"({CALLS} calls x {RUNS} runs, one every {PACE_S * 1e3:g} ms)"
    )
    print(
        f"  {'':<24} {'loop mean':>10} {'p50':>9} {'p99':>9} {'CPU, all threads':>17} "
        f"{'dropped':>9}"
    )
    base_cpu = figures["all off"][3]
    for case, (mean, p50, p99, cpu, dropped) in figures.items():
        extra = "" if case == "all off" else f"  (+{(cpu - base_cpu) * 1e3:.3f} ms)"
        lost = f"{dropped} of {CALLS * RUNS}" if "webhook" in case else "-"
        print(
            f"  {case:<24} {mean * 1e3:>7.3f} ms {p50 * 1e3:>6.3f} ms {p99 * 1e3:>6.3f} ms "
            f"{cpu * 1e3:>14.3f} ms {lost:>9}{extra}"
        )
    print(f"  (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    report(main())
