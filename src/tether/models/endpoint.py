"""Where a model lives, and how its failures read: one-line `ModelError`s naming the endpoint.

Both wires describe failures through `Endpoint` so that the user sees the same wording
whichever wire failed, and the loop sees the same `retryable` decision.
"""

from __future__ import annotations

import datetime
import email.utils
import re
import socket
import time
from collections.abc import Mapping
from typing import Any, Final

from tether import bounded_json
from tether.models.idle import IDLE_TIMEOUT_ENV
from tether.protocol import ModelError
from tether.shown_urls import shown_url
from tether.slotted import Slotted

# Retryable besides every 5xx (529 is Anthropic's "overloaded"), as Claude Code retries: 401
# too (a key refreshed meanwhile, by its helper or its owner, is read again), 403 not.
_RETRYABLE_STATUSES = frozenset({401, 408, 409, 429})

_MAX_DETAIL_CHARS = 400

CONNECT_TIMEOUT_S = 10.0
"""An endpoint that accepts no connection in this time is not there: say so early."""

# Error types that mean "try again later" as opposed to "this request is wrong".
_RETRYABLE_ERROR_TYPES = (
    "overloaded",
    "api_error",
    "server_error",
    "rate_limit",
    "timeout",
    "internal",
    "unavailable",
)

_STATUS_OF_ERROR_TYPE = {
    "overloaded_error": 529,
    "api_error": 500,
    "rate_limit_error": 429,
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
}


def is_retryable_status(status: int) -> bool:
    """Whether an HTTP status means the same request may succeed later."""
    return status in _RETRYABLE_STATUSES or status >= 500


def one_line(text: str, limit: int = _MAX_DETAIL_CHARS) -> str:
    """Collapse whitespace so that a message prints on one line, and keep it short."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def api_error_message(body: object, fallback: str) -> str:
    """The human part of an API error body: `{"error": {"message": ...}}` or `{"message": ...}`."""
    error: object = body
    if isinstance(body, dict) and "error" in body:
        error = body["error"]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(error, dict):
        message: Any = error.get("message")  # pyright: ignore[reportUnknownMemberType]
        if isinstance(message, str) and message:
            return message
    if isinstance(error, str) and error:
        return error
    if isinstance(body, str) and body:
        try:
            return api_error_message(bounded_json.loads(body), body)
        except ValueError:
            return body
    return fallback


def api_error_type(body: object) -> str | None:
    """`error.type` (Anthropic, OpenAI) or `error.code` (some OpenAI-compatible servers)."""
    error: object = body
    if isinstance(body, dict) and "error" in body:
        error = body["error"]  # pyright: ignore[reportUnknownVariableType]
    if not isinstance(error, dict):
        return None
    for key in ("type", "code"):
        value: Any = error.get(key)  # pyright: ignore[reportUnknownMemberType]
        if isinstance(value, str | int) and not isinstance(value, bool) and value != "":
            return str(value)
    return None


_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_MAX_TITLE_CHARS = 120


def body_detail(content_type: str, body: bytes) -> tuple[str, str | None]:
    """What an answer's body says, on one line, and the API's error type when it has one.

    A JSON error body gives its message (`{"error": {"message": ...}}` and the like); an HTML
    page (a proxy's or a web server's, at a wrong URL) is named as such with its `<title>`,
    never dumped; anything else is cut short.
    """
    text = body.decode("utf-8", errors="replace").strip()
    if _is_html(content_type, text):
        import html  # only for an HTML page: its table of entities is some 8 M instructions

        match = _TITLE.search(text)
        title = one_line(html.unescape(match.group(1)), _MAX_TITLE_CHARS) if match else ""
        return (f'an HTML page titled "{title}"' if title else "an HTML page"), None
    try:
        parsed: object = bounded_json.loads(text)
    except ValueError:
        return one_line(text), None
    return api_error_message(parsed, one_line(text)), api_error_type(parsed)


def is_whole_reply(body: bytes) -> bool:
    """Whether `body` is a model's whole answer as JSON (an Anthropic `message`, an OpenAI
    `chat.completion`): what a server that ignores `stream: true` sends."""
    try:
        parsed: object = bounded_json.loads(body)
    except ValueError:
        return False
    if not isinstance(parsed, dict) or "error" in parsed:
        return False
    return parsed.get("type") == "message" or "choices" in parsed  # pyright: ignore[reportUnknownMemberType]


def _is_html(content_type: str, text: str) -> bool:
    if "html" in content_type.lower():
        return True
    head = text[:200].lstrip().lower()
    return head.startswith(("<!doctype html", "<html", "<head", "<body"))


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """The wait an answer asks for (`retry-after-ms`, or `retry-after` in seconds or as an HTTP
    date, RFC 9110 10.2.3), if any. A date is read against the answer's own `date` when it has
    one (the server's clock, whatever this machine's says), else against this machine's."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            seconds = _seconds_until(value, headers.get("date")) if scale == 1.0 else None
            if seconds is None:
                continue  # neither form: the usual backoff applies
        if seconds >= 0:
            return seconds
    return None


