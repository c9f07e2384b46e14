"""A model call the API refuses is a `chat` span with the conventions' `error.type`, under
the turn it ended."""

from __future__ import annotations

from pathlib import Path

from tether.testing import FakeModelServer, http_error

from .otlp import spans
from .sink_server import SinkServer
from .test_otel_cli import _env, _run


def test_a_refused_model_call_is_a_chat_span_with_its_error_type(
    fake_model: FakeModelServer, model_env: object, workspace: Path, sink_server: SinkServer
) -> None:
    fake_model.script(http_error(400, "bad request"))
    result = _run(workspace, _env(sink_server), "-p", "hi")
    assert result.exit_code != 0
    found = spans(sink_server.received)
    [turn] = [s for s in found if s.name == "invoke_agent main"]
    [chat] = [s for s in found if s.name.startswith("chat ")]
    assert chat.parent_id == turn.span_id
    assert chat.attributes["error.type"] == "invalid_request_error"
    assert chat.attributes["http.response.status_code"] == 400
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.status == 2  # ERROR
    assert turn.start_ns <= chat.start_ns <= chat.end_ns <= turn.end_ns
