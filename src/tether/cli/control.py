"""Claude Code's control protocol, the channel itself: requests each way over the stream-json
lines, matched to their responses by id.

tether asks the client (`can_use_tool`, `hook_callback`, `mcp_message`) with `request`, which
waits for the client's `control_response`; the client's own requests are answered with
`respond` or `refuse`. What each request means is the front end's business
(`tether.cli.stream_json`).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any, cast

Line = dict[str, Any]


class ClientRefused(Exception):
    """The client answered a request with an error (its message), or went away."""


class Refused(Exception):
    """A request of the client's cannot be done; the message says why (its error answer)."""


class ControlChannel:
    """Requests to the client and their responses; answers to the client's requests."""

    def __init__(self, write: Callable[[Line], None]) -> None:
        self._write = write
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._closed: str | None = None

    async def request(self, body: dict[str, Any]) -> dict[str, Any]:
        """Send a `control_request` and wait for its response. Raises `ClientRefused` when the
        client answers with an error or the channel closes first; when the waiting task is
        cancelled, the client is told (`control_cancel_request`)."""
        if self._closed is not None:
            raise ClientRefused(self._closed)
        request_id = str(uuid.uuid4())
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        self._write({"type": "control_request", "request_id": request_id, "request": body})
        try:
            return await future
        except asyncio.CancelledError:
            if self._closed is None:
                self._write({"type": "control_cancel_request", "request_id": request_id})
            raise
        finally:
            self._waiting.pop(request_id, None)

    def received(self, line: Line) -> None:
        """A `control_response` from the client: wake the request it answers (a stale or
        unknown id is ignored)."""
        response = line.get("response")
        if not isinstance(response, dict):
            return
        response = cast(dict[str, Any], response)
        future = self._waiting.get(str(response.get("request_id")))
        if future is None or future.done():
            return
        if response.get("subtype") == "error":
            future.set_exception(ClientRefused(str(response.get("error") or "the client failed")))
            return
        body = response.get("response")
        future.set_result(cast(dict[str, Any], body) if isinstance(body, dict) else {})

    def respond(self, request_id: str, body: dict[str, Any] | None = None) -> None:
        """Answer one of the client's requests."""
        self._write(
            {
                "type": "control_response",
                "response": {
                    "subtype": "success",
                    "request_id": request_id,
                    "response": body or {},
                },
            }
        )

    def refuse(self, request_id: str, error: str) -> None:
        """Answer one of the client's requests with an error."""
        self._write(
            {
                "type": "control_response",
                "response": {"subtype": "error", "request_id": request_id, "error": error},
            }
        )

    def close(self, why: str) -> None:
        """The client is gone (its input ended): every waiting request fails with `why`."""
        self._closed = why
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(ClientRefused(why))