def _seconds_until(date: str, now: str | None) -> float | None:
    """Seconds from `now` (an HTTP date; this machine's clock without one) until the HTTP date
    `date`, never below 0; None when `date` is not an HTTP date."""
    when = _http_date(date)
    if when is None:
        return None
    since = _http_date(now) if now is not None else None
    return max(0.0, when - (time.time() if since is None else since))


def _http_date(text: str) -> float | None:
    """An HTTP date (IMF-fixdate, or the obsolete RFC 850 and asctime forms) as a timestamp."""
    try:
        parsed = email.utils.parsedate_to_datetime(text.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if parsed.tzinfo is None:  # asctime's form has no zone: HTTP dates are in GMT
        parsed = parsed.replace(tzinfo=datetime.UTC)
    return parsed.timestamp()


def transport_detail(exc: BaseException) -> str:
    """Name the network failure behind `exc` ("connection refused", "timed out", ...)."""
    chain = _chain(exc)
    if any("Timeout" in type(e).__name__ for e in chain):
        return "timed out"
    for cause in chain:
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cause, socket.gaierror):
            return f"host name not found ({cause.strerror or cause})"
        if type(cause).__module__ == "ssl":
            reason = getattr(cause, "verify_message", None) or getattr(cause, "reason", None)
            return f"TLS handshake failed ({reason or type(cause).__name__})"
    innermost = chain[-1]
    return one_line(str(innermost).strip() or type(innermost).__name__)


