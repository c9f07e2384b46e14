"""`FakeModelServer`: plays the model over HTTP from scripted turns, in both wire formats.

The real `anthropic` and `openai` SDKs talk to it as they would to the real APIs. It keeps a
log of every request, refuses what the real API would refuse (HTTP 400 in the real error
shape), and answers each accepted request with the next scripted turn.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from tether.testing import anthropic_wire, openai_wire
from tether.testing.loopback import BodyCut, LoopbackServer, RequestHandler
from tether.testing.prompt_cache import PromptCache
from tether.testing.recorded import RecordedRequest, Wire
from tether.testing.script import (
    DEFAULT_ERROR_MESSAGE,
    ERROR_STATUS,
    HttpError,
    Reply,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    Turn,
    WebSearchPart,
    as_reply_or_error,
    is_turn,
)
from tether.testing.signatures import SignedThinking
from tether.testing.tokens import estimate_output_tokens, estimate_prompt_tokens
from tether.testing.validation import (
    Rejection,
    output_past_window,
    validate_anthropic,
    validate_openai,
)
from tether.testing.wire_answers import RETRYABLE_STATUSES as RETRYABLE_STATUSES
from tether.testing.wire_answers import (
    error_reply,
    parse_body,
    rendered,
    request_id_header,
    scripted_rejection,
    searched_only_if_offered,
)

# A callable turn may return another callable; this bounds that chain.
MAX_CALLABLE_DEPTH = 8
_KEEPALIVE = {
    "anthropic": b'event: ping\ndata: {"type": "ping"}\n\n',
    "openai": b": keep-alive\n\n",
}
"""What each wire's endpoints send to keep a connection alive while no answer comes."""


