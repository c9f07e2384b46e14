"""`WebhookSink`: records POSTed to a monitoring endpoint, never holding up the session.

`offer` puts a record on a bounded queue and returns; when the queue is full the record is
dropped and counted. A thread of its own posts them one at a time, retrying connection
failures, timeouts, 429 and 5xx answers with a doubling backoff; another 4xx is not retried.
`close` lets it deliver what is queued until a deadline, then counts the rest as lost.
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
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from tether.observe.records import EventRecord
from tether.observe.summary import detail, whose
from tether.observe.webhook_settings import WebhookConfig

ATTEMPTS = 4
FIRST_BACKOFF_S = 0.25
MAX_BACKOFF_S = 4.0
SIGNATURE_HEADER = "X-Tether-Signature"


@dataclass
class Tally:
    delivered: int = 0
    full: int = 0
    """Dropped because the queue was full."""
    failed: int = 0
    """Given up after the retries, or answered with a 4xx."""
    unsent: int = 0
    """Still queued (or on their way) when the deadline came."""

    @property
    def dropped(self) -> int:
        return self.full + self.failed + self.unsent


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
    def __init__(self, config: WebhookConfig, *, first_backoff_s: float = FIRST_BACKOFF_S) -> None:
        self.config = config
        self.first_backoff_s = first_backoff_s
        self.tally = Tally()
        self._queue: queue.Queue[EventRecord | None] = queue.Queue(config.queue_size)
        self._abandon = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._busy = False
        self._final = False

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
                self.tally.unsent += left + int(self._busy)
                self._final = True  # what the thread still finishes is not counted twice
        return self.report()

    def report(self) -> str | None:
        t = self.tally
        if t.dropped == 0:
            return None
        reasons = [
            f"{n} {why}"
            for n, why in (
                (t.full, "dropped: queue full"),
                (t.failed, "failed after retries"),
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
                with self._lock:
                    self._busy = True
                delivered = self._post(connection, record)
                with self._lock:
                    self._busy = False
                    if self._final:
                        return
                    if delivered is True:
                        self.tally.delivered += 1
                    elif delivered is False:
                        self.tally.failed += 1
                    else:
                        self.tally.unsent += 1
        finally:
            connection.close()

    def _post(self, connection: _Connection, record: EventRecord) -> bool | None:
        """True: delivered; False: given up; None: abandoned at the deadline."""
        body = body_for(self.config, record)
        headers = {"Content-Type": "application/json", "User-Agent": "tether-webhook"}
        if self.config.secret is not None:
            headers[SIGNATURE_HEADER] = signature(self.config.secret, body)
        backoff = self.first_backoff_s
        for attempt in range(ATTEMPTS):
            if attempt and self._abandon.wait(backoff):
                return None
            backoff = min(backoff * 2, MAX_BACKOFF_S)
            status = connection.post(body, headers)
            if status is None:
                continue
            if 200 <= status < 300:
                return True
            if status != 429 and status < 500:
                return False
        return False


MAX_ANSWER_BYTES = 64 * 1024
"""What is read of a webhook's answer at most: only its status counts."""


def _read_bounded(response: http.client.HTTPResponse, deadline: float) -> bool:
    """Read the answer's body, `MAX_ANSWER_BYTES` at most and until `deadline`: whether it
    was read to its end (else the connection cannot be used again)."""
    left = MAX_ANSWER_BYTES
    while left > 0 and time.monotonic() < deadline:
        chunk = response.read1(min(left, 8192))
        if not chunk:
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

    def post(self, body: bytes, headers: dict[str, str]) -> int | None:
        """The answer's status, or None when the request failed (refused, reset, timed out)."""
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
        except (OSError, http.client.HTTPException):
            self.close()  # the next attempt connects afresh
            return None

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None
