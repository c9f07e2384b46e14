"""Webhook sinks against a real HTTP server on loopback: delivery, signatures, retries on 500s,
timeouts and refused connections, a full queue, and what is left at exit counted."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any

from tether.observe.records import EventRecord
from tether.observe.webhook_settings import WebhookConfig
from tether.observe.webhooks import (
    ATTEMPTS,
    FIRST_BACKOFF_S,
    IN_FLIGHT,
    WebhookSink,
    backoffs,
    slack_text,
)

from .sink_server import SinkServer

FAST = 0.01
"""The first backoff in these tests: retries come at once."""


def record(n: int, kind: str = "tool_finished") -> EventRecord:
    payload = {"call_id": f"c{n}", "name": "Bash", "is_error": False, "duration_ms": n}
    return EventRecord("s1", "main", "7", f"2026-01-01T00:00:0{n}.000000Z", kind, payload)


def close_now(sink: WebhookSink, seconds: float = 10.0) -> str | None:
    return sink.close(time.monotonic() + seconds)


def settled(sink: WebhookSink, count: int) -> None:
    """Wait until `count` records have an outcome (delivered, refused, failed, dropped)."""
    while sink.tally.delivered + sink.tally.dropped < count:
        time.sleep(0.01)


def last_told(server: SinkServer) -> dict[str, Any]:
    """The last record the sink told `server`: `webhook_dropped`, what was lost."""
    told = json.loads(server.in_order()[-1].body)
    assert told["kind"] == "webhook_dropped"
    return told


def body(n: int, sink: WebhookSink) -> bytes:
    """`record(n)`'s body, offered n+1th (its `seq`) to `sink`."""
    return record(n).to_json(seq=n + 1, stream=sink.stream).encode()


def test_records_are_posted_in_order_and_signed(sink_server: SinkServer) -> None:
    sink = WebhookSink(WebhookConfig(sink_server.url, secret=b"s3cret"), first_backoff_s=FAST)
    for n in range(3):
        sink.offer(record(n))
    assert close_now(sink) is None
    assert [r.body for r in sink_server.in_order()] == [body(n, sink) for n in range(3)]
    for received in sink_server.received:
        expected = hmac.new(b"s3cret", received.body, hashlib.sha256).hexdigest()
        assert received.headers["x-tether-signature"] == f"sha256={expected}"
        assert received.headers["content-type"] == "application/json"
    assert sink.tally.delivered == 3


def test_unsigned_without_a_secret_and_only_the_kinds_asked_for(sink_server: SinkServer) -> None:
    config = WebhookConfig(sink_server.url, events=frozenset({"error"}), format="slack")
    sink = WebhookSink(config, first_backoff_s=FAST)
    sink.offer(record(1))
    sink.offer(EventRecord("abcdef123456", "worker-1", "7", "t", "error", {"message": "it broke"}))
    assert close_now(sink) is None
    [received] = sink_server.received
    assert "x-tether-signature" not in received.headers
    assert json.loads(received.body) == {
        "text": "*error* (session abcdef12 · worker-1 · task 7): it broke"
    }


def test_500s_are_retried_until_one_gets_through(sink_server: SinkServer) -> None:
    sink_server.statuses = [500, 503, 200]
    sink = WebhookSink(WebhookConfig(sink_server.url), first_backoff_s=FAST)
    sink.offer(record(1))
    assert close_now(sink) is None
    assert [r.body for r in sink_server.received] == [
        record(1).to_json(seq=1, stream=sink.stream).encode()
    ] * 3
    assert sink.tally.delivered == 1