class FakeModelServer:
    """A scripted model on 127.0.0.1, speaking the Anthropic and OpenAI wire formats.

    `url` is the ANTHROPIC_BASE_URL value, `openai_base_url` the OPENAI_BASE_URL value.
    Requests refused by auth or validation are recorded in `requests` and `rejections` and
    do not consume a scripted turn.
    """

    def __init__(self, context_window: int = 200_000, api_key: str | None = None) -> None:
        self.context_window = context_window
        self.api_key = api_key
        self.latency_s: float = 0.0
        """Sleep before answering each request (benchmarks)."""
        self.on_streamed: Callable[[int], None] | None = None
        """Called on the server's thread after each streamed event, with the bytes of the
        answer sent so far: a test acts at a moment of the stream it can name."""
        self.token_factor: float | Callable[[Mapping[str, Any]], float] = 1.0
        """How many times `estimate_prompt_tokens` this endpoint counts a prompt, in the
        window it enforces, the usage it reports and its token counts: above 1, an endpoint
        whose tokenizer counts more than a client's estimate. A callable gives it per request
        (from the request's body); a test may also change it between requests."""
        self.output_in_window = False
        """Count the reply's room (`max_tokens`) in the window, as vLLM and other
        OpenAI-compatible servers do: prompt + max_tokens past it is refused, in their words."""
        self.openai_cache_details = True
        """Name the cached tokens in an OpenAI answer's usage (`prompt_tokens_details`);
        False: say nothing of them, as llama.cpp's server and older vLLM answer."""
        self.expect_rejections = False
        """Set by a test that provokes rejections on purpose; the pytest fixture checks it."""
        self.requests: list[RecordedRequest] = []
        self.rejections: list[RecordedRequest] = []
        self._script: deque[Turn] = deque()
        self.responder: Turn | None = None
        """Answers every request the script has no turn left for: a callable of the request
        lets many clients (worker processes) share one server, each answered from what it
        sent rather than from the order requests happen to arrive in."""
        self._lock = threading.Lock()
        self._counters = {"reply": 0, "tool": 0}
        self.signed = SignedThinking()
        """Thinking signatures given out, by model: one sent back to another is refused."""
        self.prompt_cache = PromptCache()
        """Simulated prompt cache: shapes the cache fields of the usage each reply reports."""
        self._stopping = threading.Event()
        self._httpd: LoopbackServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -----------------------------------------------------------------------

    def start(self) -> FakeModelServer:
        """Bind a free port on 127.0.0.1 and serve on a daemon thread."""
        if self._httpd is not None:
            raise RuntimeError("FakeModelServer is already running")
        self._stopping.clear()
        self._httpd = LoopbackServer(self._answer)
        self._thread = threading.Thread(
            target=self._httpd.serve_until_woken, name="FakeModelServer", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, end open connections and join every thread. Idempotent."""
        httpd, thread = self._httpd, self._thread
        if httpd is None or thread is None:
            return
        self._stopping.set()
        httpd.wake()
        thread.join()
        httpd.close_connections()
        httpd.server_close()
        self._httpd = self._thread = None

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """Base URL for the Anthropic SDK (ANTHROPIC_BASE_URL)."""
        if self._httpd is None:
            raise RuntimeError("FakeModelServer is not running; call start()")
        return f"http://127.0.0.1:{self._httpd.port}"

    @property
    def openai_base_url(self) -> str:
        """Base URL for the OpenAI SDK (OPENAI_BASE_URL)."""
        return self.url + "/v1"

    # --- script --------------------------------------------------------------------------

    def script(self, *turns: Turn) -> None:
        """Queue turns; each model request consumes the next one."""
        for turn in turns:
            if not is_turn(turn):
                raise TypeError(f"not a scripted turn: {turn!r}")
        with self._lock:
            self._script.extend(turns)

    def pending(self) -> int:
        """Scripted turns not consumed yet."""
        with self._lock:
            return len(self._script)

    def reset(self) -> None:
        """Forget the script, the request log and the rejections."""
        with self._lock:
            self._script.clear()
            self.requests.clear()
            self.rejections.clear()
            self._counters = {"reply": 0, "tool": 0}
        self.prompt_cache.clear()

    def cache_stats(self) -> dict[str, int]:
        """Usage summed over every answered request: input, cache creation and cache read
        tokens, and the number of requests counted."""
        with self._lock:
            reported = [r.usage for r in self.requests if r.usage is not None]
        totals = {"requests": len(reported)}
        for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
            totals[name] = sum(usage.get(name, 0) for usage in reported)
        return totals

    # --- answering -----------------------------------------------------------------------

    def _answer(self, http: RequestHandler) -> None:
        received_at = time.perf_counter()
        path = urlsplit(http.path).path
        try:
            raw = http.read_body()
        except BodyCut:
            http.drop()  # the caller cancelled mid-send: no request reached the API
            return
        if path.endswith("/v1/messages/count_tokens"):
            self._count_tokens(http, raw)  # a helper call, not a model turn: not logged
            return
        wire: Wire = "openai" if path.endswith("/chat/completions") else "anthropic"
        body, parse_error = parse_body(raw)
        with self._lock:
            record = RecordedRequest(
                wire=wire,
                path=path,
                headers=http.header_map(),
                body=body,
                index=len(self.requests),
                stream=body.get("stream") is True,
                received_at=received_at,
            )
            self.requests.append(record)
        if self.latency_s and self._stopping.wait(self.latency_s):
            http.drop()
            return
        rejection = self._check(record, http.command, parse_error)
        turn = self._next_turn(record) if rejection is None else rejection
        if isinstance(turn, Rejection):
            with self._lock:
                record.status, record.error = turn.status, turn.message
                self.rejections.append(record)
            self._send_error(http, record, turn)
        elif isinstance(turn, HttpError):
            self._send_error(
                http, record, scripted_rejection(turn), turn.retry_after_ms, turn.retry_after
            )
        elif record.stream:
            self._stream_reply(http, record, turn)
        else:
            self._whole_reply(http, record, turn)
        record.answered_at = time.perf_counter()

    def _check(
        self, record: RecordedRequest, method: str, parse_error: str | None
    ) -> Rejection | None:
        known = record.path.endswith(("/v1/messages", "/chat/completions"))
        if method != "POST" or not known:
            return Rejection(f"Not Found: {method} {record.path}", 404, "not_found_error")
        rejection = self._check_auth(record)
        if rejection is None and parse_error is not None:
            rejection = Rejection(parse_error)
        if rejection is None:
            validate = validate_anthropic if record.wire == "anthropic" else validate_openai
            rejection = validate(record.body, self.context_window, self._factor(record.body))
        if rejection is None and record.wire == "anthropic":
            problem = self.signed.problem(record.body)
            rejection = None if problem is None else Rejection(problem)
        if rejection is None and self.output_in_window:
            factor = self._factor(record.body)
            rejection = output_past_window(record.body, self.context_window, factor)
        return rejection

    def _check_auth(self, record: RecordedRequest) -> Rejection | None:
        headers = record.headers
        bearer = headers.get("authorization", "")
        key = bearer[len("Bearer ") :].strip() if bearer.startswith("Bearer ") else ""
        if record.wire == "anthropic":
            key = headers.get("x-api-key", "") or key
        if key and (self.api_key is None or key == self.api_key):
            return None
        if record.wire == "anthropic":
            message = "invalid x-api-key" if key else "x-api-key header is required"
            return Rejection(message, 401, "authentication_error")
        if key:
            return Rejection(
                f"Incorrect API key provided: {key[:3]}***{key[-2:]}.",
                401,
                code="invalid_api_key",
            )
        return Rejection(
            "You didn't provide an API key. You need to provide your API key in an "
            "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
            401,
        )

    def _next_turn(self, record: RecordedRequest) -> Reply | HttpError | Rejection:
        with self._lock:
            turn = self._script.popleft() if self._script else self.responder
        if turn is None:
            return Rejection(f"FakeModelServer: no scripted turn left for request #{record.index}")
        for _ in range(MAX_CALLABLE_DEPTH):
            if isinstance(
                turn, Reply | HttpError | TextPart | ThinkingPart | ToolCallPart | WebSearchPart
            ):
                return searched_only_if_offered(record, as_reply_or_error(turn))
            try:
                turn = turn(record)
            # A failing script is a bug in the test: report it as a rejection the fixture shows,
            # rather than dropping the connection (which the SDK would retry, hiding it).
            except Exception as error:
                return Rejection(
                    f"FakeModelServer: scripted callable raised {type(error).__name__}: {error}"
                )
            if not is_turn(turn):
                return Rejection(f"FakeModelServer: scripted callable returned {turn!r}")
        return Rejection("FakeModelServer: scripted callables nest too deeply")

    def _tool_ids(self, wire: Wire, reply: Reply) -> list[str]:
        prefix = "toolu" if wire == "anthropic" else "call"
        ids: list[str] = []
        with self._lock:
            for call in reply.tool_calls():
                if call.id is None:
                    self._counters["tool"] += 1
                ids.append(call.id or f"{prefix}_{self._counters['tool']}")
        return ids

    def _next_reply_number(self) -> int:
        with self._lock:
            self._counters["reply"] += 1
            return self._counters["reply"]

    def _render(self, record: RecordedRequest, reply: Reply, *, stream: bool) -> Any:
        """The events of a streamed answer (list of bytes), or the whole answer (dict)."""
        usage = self._usage(record, reply)
        tool_ids = self._tool_ids(record.wire, reply)
        number = self._next_reply_number()
        if record.wire == "anthropic":
            self.signed.given(str(record.body.get("model", "")), reply)
        return rendered(
            record,
            reply,
            stream=stream,
            usage=usage,
            tool_ids=tool_ids,
            number=number,
            cache_details=self.openai_cache_details,
        )

    def _usage(self, record: RecordedRequest, reply: Reply) -> dict[str, int]:
        """The estimated usage with the simulated cache split; a scripted `usage` still wins."""
        cache = self.prompt_cache
        simulate = cache.anthropic if record.wire == "anthropic" else cache.openai
        split = simulate(record.body, self.prompt_tokens(record.body))
        usage = {**split.as_dict(), "output_tokens": estimate_output_tokens(reply)}
        if reply.usage:
            usage.update(reply.usage)
        record.usage = dict(usage)
        return usage

    def _stream_reply(self, http: RequestHandler, record: RecordedRequest, reply: Reply) -> None:
        if reply.stall_after == 0:
            http.hold_silent(self._stopping)
            return
        events: list[bytes] = self._render(record, reply, stream=True)
        # A cut never delivers the final event (message_stop / [DONE]).
        count = len(events)
        if reply.cut_after is not None or reply.stream_error is not None:
            default = 1 if reply.stream_error is not None else count
            count = min(reply.cut_after if reply.cut_after is not None else default, count - 1)
        http.start_stream(request_id_header(record))
        sent = 0
        for position, event in enumerate(events[:count]):
            if position and reply.delay_s and self._stopping.wait(reply.delay_s):
                http.drop()
                return
            http.send_chunk(event)
            sent += len(event)
            if self.on_streamed is not None:
                self.on_streamed(sent)
            if position + 1 == reply.stall_after:
                keepalive = _KEEPALIVE[record.wire] if reply.stall_pings_s else b""
                http.hold_silent(self._stopping, keepalive, reply.stall_pings_s)
                return
        if reply.stream_error is not None:
            message = DEFAULT_ERROR_MESSAGE[reply.stream_error]
            wire = anthropic_wire if record.wire == "anthropic" else openai_wire
            http.send_chunk(wire.error_event(reply.stream_error, message))
        elif reply.cut_after is not None and not reply.clean_cut:
            http.drop()
            return
        http.end_stream()

    def _whole_reply(self, http: RequestHandler, record: RecordedRequest, reply: Reply) -> None:
        if reply.stream_error is not None:
            status = ERROR_STATUS[reply.stream_error]
            message = DEFAULT_ERROR_MESSAGE[reply.stream_error]
            self._send_error(http, record, Rejection(message, status, reply.stream_error))
            return
        if reply.delay_s and self._stopping.wait(reply.delay_s):
            http.drop()
            return
        if reply.stall_after is not None:
            http.hold_silent(self._stopping)
            return
        if reply.cut_after is not None:
            http.send_headers_then_drop(request_id_header(record))
            return
        http.send_json(200, self._render(record, reply, stream=False), request_id_header(record))

    def _send_error(
        self,
        http: RequestHandler,
        record: RecordedRequest,
        rejection: Rejection,
        retry_after_ms: float = 0.0,
        retry_after: str | None = None,
    ) -> None:
        http.send_json(*error_reply(record, rejection, retry_after_ms, retry_after))

    def _count_tokens(self, http: RequestHandler, raw: bytes) -> None:
        body, _ = parse_body(raw)
        http.send_json(200, {"input_tokens": self.prompt_tokens(body)})

    def prompt_tokens(self, body: Mapping[str, Any]) -> int:
        """How many tokens this endpoint counts the prompt of a request with `body` as."""
        return estimate_prompt_tokens(body, self._factor(body))

    def _factor(self, body: Mapping[str, Any]) -> float:
        factor = self.token_factor
        return factor if isinstance(factor, float | int) else factor(body)
