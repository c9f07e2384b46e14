"""The SDK client's `get_context_usage` request, answered in the shape of Claude Code's
`SDKControlGetContextUsageResponse`: what the context holds by category (the free space and
the compaction buffer too), the skills and commands listed, the messages by kind. Estimates:
characters over a fixed ratio, as nothing here calls the model."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tether.core.compact_point import compact_point
from tether.core.message_size import message_chars
from tether.protocol import ToolResultBlock, ToolUseBlock

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
    system = _tokens(len(agent.system_prompt))
    tools = _tokens(len(json.dumps([t.model_dump() for t in agent.tools.specs()])))
    messages = _tokens(sum(message_chars(m) for m in session.messages))
    total = system + tools + messages
    window = built.context_window
    policy = agent.compaction.policy if agent.compaction is not None else None
    # Claude Code's figure leaves CLAUDE_AUTOCOMPACT_PCT_OVERRIDE out, though compaction
    # follows it (measured: 167000 on a 200k window with an override of 50).
    threshold = compact_point(window, agent.max_tokens) if policy is not None else None
    buffer = window - threshold if threshold is not None else 0
    categories = [
        _category("system_prompt", "System prompt", system, "promptBorder", "used"),
        _category("system_tools", "System tools", tools, "inactive", "used"),
        _category("messages", "Messages", messages, "purple_FOR_SUBAGENTS_ONLY", "used"),
    ]
    if buffer:
        categories.append(
            _category("autocompact_buffer", "Autocompact buffer", buffer, "inactive", "buffer")
        )
    free = max(0, window - total - buffer)
    categories.append(_category("free_space", "Free space", free, "promptBorder", "free"))
    skill_tokens = [(s, _tokens(len(s.name) + len(s.description))) for s in session.skills.listed()]
    skills = [{"name": s.name, "source": str(s.source), "tokens": n} for s, n in skill_tokens]
    reply: dict[str, Any] = {
        "categories": categories,
        "totalTokens": total,
        "maxTokens": window,
        "rawMaxTokens": window,
        "percentage": round(100 * total / window, 1) if window else 0.0,
        "gridRows": [],
        "model": built.shown_model(),
        "memoryFiles": [],
        "mcpTools": [],
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
            "tokens": sum(n for _, n in skill_tokens),
            "skillFrontmatter": skills,
        },
        "isAutoCompactEnabled": policy is not None,
        "messageBreakdown": _breakdown(session.messages),
        "apiUsage": None,  # the last call's usage is not kept apart from the session's
    }
    if threshold is not None:
        reply["autoCompactThreshold"] = threshold
        # Claude Code's word for a threshold set by the model's window, not by an override.
        reply["autocompactSource"] = "model-default"
    return reply


def _category(kind_id: str, name: str, tokens: int, color: str, kind: str) -> dict[str, Any]:
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
