"""A subagent started by a subagent: its spans hang under the outer subagent's Task call in
the turn's trace, its records name the outer subagent as the one that started it, and each
subagent span counts its own model calls."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.agents.conftest import MAIN, Router
from tether.observe.records import read_records
from tether.testing import FakeModelServer, reply, text, tool_use

from .otlp import spans
from .sink_server import SinkServer
from .test_otel_cli import _by_id, _env, _run

USAGE = {
    "input_tokens": 20,
    "output_tokens": 2,
    "cache_read_input_tokens": 0,
    "cache_creation_input_tokens": 0,
}


def test_a_nested_subagent_s_spans_stay_under_its_caller_s_task_call(
    fake_model: FakeModelServer,
    model_env: object,
    workspace: Path,
    sink_server: SinkServer,
) -> None:
    (workspace / "notes.txt").write_text("the key is 7\n")
    routes = Router()
    routes.add(
        MAIN,
        reply(
            tool_use(
                "Task", description="delegate", prompt="outer-job: ask an explorer",
                subagent_type="general-purpose",
            ),
            usage=USAGE,
        ),
        reply(text("The key is 7."), usage=USAGE),
    )  # fmt: skip
    routes.add(
        "outer-job",
        reply(
            tool_use(
                "Task", description="explore", prompt="inner-job: read notes.txt",
                subagent_type="Explore",
            ),
            usage=USAGE,
        ),
        reply(text("7"), usage=USAGE),
    )  # fmt: skip
    routes.add(
        "inner-job",
        reply(tool_use("Read", file_path="notes.txt"), usage=USAGE),
        reply(text("7"), usage=USAGE),
    )
    routes.install(fake_model)
    result = _run(workspace, _env(sink_server), "-p", "key?", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    session_id = json.loads(result.stdout)["session_id"]

    found = spans(sink_server.received)
    ids = _by_id(found)
    [turn] = [s for s in found if s.name == "invoke_agent main"]
    assert {s.trace_id for s in found} == {turn.trace_id}
    [outer_call, inner_call] = sorted(
        (s for s in found if s.name == "execute_tool Task"), key=lambda s: s.start_ns
    )
    [outer] = [s for s in found if s.name == "invoke_agent general-purpose"]
    [inner] = [s for s in found if s.name == "invoke_agent Explore"]
    outer_id = outer.attributes["gen_ai.agent.id"]
    assert (outer_call.parent_id, outer.parent_id) == (turn.span_id, outer_call.span_id)
    assert inner_call.parent_id == outer.span_id
    assert inner.parent_id == inner_call.span_id
    assert inner.attributes["tether.parent_agent.id"] == outer_id
    assert inner.attributes["tether.agent.id"] == outer_id
    [read] = [s for s in found if s.name == "execute_tool Read"]
    assert read.parent_id == inner.span_id
    # each subagent span counts its own two model calls; the turn counts all six
    for span in (outer, inner):
        assert span.attributes["gen_ai.usage.input_tokens"] == 2 * 20, span.name
        chats = [s for s in found if s.name.startswith("chat ") and s.parent_id == span.span_id]
        assert len(chats) == 2, span.name
    assert turn.attributes["gen_ai.usage.input_tokens"] == 6 * 20
    for span in found:
        if span.parent_id:
            assert span.parent_id in ids, span.name

    # the event log: the inner subagent's start and end are the outer subagent's records
    home = Path(os.environ["TETHER_HOME"])
    records = [r for r in read_records(home) if r.session_id == session_id]
    started = {r.payload["agent_id"]: r.agent_id for r in records if r.kind == "subagent_started"}
    assert started == {outer_id: "main", inner.attributes["gen_ai.agent.id"]: outer_id}