def test_an_endpoint_that_keeps_failing_loses_the_event_and_says_so(
    sink_server: SinkServer,
) -> None:
    sink_server.statuses = [500] * 3 + [503, 404, 410, 404]
    config = WebhookConfig(sink_server.url, secret=b"k", events=frozenset({"tool_finished"}))
    sink = WebhookSink(config, first_backoff_s=FAST)
    sink.offer(record(0))
    settled(sink, 1)  # failing: the rest go one at a time
    for n in range(1, 4):
        sink.offer(record(n))  # the 4xx are not retried
    report = close_now(sink)
    assert len(sink_server.received) == 7 + 1  # and the last record, telling what was lost
    host = sink_server.url.removesuffix("/hook")
    message = (
        f"webhook {host}: 4 of 4 events not delivered (1 failed after 4 attempts (the last: "
        "HTTP 503); 2 answered HTTP 404; 1 answered HTTP 410)"
    )
    assert report == f"{message} (the endpoint was told, in record 5)"
    told = last_told(sink_server)  # though its kind is not among `events`; signed
    assert told["seq"] == 5
    last = sink_server.in_order()[-1]
    expected = hmac.new(b"k", last.body, hashlib.sha256).hexdigest()
    assert last.headers["x-tether-signature"] == f"sha256={expected}"
    assert told["payload"] == {
        "message": message,
        "offered": 4,
        "lost": {"failed": 1, "http_404": 2, "http_410": 1},
        "first_seq": 1,
        "last_seq": 4,
        "unanswered": [],
    }


def test_the_last_record_is_retried_like_the_others(sink_server: SinkServer) -> None:
    # An endpoint failing now and then: the record telling what was lost is tried again
    # (tried once, a 500 left the receiver knowing nothing of its losses).
    sink_server.statuses = [404, 500]
    sink = WebhookSink(WebhookConfig(sink_server.url), first_backoff_s=FAST)
    sink.offer(record(0))
    report = close_now(sink)
    assert report is not None
    assert report.endswith("1 answered HTTP 404) (the endpoint was told, in record 2)")
    assert len(sink_server.received) == 3
    assert last_told(sink_server)["payload"]["lost"] == {"http_404": 1}


def test_a_kept_alive_connection_carries_every_record() -> None:
    server = SinkServer(keep_alive=True)
    try:
        sink = WebhookSink(WebhookConfig(server.url), first_backoff_s=FAST)
        for n in range(5):
            sink.offer(record(n))
            settled(sink, n + 1)  # one at a time: no second connection is needed
        assert close_now(sink) is None
        assert [r.body for r in server.received] == [body(n, sink) for n in range(5)]
        assert len({r.client_port for r in server.received}) == 1  # one connection, no retries
    finally:
        server.stop()


def test_408_and_429_are_retried(sink_server: SinkServer) -> None:
    sink_server.statuses = [408, 429, 200]
    sink = WebhookSink(WebhookConfig(sink_server.url), first_backoff_s=FAST)
    sink.offer(record(1))
    assert close_now(sink) is None
    assert len(sink_server.received) == 3
    assert sink.tally.delivered == 1


def test_a_dead_endpoint_is_left_alone_and_what_it_misses_counted(
    sink_server: SinkServer,
) -> None:
    sink_server.statuses = [500] * 8
    said: list[str] = []
    sink = WebhookSink(
        WebhookConfig(sink_server.url),
        first_backoff_s=FAST,
        circuit_failures=2,
        circuit_open_s=3600,
        on_circuit=said.append,
    )
    sink.offer(record(0))
    settled(sink, 1)  # failing: the rest go one at a time
    for n in range(1, 10):
        sink.offer(record(n))
    report = close_now(sink)
    assert len(sink_server.received) == 2 * 4  # two records with their retries, then no more
    host = sink_server.url.removesuffix("/hook")
    assert said == [
        f"webhook {host}: 2 events in a row not delivered (the last: HTTP 500); it is tried "
        "again every 3600 s, and what comes meanwhile is dropped and counted"
    ]
    assert report == (
        f"webhook {host}: 10 of 10 events not delivered (2 failed after 4 attempts (the last: "
        "HTTP 500); 8 dropped while the endpoint was down)"
    )


