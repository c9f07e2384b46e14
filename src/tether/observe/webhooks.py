"""`WebhookSink`: records POSTed to a monitoring endpoint, never holding up the session.

`offer` numbers a record (`seq`, in the order offered) and puts it on a bounded queue and
returns; when the queue is full the record is dropped and counted. Threads of the sink's own
post them, up to `IN_FLIGHT` at once on a connection each (a slow endpoint's answers are
waited for side by side, not one after another), one at a time for a `slack` webhook (a
channel shows messages as they come) and while the endpoint fails; a `json` body carries its
`seq`, by which a receiver puts them back in order. Connection failures, timeouts, 408, 429
and 5xx answers are retried with a doubling backoff; another 4xx is not retried and is
counted as the status it was. An endpoint that fails `CIRCUIT_FAILURES` records in a row is
left alone for `CIRCUIT_OPEN_S` (the circuit opens): what comes meanwhile is dropped and
counted, said once when it first happens; then one record is tried once, and a success
closes the circuit. `close` lets them deliver what is queued and on its way until shortly
before a deadline, then counts the rest: not delivered, or sent (the request written) and
unanswered, which may have arrived. When any is, and the endpoint is not left alone, one last
record, `webhook_dropped` (`webhook_tally.Tally.payload`), tells the receiver what it lost,
by the deadline.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import itertools
import json
import queue
import threading
import time
import uuid
from collections.abc import Callable

from tether.observe.records import EventRecord, timestamp
from tether.observe.summary import detail, whose
from tether.observe.webhook_http import WebhookConnection
from tether.observe.webhook_settings import DROPPED_KIND, WebhookConfig
from tether.observe.webhook_tally import Tally

ATTEMPTS = 4
FIRST_BACKOFF_S = 0.25
MAX_BACKOFF_S = 4.0
SIGNATURE_HEADER = "X-Tether-Signature"
IN_FLIGHT = 6
"""Records posted at once at most (a `json` webhook's, while its endpoint delivers)."""
CIRCUIT_FAILURES = 5
"""Records failed in a row (each after its retries) before the endpoint is left alone."""
CIRCUIT_OPEN_S = 30.0
"""How long it is left alone before one record is tried again."""
RETRIED = frozenset({408, 429})
"""The 4xx answers worth another try (the request timed out; too many requests)."""
TELL_S = 0.5
"""Of the time given at exit, what is kept at most (a quarter at most) to post the last
record, `webhook_dropped`, telling the receiver what it lost."""
MIN_TELL_S = 0.05
"""Less time left than this at exit: the last record is not tried."""


def signature(secret: bytes, body: bytes) -> str:
    """The `X-Tether-Signature` value for `body`."""
    return "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()


def body_for(config: WebhookConfig, record: EventRecord, seq: int, stream: str) -> bytes:
    """What is posted: a `slack` message, or the record with its `stream` and `seq` (`json`)."""
    if config.format == "slack":
        return json.dumps({"text": slack_text(record)}, ensure_ascii=False).encode("utf-8")
    return record.to_json(seq=seq, stream=stream).encode("utf-8")


def slack_text(record: EventRecord) -> str:
    """One line for a Slack channel: whose event, which, and what it says."""
    text = f"*{record.kind}* ({whose(record)})"
    said = detail(record)
    return f"{text}: {said}" if said else text


class _Poster:
    """One of a sink's posting threads: what it holds (a record taken from the queue, not
    yet answered) and how that record's tries failed so far ("": they have not)."""

    def __init__(self) -> None:
        self.holding = False
        self.seq = 0
        """The `seq` of the record held."""
        self.sent = False
        """Its request is written (this try's), its answer not read yet: it may arrive."""
        self.tried = ""
        self.thread: threading.Thread | None = None


_Queued = tuple[int, EventRecord]
"""A record and its `seq`."""


class WebhookSink:
    def __init__(
        self,
        config: WebhookConfig,
        *,
        first_backoff_s: float = FIRST_BACKOFF_S,
        circuit_failures: int = CIRCUIT_FAILURES,
        circuit_open_s: float = CIRCUIT_OPEN_S,
        in_flight: int = IN_FLIGHT,
        on_circuit: Callable[[str], None] = lambda _: None,
    ) -> None:
        """`on_circuit` is told, once, when the endpoint is first left alone; `in_flight`:
        records posted at once at most (1 for a `slack` webhook)."""
        self.config = config
        self.first_backoff_s = first_backoff_s
        self.circuit_failures = circuit_failures
        self.circuit_open_s = circuit_open_s
        self.in_flight = 1 if config.format == "slack" else max(1, in_flight)
        self._on_circuit = on_circuit
        self._failures_in_a_row = 0
        self._open_until: float | None = None
        """While set, the circuit is open: nothing is posted before it."""
        self._circuit_said = False
        self.tally = Tally(ATTEMPTS)
        self._queue: queue.Queue[_Queued | None] = queue.Queue(config.queue_size)
        self._seq = itertools.count(1)
        self.stream = uuid.uuid4().hex
        """This sink's numbering, new in each process (a session continued by another
        process, or a REPL's sessions after /clear, are told apart by it, not by session):
        a receiver orders by `stream` and `seq`, and a gap in one stream is a record lost."""
        self._abandon = threading.Event()
        self._lock = threading.Condition()
        """Guards the tally, the circuit and the posters; notified when a post ends."""
        self._posters: list[_Poster] = []
        self._idle = 0
        """Posters waiting for a record."""
        self._posting = 0
        """Records on their way (posted, not answered)."""
        self._closing = False
        self._final = False
        self._last: EventRecord | None = None
        """The last record offered: whose the last record, `webhook_dropped`, is."""

    def offer(self, record: EventRecord) -> None:
        if not self.config.wants(record.kind) or self._abandon.is_set():
            return
        seq = next(self._seq)  # a record dropped leaves a gap a receiver can see
        self._last = record
        try:
            self._queue.put_nowait((seq, record))
        except queue.Full:
            with self._lock:
                self.tally.full += 1
                self.tally.lost(seq)
            return
        with self._lock:
            if self._idle or self._closing or len(self._posters) >= self.in_flight:
                return
            poster = _Poster()
            poster.thread = threading.Thread(
                target=self._post_all, args=(poster,), name="tether-webhook", daemon=True
            )
            self._posters.append(poster)
            self._idle += 1  # until it takes a record: the next offer starts no other
        poster.thread.start()

    def close(self, deadline: float) -> str | None:
        """Deliver what is queued and on its way until shortly before `deadline`, count the
        rest, then tell the endpoint what it lost in one last record, `webhook_dropped`, by
        `deadline` (`tell`); what was lost, for the user (None: nothing)."""
        with self._lock:
            self._closing = True
            posters = list(self._posters)
        if not posters:
            self._abandon.set()
            return self.report()
        cut = deadline - min(TELL_S, max(0.0, deadline - time.monotonic()) / 4)
        for _ in posters:  # each poster's last item, after every record queued
            with contextlib.suppress(queue.Full):  # full: it stops at the deadline
                self._queue.put(None, timeout=max(0.0, cut - time.monotonic()))
        for poster in posters:
            assert poster.thread is not None
            poster.thread.join(max(0.0, cut - time.monotonic()))
        self._abandon.set()  # a backoff under way ends; the queue is not read again
        with self._lock, self._queue.mutex:
            self._lock.notify_all()
            for item in self._queue.queue:
                if item is not None:
                    self.tally.unsent += 1
                    self.tally.lost(item[0])
            for poster in posters:
                if poster.holding:
                    self._count(None, False, poster)
            self._final = True  # what the threads still finish is not counted twice
            report = self.report()
        if report is not None and (seq := self.tell(report, deadline)) is not None:
            report += f" (the endpoint was told, in record {seq})"
        return report

    def tell(self, message: str, deadline: float) -> int | None:
        """Post the last record, `webhook_dropped` with what was lost (`Tally.payload`), by
        `deadline`, retried as the others while there is time: its `seq` when the endpoint
        took it. Sent whatever the webhook's `events` (it is about them all); not tried when
        the endpoint is left alone (the circuit open) or too little time is left."""
        last, left = self._last, deadline - time.monotonic()
        if last is None or left < MIN_TELL_S:
            return None
        with self._lock:
            if self._open_until is not None and time.monotonic() < self._open_until:
                return None
            seq = next(self._seq)
            payload = self.tally.payload(message, seq - 1)
        record = EventRecord(
            last.session_id, last.agent_id, last.task_id, timestamp(), DROPPED_KIND, payload
        )
        body = body_for(self.config, record, seq, self.stream)
        answers: list[int | str] = []

        def post() -> None:  # retried as the others are, while the time lasts
            connection = WebhookConnection(self.config.url, min(self.config.timeout_s, left))
            try:
                for delay in backoffs(self.first_backoff_s, ATTEMPTS):
                    if delay > deadline - time.monotonic():
                        return
                    time.sleep(delay)
                    answers.append(answer := connection.post(body, self._headers(body)))
                    if isinstance(answer, int) and answer < 500 and answer not in RETRIED:
                        return  # taken, or refused for good
            finally:
                connection.close()

        thread = threading.Thread(target=post, name="tether-webhook-last", daemon=True)
        thread.start()
        thread.join(max(0.0, deadline - time.monotonic()))
        answer = answers[-1] if answers else None
        return seq if isinstance(answer, int) and 200 <= answer < 300 else None

    def report(self) -> str | None:
        return self.tally.report(self.config.place)

    def _headers(self, body: bytes) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "User-Agent": "tether-webhook"}
        if self.config.secret is not None:
            headers[SIGNATURE_HEADER] = signature(self.config.secret, body)
        return headers

    def _limit(self) -> int:
        """Records on their way at once at most: one while the endpoint fails."""
        failing = self._failures_in_a_row or self._open_until is not None
        return 1 if failing else self.in_flight

    def _post_all(self, me: _Poster) -> None:
        connection = WebhookConnection(self.config.url, self.config.timeout_s)
        try:
            first = True
            while not self._abandon.is_set():
                if not first:
                    with self._lock:
                        self._idle += 1
                first = False
                item = self._queue.get()
                with self._lock:
                    self._idle -= 1
                    if item is None or self._final:
                        return
                    me.holding, me.tried, me.seq = True, "", item[0]
                    while self._posting >= self._limit() and not self._abandon.is_set():
                        self._lock.wait()  # the endpoint fails: one record at a time
                    if self._abandon.is_set():
                        return
                    until = self._open_until
                    half_open = until is not None
                    if until is not None and time.monotonic() < until:
                        self.tally.circuit += 1
                        self.tally.lost(item[0])
                        me.holding = False
                        continue
                    self._posting += 1
                seq, record = item
                outcome = self._post(connection, me, seq, record, 1 if half_open else ATTEMPTS)
                with self._lock:
                    self._posting -= 1
                    self._lock.notify_all()
                    if self._final:
                        return
                    self._count(outcome, half_open, me)
                    me.holding = False
                    said = self._follow(outcome)
                if said:
                    self._on_circuit(said)
        finally:
            connection.close()

    def _count(self, outcome: int | str | None, half_open: bool, poster: _Poster) -> None:
        """Count the record `poster` holds by its `outcome` (None: the deadline came first)."""
        t = self.tally
        if outcome is None and poster.sent:  # written, unanswered: it may have arrived
            t.unanswered.append(poster.seq)
            return
        if outcome == 0:
            t.delivered += 1
            return
        t.lost(poster.seq)
        if half_open and isinstance(outcome, str):  # one try of an endpoint still down
            t.circuit += 1
        elif outcome is None and poster.tried:
            t.cut += 1
            t.cut_failure = poster.tried
        elif outcome is None:
            t.unsent += 1
        elif isinstance(outcome, int):
            t.refused[outcome] += 1
        else:
            t.failed += 1
            t.last_failure = outcome

    def _follow(self, outcome: int | str | None) -> str | None:
        """The circuit after a record's `outcome`: closed by a delivery, opened by
        `circuit_failures` failures in a row (again by one while it was being tried); what
        to tell the first time it opens."""
        if outcome is None:
            return None
        if outcome == 0:
            self._failures_in_a_row, self._open_until = 0, None
            return None
        self._failures_in_a_row += 1
        if self._open_until is None and self._failures_in_a_row < self.circuit_failures:
            return None
        self._open_until = time.monotonic() + self.circuit_open_s
        if self._circuit_said:
            return None
        self._circuit_said = True
        return (
            f"webhook {self.config.place}: {self._failures_in_a_row} events in a row not "
            f"delivered (the last: {_said(outcome)}); it is tried again every "
            f"{self.circuit_open_s:g} s, and what comes meanwhile is dropped and counted"
        )

    def _post(
        self,
        connection: WebhookConnection,
        me: _Poster,
        seq: int,
        record: EventRecord,
        attempts: int,
    ) -> int | str | None:
        """0: delivered; a 4xx status not worth retrying; how the last attempt failed
        (given up); None: abandoned at the deadline."""
        body = body_for(self.config, record, seq, self.stream)
        headers = self._headers(body)
        failure = ""

        def sent() -> None:
            me.sent = True

        for attempt, delay in enumerate(backoffs(self.first_backoff_s, attempts)):
            if delay and self._abandon.wait(delay):
                return None
            answer = connection.post(body, headers, on_sent=sent)
            me.sent = False
            if isinstance(answer, str):
                failure = answer
            elif 200 <= answer < 300:
                return 0
            elif 400 <= answer < 500 and answer not in RETRIED:
                return answer
            else:
                failure = f"HTTP {answer}"
            with self._lock:
                me.tried = f"{failure}, on try {attempt + 1} of {attempts}"
        return failure

    @property
    def tried(self) -> str:
        """How a record on its way failed so far ("": none has, or none is)."""
        with self._lock:
            return next((p.tried for p in self._posters if p.holding and p.tried), "")


def backoffs(first: float, attempts: int) -> list[float]:
    """The wait before each of `attempts` tries: none before the first, then `first`,
    doubling up to `MAX_BACKOFF_S` (0, 0.25, 0.5, 1 by default)."""
    return [0.0] + [min(first * 2**n, MAX_BACKOFF_S) for n in range(attempts - 1)]


def _said(outcome: int | str) -> str:
    return f"HTTP {outcome}" if isinstance(outcome, int) else outcome
