"""`WebhookSink`: records POSTed to a monitoring endpoint, never holding up the session.

`offer` puts a record on a bounded queue and returns; when the queue is full the record is
dropped and counted. A thread of its own posts them one at a time, retrying connection
failures, timeouts, 408, 429 and 5xx answers with a doubling backoff; another 4xx is not
retried and is counted as the status it was. An endpoint that fails `CIRCUIT_FAILURES`
records in a row is left alone for `CIRCUIT_OPEN_S` (the circuit opens): what comes
meanwhile is dropped and counted, said once when it first happens; then one record is tried
once, and a success closes the circuit. `close` lets it deliver what is queued until a
deadline, then counts the rest as lost.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import http.client
import json
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from tether.observe.records import EventRecord
from tether.observe.summary import detail, whose
from tether.observe.webhook_settings import WebhookConfig

ATTEMPTS = 4
FIRST_BACKOFF_S = 0.25
MAX_BACKOFF_S = 4.0
SIGNATURE_HEADER = "X-Tether-Signature"
CIRCUIT_FAILURES = 5
"""Records failed in a row (each after its retries) before the endpoint is left alone."""
CIRCUIT_OPEN_S = 30.0
"""How long it is left alone before one record is tried again."""
RETRIED = frozenset({408, 429})
"""The 4xx answers worth another try (the request timed out; too many requests)."""


@dataclass
class Tally:
    delivered: int = 0
    full: int = 0
    """Dropped because the queue was full."""
    failed: int = 0
    """Given up after the retries (`last_failure` says how the last one ended)."""
    refused: Counter[int] = field(default_factory=Counter[int])
    """Answered with a 4xx that is not retried, by status."""
    circuit: int = 0
    """Dropped while the endpoint was left alone (the circuit open)."""
    unsent: int = 0
    """Still queued (or on their way, not answered yet) when the deadline came."""
    last_failure: str = ""
    cut: int = 0
    """Failed, and their retries cut short by the deadline (`cut_failure`: the last try)."""
    cut_failure: str = ""

    @property
    def dropped(self) -> int:
        return (
            self.full + self.failed + self.refused.total() + self.circuit + self.unsent + self.cut
        )


def signature(secret: bytes, body: bytes) -> str:
    """The `X-Tether-Signature` value for `body`."""
    return "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()


def body_for(config: WebhookConfig, record: EventRecord) -> bytes:
    if config.format == "slack":
        return json.dumps({"text": slack_text(record)}, ensure_ascii=False).encode("utf-8")
    return record.to_json().encode("utf-8")


def slack_text(record: EventRecord) -> str:
    """One line for a Slack channel: whose event, which, and what it says."""
    text = f"*{record.kind}* ({whose(record)})"
    said = detail(record)
    return f"{text}: {said}" if said else text


class WebhookSink:
    def __init__(
        self,
        config: WebhookConfig,
        *,
        first_backoff_s: float = FIRST_BACKOFF_S,
        circuit_failures: int = CIRCUIT_FAILURES,
        circuit_open_s: float = CIRCUIT_OPEN_S,
        on_circuit: Callable[[str], None] = lambda _: None,
    ) -> None:
        """`on_circuit` is told, once, when the endpoint is first left alone."""
        self.config = config
        self.first_backoff_s = first_backoff_s
        self.circuit_failures = circuit_failures
        self.circuit_open_s = circuit_open_s
        self._on_circuit = on_circuit
        self._failures_in_a_row = 0
        self._open_until: float | None = None
        """While set, the circuit is open: nothing is posted before it."""
        self._circuit_said = False
        self.tally = Tally()
        self._queue: queue.Queue[EventRecord | None] = queue.Queue(config.queue_size)
        self._abandon = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._busy = False
        self._final = False
        self._tried = ""
        """How the record on its way failed so far ("": it has not)."""

    def offer(self, record: EventRecord) -> None:
        if not self.config.wants(record.kind) or self._abandon.is_set():
            return
        try:
            self._queue.put_nowait(record)
        except queue.Full:
            with self._lock:
                self.tally.full += 1
            return
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._post_all, name="tether-webhook", daemon=True
            )
            self._thread.start()

    def close(self, deadline: float) -> str | None:
        if self._thread is not None:
            with contextlib.suppress(queue.Full):  # full: it stops at the deadline instead
                self._queue.put(None, timeout=max(0.0, deadline - time.monotonic()))
            self._thread.join(max(0.0, deadline - time.monotonic()))
            self._abandon.set()  # a backoff under way ends; the queue is not read again
            with self._lock, self._queue.mutex:
                left = sum(item is not None for item in self._queue.queue)
                self.tally.unsent += left
                if self._busy:
                    self._count(None, False)
                self._final = True  # what the thread still finishes is not counted twice
        return self.report()

    def report(self) -> str | None:
        t = self.tally
        if t.dropped == 0:
            return None
        refused = [(n, f"answered HTTP {status}") for status, n in sorted(t.refused.items())]
        reasons = [
            f"{n} {why}"
            for n, why in (
                (t.full, "dropped: queue full"),
                (t.failed, f"failed after {ATTEMPTS} attempts (the last: {t.last_failure})"),
                (t.cut, f"failed, not tried again before exit (the last: {t.cut_failure})"),
                *refused,
                (t.circuit, "dropped while the endpoint was down"),
                (t.unsent, "not sent before exit"),
            )
            if n
        ]
        total = t.delivered + t.dropped
        return (
            f"webhook {self.config.place}: {t.dropped} of {total} events not delivered "
            f"({'; '.join(reasons)})"
        )

    def _post_all(self) -> None:
        connection = _Connection(self.config.url, self.config.timeout_s)
        try:
            while not self._abandon.is_set():
                record = self._queue.get()
                if record is None:
                    return
                until = self._open_until
                half_open = until is not None
                if until is not None and time.monotonic() < until:
                    with self._lock:
                        self.tally.circuit += 1
                    continue
                with self._lock:
                    self._busy = True
                outcome = self._post(connection, record, 1 if half_open else ATTEMPTS)
                with self._lock:
                    self._busy = False
                    if self._final:
                        return
                    self._count(outcome, half_open)
                self._follow(outcome)
        finally:
            connection.close()

    def _count(self, outcome: int | str | None, half_open: bool) -> None:
        t = self.tally
        if half_open and isinstance(outcome, str):  # one try of an endpoint still down
            t.circuit += 1
        elif outcome is None and self._tried:
            t.cut += 1
            t.cut_failure = self._tried
        elif outcome is None:
            t.unsent += 1
        elif outcome == 0:
            t.delivered += 1
        elif isinstance(outcome, int):
            t.refused[outcome] += 1
        else:
            t.failed += 1
            t.last_failure = outcome

    def _follow(self, outcome: int | str | None) -> None:
        """The circuit after a record's `outcome`: closed by a delivery, opened by
        `circuit_failures` failures in a row (again by one while it was being tried)."""
        if outcome is None:
            return
        if outcome == 0:
            self._failures_in_a_row, self._open_until = 0, None
            return
        self._failures_in_a_row += 1
        if self._open_until is None and self._failures_in_a_row < self.circuit_failures:
            return
        if not self._circuit_said:
            self._circuit_said = True
            self._on_circuit(
                f"webhook {self.config.place}: {self._failures_in_a_row} events in a row not "
                f"delivered (the last: {_said(outcome)}); it is tried again every "
                f"{self.circuit_open_s:g} s, and what comes meanwhile is dropped and counted"
            )
        self._open_until = time.monotonic() + self.circuit_open_s

    def _post(
        self, connection: _Connection, record: EventRecord, attempts: int
    ) -> int | str | None:
        """0: delivered; a 4xx status not worth retrying; how the last attempt failed
        (given up); None: abandoned at the deadline."""
        body = body_for(self.config, record)
        headers = {"Content-Type": "application/json", "User-Agent": "tether-webhook"}
        if self.config.secret is not None:
            headers[SIGNATURE_HEADER] = signature(self.config.secret, body)
        failure = ""
        with self._lock:
            self._tried = ""
        for attempt, delay in enumerate(backoffs(self.first_backoff_s, attempts)):
            if delay and self._abandon.wait(delay):
                return None
            answer = connection.post(body, headers)
            if isinstance(answer, str):
                failure = answer
            elif 200 <= answer < 300:
                return 0
            elif 400 <= answer < 500 and answer not in RETRIED:
                return answer
            else:
                failure = f"HTTP {answer}"
            with self._lock:
                self._tried = f"{failure}, on try {attempt + 1} of {attempts}"
        return failure

    @property
    def tried(self) -> str:
        """How the record on its way failed so far ("": it has not, or none is)."""
        return self._tried


def backoffs(first: float, attempts: int) -> list[float]:
    """The wait before each of `attempts` tries: none before the first, then `first`,
    doubling up to `MAX_BACKOFF_S` (0, 0.25, 0.5, 1 by default)."""
    return [0.0] + [min(first * 2**n, MAX_BACKOFF_S) for n in range(attempts - 1)]


def _said(outcome: int | str) -> str:
    return f"HTTP {outcome}" if isinstance(outcome, int) else outcome


MAX_ANSWER_BYTES = 64 * 1024
"""What is read of a webhook's answer at most: only its status counts."""


