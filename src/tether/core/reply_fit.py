"""The one step every request tether sends goes through before it leaves: its room for the
reply (`max_tokens`) cut to what the context window leaves after the prompt.

Endpoints such as vLLM count the reply's room in the window and refuse a request whose prompt
and `max_tokens` together pass it. The turn's requests, the compaction's summary request, and
the requests made aside (hook judges, MCP sampling) are all fitted here, the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.core.sizing import RequestSizer, with_reply_room
from tether.models.base import ModelRequest

if TYPE_CHECKING:
    from tether.core.loop import Agent


def fit_reply(
    agent: Agent, request: ModelRequest, sizer: RequestSizer | None = None
) -> ModelRequest:
    """`request` with `max_tokens` fitted to `agent`'s window (`sizer` estimates the prompt:
    the session's, calibrated by the API's answers, when there is one). Without a known window
    (no compaction), `request` as it is."""
    if agent.compaction is None:
        return request
    sizer = sizer or RequestSizer()
    return with_reply_room(request, sizer, sizer.window(agent.compaction.policy.window))