def test_an_endpoint_back_up_is_tried_once_and_used_again(sink_server: SinkServer) -> None:
    sink_server.statuses = [404, 404, 500, 200]
    sink = WebhookSink(
        WebhookConfig(sink_server.url),
        first_backoff_s=FAST,
        circuit_failures=2,
        circuit_open_s=0,  # tried again at once: each record after the circuit opens
    )
    sink.offer(record(0))
    settled(sink, 1)  # failing: the rest go one at a time
    for n in range(1, 5):
        sink.offer(record(n))
    close_now(sink)
    # Two refused open it; the third is tried once (500) and opens it again; the fourth
    # gets through and closes it; the fifth is posted as usual; the last record says what
    # was lost (the circuit is closed again).
    assert len(sink_server.received) == 5 + 1
    assert last_told(sink_server)["payload"]["lost"] == {"http_404": 2, "endpoint_down": 1}
    t = sink.tally
    assert (t.refused[404], t.failed, t.circuit, t.delivered) == (2, 0, 1, 2)


def test_timeouts_are_retried_then_given_up(sink_server: SinkServer) -> None:
    sink_server.hold()
    sink = WebhookSink(WebhookConfig(sink_server.url, timeout_s=0.2), first_backoff_s=FAST)
    sink.offer(record(1))
    report = close_now(sink)
    sink_server.wait_for(4 + 1)  # the last record too, telling what was lost: not answered
    assert last_told(sink_server)["payload"]["lost"] == {"failed": 1}
    assert sink_server.answered == 0
    assert report is not None
    assert "1 of 1 events not delivered (1 failed after 4 attempts (the last: timed out))" in report


def test_a_refused_connection_is_retried_then_given_up(refused_port: int) -> None:
    port = refused_port
    sink = WebhookSink(WebhookConfig(f"http://127.0.0.1:{port}/x"), first_backoff_s=FAST)
    sink.offer(record(1))
    assert close_now(sink) == (
        f"webhook http://127.0.0.1:{port}: 1 of 1 events not delivered "
        "(1 failed after 4 attempts (the last: connection refused))"
    )


def test_a_full_queue_drops_and_what_is_left_at_the_deadline_is_counted(
    sink_server: SinkServer,
) -> None:
    sink_server.hold()
    sink = WebhookSink(WebhookConfig(sink_server.url, queue_size=2), first_backoff_s=FAST)
    for n in range(IN_FLIGHT):
        sink.offer(record(n))
        sink_server.wait_for(n + 1)  # on its way: the queue is empty again
    for n in range(IN_FLIGHT, IN_FLIGHT + 5):
        sink.offer(record(n))  # two queued, three dropped
    report = close_now(sink, seconds=2.0)
    host = sink_server.url.removesuffix("/hook")
    # The IN_FLIGHT the endpoint holds were sent: they may arrive (they were "not sent").
    message = (
        f"webhook {host}: 5 of {IN_FLIGHT + 5} events not delivered "
        f"(3 dropped: queue full; 2 not sent before exit); "
        f"{IN_FLIGHT} sent, unanswered at exit: may have arrived"
    )
    assert report == message
    sink_server.wait_for(IN_FLIGHT + 1)  # and the last record, held unanswered too
    told = last_told(sink_server)
    assert told["seq"] == IN_FLIGHT + 6
    assert told["payload"] == {
        "message": message,
        "offered": IN_FLIGHT + 5,
        "lost": {"queue_full": 3, "not_sent": 2},
        "first_seq": IN_FLIGHT + 1,
        "last_seq": IN_FLIGHT + 5,
        "unanswered": list(range(1, IN_FLIGHT + 1)),
    }
    sink_server.release()


def test_the_secret_never_appears_in_the_report(sink_server: SinkServer) -> None:
    url = sink_server.url.replace("/hook", "/services/T0/B0/tokenpart")
    sink_server.statuses = [400]
    sink = WebhookSink(WebhookConfig(url), first_backoff_s=FAST)
    sink.offer(record(1))
    report = close_now(sink)
    assert report is not None
    assert "tokenpart" not in report


