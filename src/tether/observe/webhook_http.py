"""One kept-alive HTTP connection a webhook sink posts its records on (`WebhookConnection`):
the answer's status, or how the request failed in a few words."""

from __future__ import annotations

import base64
import http.client
import time
from collections.abc import Callable
from urllib.parse import unquote, urlsplit

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


class WebhookConnection:
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

    def post(
        self, body: bytes, headers: dict[str, str], on_sent: Callable[[], None] | None = None
    ) -> int | str:
        """The answer's status, or how the request failed ("connection refused", "timed
        out"). `on_sent` is called once the request is written whole, before its answer."""
        try:
            if self._http is None:
                kind = http.client.HTTPSConnection if self._secure else http.client.HTTPConnection
                self._http = kind(self._host, self._port, timeout=self._timeout_s)
            self._http.request("POST", self._target, body=body, headers={**headers, **self._auth})
            if on_sent is not None:
                on_sent()
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
