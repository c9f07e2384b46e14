"""The SDK client's `get_context_usage` request, answered in the shape of Claude Code's
`SDKControlGetContextUsageResponse`: what the context holds by category (the free space and
the free space too), the skills and commands listed, the messages by kind. The total is the
API's measure of the last request once there is one (`apiUsage`); the parts, and the total
before any request, are estimates: characters over a fixed ratio."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from tether.core.compact_point import compact_point
from tether.core.message_size import message_chars
from tether.protocol import ToolResultBlock, ToolUseBlock
from tether.tools.tool_search import SEARCH_TOOL

if TYPE_CHECKING:
    from tether.cli.stream_json import StreamJsonFrontEnd
    from tether.protocol import Message

CHARS_PER_TOKEN = 4


def _tokens(chars: int) -> int:
    return chars // CHARS_PER_TOKEN


async def context_usage(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    built = await front.session()
    session = built.session
    agent = session.agent
    specs = agent.tools.specs()
    system = _tokens(len(agent.system_prompt))
    tools = _tokens(len(json.dumps([t.model_dump() for t in specs])))
    skill_tokens = [(s, _tokens(len(s.name) + len(s.description))) for s in session.skills.listed()]
    skills = [{"name": s.name, "source": str(s.source), "tokens": n} for s, n in skill_tokens]
    listed_skills = sum(n for _, n in skill_tokens)
    estimated = _tokens(sum(message_chars(m) for m in session.messages))
    api = session.last_usage
    # As Claude Code: once the API has measured the context, its figure (the last request's
    # input, cache writes and reads) is the total, and the messages are what the rest does
    # not account for; before the first request, every part is estimated.
    settled = system + tools + listed_skills
    total = api.context_tokens if api is not None else settled + estimated
    if api is not None and total < settled:
        # The estimates overshoot what was measured (a small prompt, a model whose tokens
        # are longer): they are scaled to it, so that the parts still make the total.
        system, tools, listed_skills = (
            part * total // settled for part in (system, tools, listed_skills)
        )
        settled = system + tools + listed_skills
    messages = total - settled if api is not None else estimated
    window = built.context_window
    policy = agent.compaction.policy if agent.compaction is not None else None
    # Claude Code's figure leaves CLAUDE_AUTOCOMPACT_PCT_OVERRIDE out, though compaction
    # follows it (measured: 167000 on a 200k window with an override of 50).
    threshold = compact_point(window, agent.max_tokens) if policy is not None else None
    categories = [
        *([_category("system_prompt", "System prompt", system, "promptBorder")] if system else []),
        _category("system_tools", "System tools", tools, "inactive"),
        *([_category("skills", "Skills", listed_skills, "warning")] if listed_skills else []),
        _category("messages", "Messages", messages, "purple_FOR_SUBAGENTS_ONLY"),
        # Claude Code lists no compaction buffer while compaction is on: the window less
        # what is used is free.
        _category("free_space", "Free space", max(0, window - total), "promptBorder", "free"),
    ]
    searching = any(spec.name == SEARCH_TOOL for spec in specs)
    breakdown = _breakdown(session.messages)
    if api is not None:
        breakdown["unattributedTokens"] = max(0, messages - _attributed(breakdown))
    # Claude Code's keys in its order.
    reply: dict[str, Any] = {
        "categories": categories,
        "totalTokens": total,
        "maxTokens": window,
        "rawMaxTokens": window,
        # Claude Code says "auto" whatever sets the point (its window, an override) and
        # whether compaction is on at all.
        "autocompactSource": "auto",
        "percentage": _whole_percent(total, window),
        "gridRows": [],
        "model": built.shown_model(),
        "memoryFiles": [],
        "mcpTools": [],
        "toolSearch": (
            {"enabled": True, "mode": "tst", "reason": "tst_enabled"}
            if searching
            else {"enabled": False, "mode": "standard", "reason": "not_registered"}
        ),
        # tether puts no MCP server's `instructions` in the prompt: none to count.
        "mcpInstructions": [],
        "agents": [],
        "slashCommands": {
            "totalCommands": len(session.commands),
            "includedCommands": len(session.commands),
            "tokens": 0,
        },
        "skills": {
            "totalSkills": len(skills),
            "includedSkills": len(skills),
            "tokens": listed_skills,
            "skillFrontmatter": skills,
        },
    }
    if threshold is not None:
        reply["autoCompactThreshold"] = threshold
    reply["isAutoCompactEnabled"] = policy is not None
    reply["messageBreakdown"] = breakdown
    reply["apiUsage"] = (
        None
        if api is None
        else {
            "input_tokens": api.input_tokens,
            "output_tokens": api.output_tokens,
            "cache_creation_input_tokens": api.cache_creation_input_tokens,
            "cache_read_input_tokens": api.cache_read_input_tokens,
        }
    )
    return reply


def _whole_percent(total: int, window: int) -> int:
    """The share of the window used, rounded to a whole percent half up (Claude Code's
    `Math.round`: 82.3 is 82, 5.85 is 6)."""
    return math.floor(100 * total / window + 0.5) if window else 0


def _attributed(breakdown: dict[str, Any]) -> int:
    return sum(
        breakdown[key]
        for key in (
            "toolCallTokens",
            "toolResultTokens",
            "attachmentTokens",
            "assistantMessageTokens",
            "userMessageTokens",
        )
    )


def _category(
    kind_id: str, name: str, tokens: int, color: str, kind: str = "used"
) -> dict[str, Any]:
    return {"id": kind_id, "name": name, "tokens": tokens, "color": color, "kind": kind}


def _breakdown(messages: list[Message] | tuple[Message, ...]) -> dict[str, Any]:
    """The messages' tokens by kind: calls, results, the assistant's and the user's words."""
    calls = results = assistant = user = 0
    by_tool: dict[str, list[int]] = {}
    names: dict[str, str] = {}
    for message in messages:
        for block in message.content:
            size = _tokens(len(json.dumps(block.model_dump(mode="json"), ensure_ascii=False)))
            if isinstance(block, ToolUseBlock):
                calls += size
                names[block.id] = block.name
                by_tool.setdefault(block.name, [0, 0])[0] += size
            elif isinstance(block, ToolResultBlock):
                results += size
                by_tool.setdefault(names.get(block.tool_use_id, "?"), [0, 0])[1] += size
            elif message.role == "assistant":
                assistant += size
            else:
                user += size
    return {
        "toolCallTokens": calls,
        "toolResultTokens": results,
        "attachmentTokens": 0,
        "assistantMessageTokens": assistant,
        "userMessageTokens": user,
        "redirectedContextTokens": 0,
        "unattributedTokens": 0,
        "toolCallsByType": [
            {"name": name, "callTokens": c, "resultTokens": r} for name, (c, r) in by_tool.items()
        ],
        "attachmentsByType": [],
    }