def test_an_answer_that_never_ends_is_not_read_on(sink_server: SinkServer) -> None:
    # An endpoint answering 200 with an endless body: the status is read, a bounded part of
    # the body at most, and the connection dropped (all of it was read, memory without end).
    sink_server.endless = True
    sink = WebhookSink(WebhookConfig(sink_server.url, timeout_s=2.0), first_backoff_s=FAST)
    sink.offer(record(1))
    sink.offer(record(2))
    assert close_now(sink) is None
    assert sorted(r.body for r in sink_server.received) == sorted(
        record(n).to_json(seq=n, stream=sink.stream).encode() for n in (1, 2)
    )
    assert sink.tally.delivered == 2


def test_credentials_in_the_url_are_sent_as_basic_and_never_said(sink_server: SinkServer) -> None:
    sink_server.statuses = [404]
    url = sink_server.url.replace("http://", "http://admin:hunter2@") + "?token=abc123"
    sink = WebhookSink(WebhookConfig(url), first_backoff_s=FAST)
    sink.offer(record(1))
    report = close_now(sink)
    assert len(sink_server.received) == 2  # the record, and the last telling it was lost
    for received in sink_server.received:
        assert received.headers["authorization"] == "Basic YWRtaW46aHVudGVyMg=="
    assert report is not None
    for secret in ("hunter2", "admin", "abc123"):
        assert secret not in report


def test_the_retries_wait_from_the_first_backoff_doubling() -> None:
    assert backoffs(FIRST_BACKOFF_S, ATTEMPTS) == [0.0, 0.25, 0.5, 1.0]
    assert backoffs(1.0, 6) == [0.0, 1.0, 2.0, 4.0, 4.0, 4.0]  # up to MAX_BACKOFF_S


def test_a_record_whose_retries_exit_cuts_short_is_said_to_have_failed(
    sink_server: SinkServer,
) -> None:
    sink_server.statuses = [500] * 4
    sink = WebhookSink(WebhookConfig(sink_server.url), first_backoff_s=60.0)
    sink.offer(record(0))
    sink_server.wait_for(1)
    while not sink.tried:  # the answer read: it waits 60 s before its next try
        time.sleep(0.01)
    host = sink_server.url.removesuffix("/hook")
    assert close_now(sink, seconds=0.0) == (
        f"webhook {host}: 1 of 1 events not delivered (1 failed, not tried again before exit "
        "(the last: HTTP 500, on try 1 of 4))"
    )


def test_a_slow_endpoint_is_sent_records_side_by_side(sink_server: SinkServer) -> None:
    # An endpoint that answers nothing yet: up to IN_FLIGHT records are on their way at once
    # (one at a time, the second waited for the first's answer, and a slow endpoint got a
    # fraction of them before exit); a receiver puts them in order by their `seq`.
    sink_server.hold()
    sink = WebhookSink(WebhookConfig(sink_server.url), first_backoff_s=FAST)
    for n in range(IN_FLIGHT):
        sink.offer(record(n))
    sink_server.wait_for(IN_FLIGHT, timeout=20.0)
    assert len({r.client_port for r in sink_server.received}) == IN_FLIGHT
    sink_server.release()
    assert close_now(sink) is None
    assert [r.body for r in sink_server.in_order()] == [body(n, sink) for n in range(IN_FLIGHT)]


def test_a_slack_webhook_posts_one_at_a_time_in_order() -> None:
    # A channel shows messages as they come: one connection, each post after the last's answer.
    server = SinkServer(keep_alive=True)
    try:
        server.hold()
        sink = WebhookSink(WebhookConfig(server.url, format="slack"), first_backoff_s=FAST)
        for n in range(4):
            sink.offer(record(n))
        server.wait_for(1)
        server.release()
        assert close_now(sink) is None
        texts = [json.loads(r.body)["text"] for r in server.received]
        assert texts == [slack_text(record(n)) for n in range(4)]
        assert len({r.client_port for r in server.received}) == 1
    finally:
        server.stop()
