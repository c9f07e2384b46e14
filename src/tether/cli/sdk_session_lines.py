"""What the stream-json lines say of a session beyond its events (`SessionFacts`): the init
line, and a turn's result line (with what the session spent so far)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from tether import __version__
from tether.cli import sdk_api_error
from tether.cli.sdk_line_shapes import result_usage
from tether.cli.sdk_model_usage import ModelSpend
from tether.core.conversation import INTERRUPTED_MARK, INTERRUPTED_TOOLS_MARK
from tether.protocol import Message, SessionStarted, TurnFinished, Usage

Line = dict[str, Any]

CLAUDE_CODE_CONTRACT = "2.1.332"
"""The Claude Code release whose headless contract tether speaks: reported as
`claude_code_version` (the SDK reads it to know what the CLI supports), beside tether's own
`tether_version`."""

TERMINAL_REASONS = {
    "success": "completed",
    "error_max_turns": "max_turns",
    "error_max_budget_usd": "budget_exhausted",
    "error_max_structured_output_retries": "structured_output_retry_exhausted",
    "error_during_execution": "error",
}


ABORTED_BY_MARK = {
    INTERRUPTED_MARK: "aborted_streaming",
    INTERRUPTED_TOOLS_MARK: "aborted_tools",
}
"""An interrupted turn's `terminal_reason`, by the mark it leaves in the conversation: Claude
Code tells a client whether the model was answering or the tools were at work."""


def aborted_by(message: Message) -> str | None:
    """The `terminal_reason` an interrupt mark names; None for any other message."""
    if message.role != "user" or message.tool_results():
        return None
    return ABORTED_BY_MARK.get(message.text().strip())


@dataclass
class SessionFacts:
    """What the init line and the result report beyond the events."""

    permission_mode: str
    agents: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    slash_commands: tuple[str, ...] = ()
    mcp_servers: tuple[dict[str, str], ...] = ()
    context_window: int = 0
    max_output_tokens: int = 0
    api_key_source: str = "none"
    additional_directories: tuple[str, ...] = ()
    sandbox_enabled: bool = False
    max_turns: int | None = None
    max_budget_usd: float | None = None
    plugins: tuple[dict[str, str], ...] = ()
    """The session's plugins: name, path, source (`name@marketplace`), version."""
    provider: str = "anthropic"
    """The provider the session's model was resolved on."""
    model_names: Mapping[str, str] = field(default_factory=dict[str, str])
    """The names the init line and `modelUsage` give model ids: Claude Code's, with the
    user's `[1m]` (`ModelNames`); an id not here by itself."""
    model_id: str = ""
    """The model the session asks for now (an API error names it: a 404's model not found)."""
    endpoint: str | None = None
    """The base URL of the model's endpoint (a server error names a gateway's host)."""


def init_line(started: SessionStarted, facts: SessionFacts, session_id: str) -> Line:
    """The `system/init` line, as Claude Code writes it."""
    return {
        "type": "system",
        "subtype": "init",
        "cwd": started.cwd,
        "session_id": session_id,
        "tools": list(started.tools),
        "mcp_servers": list(facts.mcp_servers),
        "model": facts.model_names.get(started.model, started.model),
        "permissionMode": facts.permission_mode,
        "slash_commands": list(facts.slash_commands),
        "apiKeySource": facts.api_key_source,
        "claude_code_version": CLAUDE_CODE_CONTRACT,
        "tether_version": __version__,
        "output_style": "default",
        "agents": list(facts.agents),
        "skills": list(facts.skills),
        "plugins": list(facts.plugins),
        "uuid": str(uuid.uuid4()),
        "sandbox_enabled": facts.sandbox_enabled,
        "original_cwd": started.cwd,
        "additional_directories": list(facts.additional_directories),
    }


@dataclass(frozen=True)
class SessionSoFar:
    """What a result reports of the session up to now."""

    session_id: str
    cost_usd: float
    api_ms: int
    spend: ModelSpend
    """Per model: what the session spent, and the limits of its calls."""