def _read_bounded(response: http.client.HTTPResponse, deadline: float) -> bool:
    """Read the answer's body, `MAX_ANSWER_BYTES` at most and until `deadline`: whether it
    was read to its end (else the connection cannot be used again)."""
    left = MAX_ANSWER_BYTES
    while left > 0 and time.monotonic() < deadline:
        chunk = response.read1(min(left, 8192))
        if not chunk:
            # At its end: `read` marks the answer done (`read1` leaves a bodiless one open,
            # and the kept-alive connection then refuses the next request).
            response.read()
            return True
        left -= len(chunk)
    return response.isclosed()


class _Connection:
    """One kept-alive connection to the webhook's host (the standard library's client: a
    post costs a tenth of the CPU time of a full-featured client's, and the sink only ever
    POSTs a small body and reads a status). Redirects are not followed; https verifies the
    certificate with the system's authorities."""

    def __init__(self, url: str, timeout_s: float) -> None:
        parts = urlsplit(url)
        self._secure = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._timeout_s = timeout_s
        self._http: http.client.HTTPConnection | None = None
        self._auth: dict[str, str] = {}
        if parts.username is not None:  # `user:password@` in the url: Basic, as curl sends it
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            self._auth = {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()}

    def post(self, body: bytes, headers: dict[str, str]) -> int | str:
        """The answer's status, or how the request failed ("connection refused", "timed
        out")."""
        try:
            if self._http is None:
                kind = http.client.HTTPSConnection if self._secure else http.client.HTTPConnection
                self._http = kind(self._host, self._port, timeout=self._timeout_s)
            self._http.request("POST", self._target, body=body, headers={**headers, **self._auth})
            response = self._http.getresponse()
            if not _read_bounded(response, time.monotonic() + self._timeout_s):
                self.close()  # an answer past the bound or the time: not read on
            elif response.will_close:
                self.close()
            return response.status
        except (OSError, http.client.HTTPException) as e:
            self.close()  # the next attempt connects afresh
            return _failure(e)

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None


def _failure(e: Exception) -> str:
    """How a request failed, in a few words ("connection refused", "timed out")."""
    if isinstance(e, TimeoutError):
        return "timed out"
    if isinstance(e, OSError) and e.strerror:
        return e.strerror.lower()
    if isinstance(e, OSError) and e.args and isinstance(e.args[0], str):
        return e.args[0]  # ssl errors, getaddrinfo's
    return type(e).__name__
