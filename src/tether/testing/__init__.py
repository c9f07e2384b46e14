"""tether's test kit: a fake model server that the real SDKs talk to, and script builders.

    from tether.testing import FakeModelServer, text, tool_use

    with FakeModelServer() as server:
        server.script(tool_use("Bash", command="echo hi"), text("done"))
        ...  # point ANTHROPIC_BASE_URL at server.url, OPENAI_BASE_URL at server.openai_base_url

Standard library only, so it starts in milliseconds (used by `tether demo` and benchmarks).
The pytest fixtures `fake_model` and `model_env` come from `tether.testing.pytest_plugin`.
"""

from tether.testing.recorded import RecordedRequest
from tether.testing.script import (
    HttpError,
    Reply,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    Turn,
    http_error,
    raw_tool_use,
    reply,
    text,
    thinking,
    tool_use,
    web_search,
)
from tether.testing.server import FakeModelServer

__all__ = [
    "FakeModelServer",
    "HttpError",
    "RecordedRequest",
    "Reply",
    "TextPart",
    "ThinkingPart",
    "ToolCallPart",
    "Turn",
    "http_error",
    "raw_tool_use",
    "reply",
    "text",
    "thinking",
    "tool_use",
    "web_search",
]
