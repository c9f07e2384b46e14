"""`WebhookSink`: records POSTed to a monitoring endpoint, never holding up the session.

`offer` puts a record on a bounded queue and returns; when the queue is full the record is
dropped and counted. A thread of its own posts them one at a time, retrying connection
failures, timeouts, 429 and 5xx answers with a doubling backoff; another 4xx is not retried.
`close` lets it deliver what is queued until a deadline, then counts the rest as lost.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import queue
import threading
import time
from dataclasses import dataclass

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
        import httpx2  # only once a webhook has something to send: start-up does not pay

        with httpx2.Client(timeout=self.config.timeout_s, follow_redirects=False) as client:
            while not self._abandon.is_set():
                record = self._queue.get()
                if record is None:
                    return
                with self._lock:
                    self._busy = True
                delivered = self._post(client, record)
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

    def _post(self, client: object, record: EventRecord) -> bool | None:
        """True: delivered; False: given up; None: abandoned at the deadline."""
        import httpx2

        assert isinstance(client, httpx2.Client)
        body = body_for(self.config, record)
        headers = {"Content-Type": "application/json", "User-Agent": "tether-webhook"}
        if self.config.secret is not None:
            headers[SIGNATURE_HEADER] = signature(self.config.secret, body)
        backoff = self.first_backoff_s
        for attempt in range(ATTEMPTS):
            if attempt and self._abandon.wait(backoff):
                return None
            backoff = min(backoff * 2, MAX_BACKOFF_S)
            try:
                status = client.post(self.config.url, content=body, headers=headers).status_code
            except httpx2.HTTPError:
                continue
            if 200 <= status < 300:
                return True
            if status != 429 and status < 500:
                return False
        return False
