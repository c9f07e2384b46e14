"""Claude Code's metrics, under `tether.*`, from the event log's records.

| metric | unit | attributes (besides the session's) |
| --- | --- | --- |
| `tether.session.count` | count | |
| `tether.token.usage` | tokens | `type` (input, output, cacheRead, cacheCreation), `model` |
| `tether.cost.usage` | USD | `model` |
| `tether.lines_of_code.count` | count | `type` (added, removed) |
| `tether.commit.count` | count | |
| `tether.pull_request.count` | count | |
| `tether.code_edit_tool.decision` | count | `tool_name`, `decision`, `source`, `language` |
| `tether.active_time.total` | s | `type` (cli: the agent working on a turn) |

Every point carries `session.id` (unless `OTEL_METRICS_INCLUDE_SESSION_ID=false`),
`app.version` (with `OTEL_METRICS_INCLUDE_VERSION=true`), `tether.agent.id`, and
`tether.task.id` for a worker's or teammate's task. Called with the sink's lock held.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opentelemetry.metrics import Meter

from tether import __version__
from tether.observe.otel_config import OtelConfig
from tether.observe.otel_facts import (
    EDIT_TOOLS,
    Decision,
    SessionFacts,
    changed_lines,
    is_commit,
    is_pull_request,
    language_of,
    usage_of,
)
from tether.observe.records import EventRecord

_TOKEN_TYPES = (
    ("input_tokens", "input"),
    ("output_tokens", "output"),
    ("cache_read_input_tokens", "cacheRead"),
    ("cache_creation_input_tokens", "cacheCreation"),
)


class OtelMetrics:
    def __init__(self, meter: Meter, config: OtelConfig) -> None:
        self._config = config
        self._sessions = meter.create_counter(
            "tether.session.count", unit="count", description="Sessions started"
        )
        self._tokens = meter.create_counter(
            "tether.token.usage", unit="tokens", description="Tokens used, by type and model"
        )
        self._cost = meter.create_counter(
            "tether.cost.usage", unit="USD", description="Cost of the model calls, by model"
        )
        self._lines = meter.create_counter(
            "tether.lines_of_code.count", unit="count", description="Lines of code changed"
        )
        self._commits = meter.create_counter(
            "tether.commit.count", unit="count", description="Git commits made"
        )
        self._pull_requests = meter.create_counter(
            "tether.pull_request.count", unit="count", description="Pull requests created"
        )
        self._edit_decisions = meter.create_counter(
            "tether.code_edit_tool.decision",
            unit="count",
            description="Permission decisions on the code-editing tools",
        )
        self._active = meter.create_counter(
            "tether.active_time.total", unit="s", description="Time spent working on turns"
        )

    def session_opened(self, facts: SessionFacts) -> None:
        self._sessions.add(1, self._whose(facts.session_id, facts.agent_id, facts.task_id))

    def take(
        self,
        record: EventRecord,
        tool_input: Mapping[str, Any] | None,
        decision: Decision | None,
    ) -> None:
        p = record.payload
        match record.kind:
            case "message_completed":
                usage = p.get("usage")
                message: Mapping[str, Any] = p.get("message") or {}
                if usage is None or message.get("role") != "assistant":
                    return
                base = {**self._of(record), "model": str(p.get("model") or "")}
                counts = usage_of(usage)
                for field, kind in _TOKEN_TYPES:
                    if counts[field]:
                        self._tokens.add(counts[field], {**base, "type": kind})
                cost = float(p.get("cost_usd") or 0.0)
                if cost:
                    self._cost.add(cost, base)
            case "tool_finished":
                self._tool_finished(record, tool_input or {}, decision)
            case "turn_finished":
                seconds = int(p.get("duration_ms") or 0) / 1000
                if seconds > 0:
                    self._active.add(seconds, {**self._of(record), "type": "cli"})
            case _:
                return

    def _tool_finished(
        self, record: EventRecord, tool_input: Mapping[str, Any], decision: Decision | None
    ) -> None:
        p = record.payload
        name = str(p.get("name"))
        base = self._of(record)
        succeeded = not p.get("is_error") and p.get("denial") is None
        if name in EDIT_TOOLS and decision is not None:
            attributes = {
                **base,
                "tool_name": name,
                "decision": decision.decision,
                "source": decision.source,
            }
            if (language := language_of(tool_input)) is not None:
                attributes["language"] = language
            self._edit_decisions.add(1, attributes)
        if not succeeded:
            return
        diff, counted = p.get("diff"), p.get("diff_lines")
        if isinstance(counted, dict):  # a long diff, cut in the record: counted before
            added, removed = int(counted.get("added") or 0), int(counted.get("removed") or 0)  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        elif isinstance(diff, str) and diff:
            added, removed = changed_lines(diff)
        else:
            added = removed = 0
        if added:
            self._lines.add(added, {**base, "type": "added"})
        if removed:
            self._lines.add(removed, {**base, "type": "removed"})
        command = tool_input.get("command")
        if name == "Bash" and isinstance(command, str):
            if is_commit(command):
                self._commits.add(1, base)
            if is_pull_request(command):
                self._pull_requests.add(1, base)

    def _of(self, record: EventRecord) -> dict[str, str]:
        return self._whose(record.session_id, record.agent_id, record.task_id)

    def _whose(self, session_id: str, agent_id: str, task_id: str | None) -> dict[str, str]:
        attributes: dict[str, str] = {"tether.agent.id": agent_id}
        if self._config.include_session_id:
            attributes["session.id"] = session_id
        if self._config.include_version:
            attributes["app.version"] = __version__
        if task_id is not None:
            attributes["tether.task.id"] = task_id
        return attributes