def _chain(exc: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in found:
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


class Endpoint(Slotted):
    """A provider's name, base URL and key variable: what an error message must name."""

    __slots__ = ("base_url", "key_env", "provider", "shown")
    provider: Final[str]
    base_url: Final[str]
    key_env: Final[str | None]
    shown: Final[str]
    """The base URL as messages show it: no credentials, no query."""

    def __init__(self, provider: str, base_url: str, key_env: str | None) -> None:
        self.provider = provider
        self.base_url = base_url
        self.key_env = key_env
        self.shown = shown_url(base_url, path=True)

    def unreachable(self, detail: str) -> ModelError:
        """The request never got an HTTP response (refused, DNS, TLS, timeout); through a
        proxy from the environment, that hop is named (it may be the one that failed)."""
        from tether.models.proxy_in_use import proxy_in_use  # a failure's, not every start's

        via = proxy_in_use(self.base_url)
        return ModelError(
            f"cannot reach {self.shown}{'' if via is None else ' ' + via}: {detail}",
            retryable=True,
            unreachable=True,
        )

    def http_error(
        self, status: int, message: str, *, retry_after_s: float | None = None
    ) -> ModelError:
        """The endpoint answered with an error status before streaming began."""
        detail = one_line(message)
        if status in (401, 403):
            hint = f"check {self.key_env}" if self.key_env else "check the provider's API key"
            return ModelError(
                f"{self.provider} rejected the API key (HTTP {status}) at {self.shown}; {hint}",
                status=status,
                retryable=is_retryable_status(status),
                retry_after_s=retry_after_s,
                api_message=detail or None,
            )
        if status == 429:
            text = f"{self.provider} is rate limiting requests (HTTP 429) at {self.shown}"
        elif status == 529:
            text = f"{self.provider} is overloaded (HTTP 529) at {self.shown}"
        elif status >= 500:
            text = f"{self.provider} had a server error (HTTP {status}) at {self.shown}"
        else:
            text = f"{self.provider} rejected the request (HTTP {status}) at {self.shown}"
        return ModelError(
            f"{text}: {detail}" if detail else text,
            status=status,
            retryable=is_retryable_status(status),
            retry_after_s=retry_after_s,
            api_message=detail or None,
            # Claude Code asks once more, at once, before it says the model is not there.
            retry_once=status == 404,
        )

    def not_streamed(self) -> ModelError:
        """A 200 answer that is a whole reply as one JSON body: the server ignored
        `stream: true`. Not retried: it would answer the same way."""
        return ModelError(
            f"{self.provider} at {self.shown} answered without streaming (one JSON reply, "
            "not an event stream): tether needs an endpoint that streams (`stream: true`); "
            "check the base URL, or the server's streaming support"
        )

    def not_a_stream(self, what: str) -> ModelError:
        """A 200 answer that is not an event stream: a wrong URL (a web page, a proxy's
        page) or a server that ignores `stream: true`."""
        return ModelError(
            f"{self.provider} answered with {what} at {self.shown}, not an event stream; "
            "check the base URL"
        )

    def stalled(self, idle_s: float, *, started: bool) -> ModelError:
        """Nothing arrived for `idle_s` seconds on an open connection."""
        where = "mid-response" if started else "before answering"
        return ModelError(
            f"{self.shown} sent nothing for {idle_s:g}s {where} "
            f"(idle timeout; {IDLE_TIMEOUT_ENV} raises it)",
            retryable=True,
        )

    def stream_error(self, error_type: str | None, message: str) -> ModelError:
        """The endpoint sent an error event in the middle of a streamed response. A type that
        means "later" is retried as its status is; any other (`invalid_request_error`, one we
        do not know) is tried once more at once, as Claude Code does (measured: every type it
        was sent, then the second answer decides), since a 200 stream that failed halfway says
        less about the request than a refusal before it began."""
        kind = error_type or "error"
        retryable = error_type is None or any(
            word in kind.lower() for word in _RETRYABLE_ERROR_TYPES
        )
        status = _STATUS_OF_ERROR_TYPE.get(kind)
        if status is None and kind.isdigit():
            status = int(kind)
            retryable = is_retryable_status(status)
        return ModelError(
            f"{self.provider} reported {kind} mid-response at {self.shown}: {one_line(message)}",
            status=status,
            retryable=retryable,
            error_type=None if kind.isdigit() or error_type is None else error_type,
            api_message=one_line(message) or None,
            retry_once=not retryable,
            in_stream=True,
        )

    def kept_alive_only(self, limit_s: float) -> ModelError:
        """The endpoint sent nothing but keep-alives for `limit_s` seconds."""
        return ModelError(
            f"{self.shown} sent only keep-alive pings for {limit_s:g}s "
            f"(idle timeout; {IDLE_TIMEOUT_ENV} raises it)",
            retryable=True,
        )

    def redirected(self, status: int, location: str | None) -> ModelError:
        """A 3xx answer: tether does not follow redirects (the body and the key would go
        wherever the answer says)."""
        where = f" to {one_line(location, 200)}" if location else " without a location"
        return ModelError(
            f"{self.provider} answered with a redirect (HTTP {status}){where} at "
            f"{self.shown}; tether does not follow redirects: check the base URL",
            status=status,
        )

    def stream_unreadable(self, detail: str) -> ModelError:
        """The answer could not be read: its encoding is corrupt, or it passed a bound."""
        return ModelError(
            f"the response from {self.shown} could not be read: {detail}",
            retryable=True,
        )

    def event_object(self, data: str, noun: str) -> dict[str, Any]:
        """One event's data as the JSON object it must be; anything else (not JSON, not an
        object, nested past what the parser takes) is a broken stream. A number too long for
        Python to read (thousands of digits, in a usage count say) is read as a text saying
        so: unknown, as any count the adapters cannot use (and say), and the event is kept."""
        try:
            value: object = bounded_json.loads_numbers_read(data, [], read_long_as=too_long)
        except (ValueError, RecursionError):
            raise self.stream_broken(f"{noun} that is not JSON: {data[:80]!r}") from None
        if not isinstance(value, dict):
            raise self.stream_broken(f"{noun} that is not an object: {data[:80]!r}")
        return value  # pyright: ignore[reportUnknownVariableType]

    def stream_out_of_order(self, detail: str) -> ModelError:
        """The events broke the streaming protocol (a delta for a block never started, a call
        with no name): what they meant is unknown, so the answer is not taken as it is."""
        return ModelError(
            f"the response from {self.shown} broke the streaming protocol: {detail}",
            retryable=True,
        )

    def stream_broken(self, detail: str) -> ModelError:
        """The connection dropped while the response was streaming."""
        return ModelError(
            f"the connection to {self.shown} broke mid-response: {detail}",
            retryable=True,
        )

    def stream_unfinished(self, missing: str) -> ModelError:
        """The body ended cleanly but the response never said it was complete."""
        return ModelError(
            f"the response from {self.shown} ended before {missing}",
            retryable=True,
        )


def too_long(digits: int) -> str:
    """What a number too long to read stands for in an event (see `event_object`)."""
    return f"a number of {digits:,} digits"