def result_line(
    finished: TurnFinished,
    facts: SessionFacts,
    so_far: SessionSoFar,
    num_turns: int,
    structured: dict[str, Any] | None,
    aborted: str | None = None,
) -> Line:
    """The turn's `result` line, as Claude Code writes it; `aborted` is the terminal reason an
    interrupt's mark gave (`aborted_by`)."""
    line: Line = {
        "type": "result",
        "subtype": finished.subtype,
        "is_error": finished.is_error,
        "duration_ms": finished.duration_ms,
        "duration_api_ms": so_far.api_ms,
        "num_turns": num_turns,
        "stop_reason": finished.stop_reason,
        "session_id": so_far.session_id,
        "total_cost_usd": round(so_far.cost_usd, 6),
        "usage": result_usage(finished.usage),
        "modelUsage": so_far.spend.report(
            (facts.context_window, facts.max_output_tokens), facts.provider, facts.model_names
        ),
        "permission_denials": [
            {"tool_name": d.tool_name, "tool_use_id": d.tool_use_id, "tool_input": d.tool_input}
            for d in finished.permission_denials
        ],
        "uuid": str(uuid.uuid4()),
        # "": none, as Claude Code's for a prompt a hook stopped before it was sent.
        "terminal_reason": (finished.terminal_reason or None)
        if finished.terminal_reason is not None
        else (
            TERMINAL_REASONS[finished.subtype]
            if aborted is None or finished.subtype != "error_during_execution"
            else aborted
        ),
    }
    if finished.subtype == "success" or finished.api_error_status is not None:
        # As Claude Code: a turn that ran (its answer or an API error) says these; an error
        # subtype's result (a limit, the budget) has neither.
        line["api_error_status"] = None
        if finished.ttft_ms is not None:
            line["ttft_ms"] = finished.ttft_ms
    if finished.api_error_status is not None:
        line.update(sdk_api_error.result_fields(finished, facts.model_id, facts.endpoint))
    elif finished.is_error:
        # As Claude Code: an error subtype's result has no `result`; `errors` says what ended it.
        line["errors"] = [error_text(finished, facts)]
    else:
        line["result"] = finished.result
    if structured is not None:
        line["structured_output"] = structured
        # As Claude Code: the result is the answer itself, as compact JSON.
        line["result"] = json.dumps(structured, separators=(",", ":"), ensure_ascii=False)
    return line


def error_text(finished: TurnFinished, facts: SessionFacts) -> str:
    """The result's `errors[]` entry for a turn that ended in error."""
    if finished.subtype == "error_max_turns":
        return f"Reached maximum number of turns ({facts.max_turns})"
    if finished.subtype == "error_max_budget_usd":
        return f"Reached maximum budget (${js_number(facts.max_budget_usd or 0)})"
    return finished.error or finished.result or finished.subtype


def start_failure_line(error: str, session_id: str | None) -> Line:
    """The result line of a session that could not be built, as Claude Code writes it (no
    turn ran)."""
    return {
        "type": "result",
        "subtype": "error_during_execution",
        "duration_ms": 0,
        "duration_api_ms": 0,
        "is_error": True,
        "num_turns": 0,
        "stop_reason": None,
        "session_id": session_id or str(uuid.uuid4()),
        "total_cost_usd": 0,
        "usage": Usage().model_dump(),
        "modelUsage": {},
        "permission_denials": [],
        "uuid": str(uuid.uuid4()),
        "errors": [error],
    }


def js_number(value: float) -> str:
    """A number as JavaScript's `String()` writes it (`0.0001`, `5`, `1e-7`): Claude Code's
    figures are JavaScript's."""
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    if 1e-6 <= abs(value) < 1e21:
        return format(Decimal(repr(value)), "f")
    mantissa, exponent = repr(value).split("e")
    return f"{mantissa}e{int(exponent):+d}"
