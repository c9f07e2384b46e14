"""What a headless run's stream-json output says: turns (the main agent's model calls), tool
calls by tool, tokens, cost; and the transcript condensed for a judge to read."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tether.evals.results import Tokens

_SHOWN = 2_000
"""Characters of one block a judge is shown; a long tool result is cut in the middle."""


@dataclass
class RunFacts:
    turns: int = 0
    tool_calls: dict[str, int] = field(default_factory=dict[str, int])
    tokens: Tokens = field(default_factory=Tokens)
    cost_usd: float = 0.0
    session_id: str | None = None
    stop_reason: str | None = None
    result_text: str | None = None
    subtype: str | None = None
    """The result's: `success`, or why the run stopped (`error_max_turns`...)."""
    is_error: bool = False
    finished: bool = False
    """Whether the run printed its result line (a killed run did not)."""


def parse_stream(lines: list[str]) -> RunFacts:
    """The facts of a stream-json run; lines that are not JSON objects are passed over."""
    facts = RunFacts()
    calls: set[str] = set()
    """The model calls: a reply's blocks come as lines of their own, with the reply's id."""
    for entry in _entries(lines):
        kind = entry.get("type")
        if kind == "system" and entry.get("subtype") == "init":
            facts.session_id = _str(entry.get("session_id"))
        elif kind == "assistant" and entry.get("parent_tool_use_id") is None:
            message = entry.get("message")
            reply_id = message.get("id") if isinstance(message, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            calls.add(str(reply_id) if reply_id else f"line {len(calls)}")
            for block in _blocks(entry):
                if block.get("type") == "tool_use":
                    name = str(block.get("name"))
                    facts.tool_calls[name] = facts.tool_calls.get(name, 0) + 1
        elif kind == "result":
            facts.finished = True
            facts.cost_usd = float(entry.get("total_cost_usd") or 0.0)
            facts.stop_reason = _str(entry.get("stop_reason")) or _str(entry.get("subtype"))
            facts.result_text = _str(entry.get("result"))
            facts.subtype = _str(entry.get("subtype"))
            facts.is_error = bool(entry.get("is_error"))
            facts.session_id = _str(entry.get("session_id")) or facts.session_id
            usage = entry.get("usage")
            if isinstance(usage, dict):
                facts.tokens = Tokens(
                    input=int(usage.get("input_tokens") or 0),  # type: ignore[arg-type]
                    output=int(usage.get("output_tokens") or 0),  # type: ignore[arg-type]
                    cache_read=int(usage.get("cache_read_input_tokens") or 0),  # type: ignore[arg-type]
                    cache_write=int(usage.get("cache_creation_input_tokens") or 0),  # type: ignore[arg-type]
                )
    facts.turns = len(calls)  # model calls (the result's `num_turns` counts user messages)
    return facts


def condensed(lines: list[str]) -> str:
    """The conversation as a judge reads it: the agent's words, each tool call and result."""
    out: list[str] = []
    for entry in _entries(lines):
        kind = entry.get("type")
        if kind not in ("assistant", "user") or entry.get("parent_tool_use_id") is not None:
            continue
        for block in _blocks(entry):
            match block.get("type"):
                case "text":
                    who = "AGENT" if kind == "assistant" else "USER"
                    out.append(f"{who}: {_cut(str(block.get('text', '')))}")
                case "tool_use":
                    args = json.dumps(block.get("input"), ensure_ascii=False)
                    out.append(f"TOOL CALL {block.get('name')}: {_cut(args)}")
                case "tool_result":
                    error = " (error)" if block.get("is_error") else ""
                    out.append(f"TOOL RESULT{error}: {_cut(_result_text(block.get('content')))}")
                case _:
                    pass
    return "\n".join(out)


def _entries(lines: list[str]) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            entries.append(value)  # type: ignore[arg-type]
    return entries


def _blocks(entry: dict[str, Any]) -> list[dict[str, Any]]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None  # type: ignore[union-attr]
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict)]  # type: ignore[misc]


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict)  # type: ignore[misc]
        )
    return ""


def _cut(text: str) -> str:
    if len(text) <= _SHOWN:
        return text
    half = _SHOWN // 2
    return f"{text[:half]} [... {len(text) - _SHOWN} characters ...] {text[-half:]}"


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None
