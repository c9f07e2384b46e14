"""Context compaction: older exchanges replaced by a structured summary the model writes.

When the context the API reported for the last call reaches `policy.compact_at()` (a
session's: Claude Code's point, `compact_point.py`), the conversation before a cut point is
summarised and replaced; the recent exchanges stay verbatim, and the user's own earlier
prompts are carried over word for word by tether itself. The summary request reuses the cached
prefix: the same system prompt, tools and messages, with the instruction added at the end.
Micro-compaction (bulky old tool results) is in `micro.py`, the project memory file in
`memory.py`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from tether.core.carried import (
    EARLIER_PROMPT_MARK,
    OLDEST_LEFT_OUT,
    PLAN_MARK,
    SUMMARY_MARK,
    carried_prompts,
)
from tether.core.memory import append_memory, load_memory
from tether.core.message_size import message_chars
from tether.core.micro import CompactionPolicy, micro_compact
from tether.core.model_call import RetryPolicy, call_model
from tether.models.base import Model, ModelRequest
from tether.protocol import (
    ContentBlock,
    Event,
    Message,
    ModelError,
    ModelRetry,
    ModelWaiting,
    TextBlock,
    Usage,
)

__all__ = [
    "EARLIER_PROMPT_MARK",
    "PROMPTS_SHARE",
    "SUMMARY_INSTRUCTION",
    "SUMMARY_MARK",
    "CompactionPolicy",
    "append_memory",
    "compacted_messages",
    "cut_point",
    "cut_points",
    "is_prompt_too_long",
    "load_memory",
    "micro_compact",
    "needs_compaction",
    "plan_cut",
    "recent_part",
    "summarize",
    "summary_cut_points",
    "summary_instruction",
    "summary_request",
]

SUMMARY_INSTRUCTION = """\
The conversation so far is about to be replaced by a summary, to free context. Write that \
summary now, for yourself: you will continue the work from it alone, together with the most \
recent messages. Do not call any tools; answer with the summary only, in these sections:

## User requests and constraints
Every request, instruction, preference and constraint the user gave, quoted verbatim.

## Decisions
What was decided and why, including approaches tried and rejected.

## Files touched
Each file read, created or changed, with what was done to it and why it matters.

## Errors and fixes
Errors met (commands, tests, tools) and how each was fixed, or that it is still open.

## Plan state
The steps of the plan: done, in progress, still to do.

## Next step
The exact next action, in line with the user's most recent request."""

SUMMARY_END = "</summary of the earlier conversation>"
PROMPTS_SHARE = 0.1
"""Share of the window the user's earlier prompts may take in a compacted conversation."""
_LEFT_OUT = OLDEST_LEFT_OUT

_TOO_LONG_PHRASES = (
    "prompt is too long",
    "context length",
    "context_length_exceeded",
    "context window",
    "too many tokens",
    "input is too long",
    "maximum allowed number of bytes",
)


def needs_compaction(last_usage: Usage | None, policy: CompactionPolicy) -> bool:
    """Whether the context of the last call (as the API reported it) reached the point where
    the policy compacts (`CompactionPolicy.compact_at`)."""
    if last_usage is None:
        return False
    return last_usage.context_tokens >= policy.compact_at()


def cut_points(messages: Sequence[Message]) -> list[int]:
    """Every index where the kept tail may start: the prefix before it answers all its own tool
    calls and the tail answers none of them. That is just before a plain prompt (a user
    message with no tool results), or just after a user message whose results answer every
    call before it. Index 0 is not a cut: there would be nothing to summarise."""
    points: list[int] = []
    unanswered: set[str] = set()
    for index, message in enumerate(messages):
        starts_cleanly = message.role == "assistant" or not message.tool_results()
        if index > 0 and not unanswered and starts_cleanly:
            points.append(index)
        unanswered.update(use.id for use in message.tool_uses())
        unanswered.difference_update(r.tool_use_id for r in message.tool_results())
    return points


def summary_cut_points(messages: Sequence[Message]) -> list[int]:
    """The cut points a compaction may use: every one of `cut_points` but a cut just before
    the newest message when that is a user message. The summary would merge into it, and the
    newest message must stay whole and live (new content still merges into it): a fixed prompt
    filling most of the window made the planned cut fall there, and the compaction broke."""
    points = cut_points(messages)
    if points and points[-1] == len(messages) - 1 and messages[-1].role == "user":
        points.pop()
    return points


def cut_point(messages: Sequence[Message], keep_recent_exchanges: int) -> int | None:
    """Index where the kept tail starts, so that the last `keep_recent_exchanges` exchanges
    (stretches between cut points) stay verbatim; None when there is nothing to compact."""
    points = summary_cut_points(messages)
    keep = max(1, keep_recent_exchanges)
    if len(points) < keep:
        return None
    return points[-keep]


def plan_cut(
    messages: Sequence[Message], policy: CompactionPolicy, context_tokens: int
) -> int | None:
    """The cut for a compaction: keep the last `policy.keep_recent_exchanges` exchanges
    verbatim when they fit within `policy.target` of the window, else fewer, down to one, so
    a compaction frees enough room not to be followed by another a few turns later.

    Tail sizes are estimated by sharing `context_tokens` (what the API measured for the whole
    prompt) over the messages in proportion to their serialised length.
    """
    latest_allowed = cut_point(messages, policy.keep_recent_exchanges)
    if latest_allowed is None:
        return None
    points = [p for p in summary_cut_points(messages) if p >= latest_allowed]
    after = _suffix_sums([message_chars(m) for m in messages])
    total = after[0] or 1
    budget = policy.target * policy.window
    for point in points:
        if context_tokens * after[point] / total <= budget:
            return point
    return points[-1]


def recent_part(
    messages: Sequence[Message], size: Callable[[Message], int], budget: int
) -> tuple[Message, ...]:
    """The most recent part of `messages` whose `size` fits `budget`, starting at a cut point
    (so every call in it keeps its result), behind a note of how many messages were left out;
    `messages` itself when they all fit, and the last exchange alone when nothing smaller
    does. For a conversation too long for one request even with every block cut short.
    A compaction's summary at the start is kept beside the note: without it the model would
    go on knowing nothing of the earlier work (the caller cuts it short if need be)."""
    after = _suffix_sums([size(m) for m in messages])
    if after[0] <= budget:
        return tuple(messages)
    summary = _summary_blocks(messages[0]) if messages else ()
    # The head at its dearest: a message of its own (a part that starts with a reply), the
    # note's count at its longest. Merged into a prompt it costs less.
    note = TextBlock(text=_LEFT_OUT.format(count=len(messages)))
    head_cost = size(Message(role="user", content=(note, *summary)))
    points = cut_points(messages)
    start = points[-1] if points else 0
    for point in points:
        if after[point] + head_cost <= budget:
            start = point
            break
    head = (TextBlock(text=_LEFT_OUT.format(count=start)), *(summary if start else ()))
    tail = list(messages[start:])
    if tail and tail[0].role == "user":
        return (Message(role="user", content=(*head, *tail[0].content)), *tail[1:])
    return (Message(role="user", content=head), *tail)


def _summary_blocks(message: Message) -> tuple[TextBlock, ...]:
    """The summary a compaction put in `message`, if it is the compacted first message."""
    if message.role != "user":
        return ()
    return tuple(b for b in message.content if isinstance(b, TextBlock) and SUMMARY_MARK in b.text)


def _suffix_sums(sizes: Sequence[int]) -> list[int]:
    """`sums[i]` is the total of `sizes[i:]` (and `sums[len(sizes)]` is 0), in one backward
    pass: trying every cut point against a slice sum each would be quadratic, and resuming a
    history of a hundred thousand small messages would then take minutes."""
    sums = [0] * (len(sizes) + 1)
    for index in range(len(sizes) - 1, -1, -1):
        sums[index] = sums[index + 1] + sizes[index]
    return sums


def summary_instruction(focus: str | None = None) -> str:
    """`SUMMARY_INSTRUCTION`, with the user's focus ("/compact focus on X") when given."""
    if focus is None or not focus.strip():
        return SUMMARY_INSTRUCTION
    return f"{SUMMARY_INSTRUCTION}\n\nThe user asks the summary to focus on: {focus.strip()}"


def summary_request(
    base: ModelRequest, messages: Sequence[Message], focus: str | None
) -> ModelRequest:
    """The request that asks for the summary: `base` (same model, system prompt, tools and
    thinking, so the cached prefix is reused) with `messages` and the instruction at the end,
    merged into the trailing user message when the conversation ends with one."""
    instruction = TextBlock(text=summary_instruction(focus))
    history = list(messages)
    if history and history[-1].role == "user":
        last = history[-1]
        history[-1] = Message(role="user", content=(*last.content, instruction))
    else:
        history.append(Message(role="user", content=(instruction,)))
    return dataclasses.replace(base, messages=tuple(history))


def compacted_messages(
    messages: Sequence[Message],
    cut: int,
    summary: str,
    *,
    plan: str | None,
    prompt_chars: int = 60_000,
    extra: Sequence[TextBlock] = (),
) -> tuple[Message, ...]:
    """The conversation after a compaction: one user message (the summary, the user's own
    earlier prompts verbatim within `prompt_chars`, see `carried_prompts`, the plan state)
    followed by `messages[cut:]`. The summary is merged into the tail's first message when that
    is a user prompt, so roles alternate; `extra` (what SessionStart hooks added after the
    compaction) follows the summary.

    Raises ValueError when `cut` is not a cut point (see `cut_points`).
    """
    if cut not in cut_points(messages):
        raise ValueError(f"{cut} is not a point where the conversation can be cut")
    blocks: list[ContentBlock] = [
        TextBlock(
            text=(
                "This conversation was compacted to free context; the earlier part is "
                f"summarised here.\n{SUMMARY_MARK}\n{summary.strip()}\n{SUMMARY_END}"
            )
        )
    ]
    blocks.extend(carried_prompts(messages[:cut], prompt_chars))
    if plan is not None and plan.strip():
        blocks.append(TextBlock(text=PLAN_MARK + plan.strip()))
    blocks.extend(extra)
    tail = list(messages[cut:])
    if tail[0].role == "user":
        return (Message(role="user", content=(*blocks, *tail[0].content)), *tail[1:])
    return (Message(role="user", content=tuple(blocks)), *tail)


def compacted_from(
    messages: Sequence[Message], at: int, summary: str, *, prompt_chars: int = 60_000
) -> tuple[Message, ...]:
    """The conversation after the part from `messages[at]` (a user's prompt) on is summarised,
    the rewind menu's "summarize from here": `messages[:at]` verbatim, then one user message
    (the summary and the user's prompts of that part, see `carried_prompts`), then the newest
    reply, unchanged, so roles alternate and the newest message stays live.

    Raises ValueError when `at` is not where a prompt starts or nothing lies between it and
    the newest reply."""
    if at != 0 and at not in cut_points(messages):
        raise ValueError(f"{at} is not a point where the conversation can be cut")
    if not messages or messages[-1].role != "assistant" or at >= len(messages) - 1:
        raise ValueError("only a conversation whose newest message is a reply can be summarised")
    if messages[at].role != "user":
        raise ValueError(f"message {at} is not a prompt of the user's")
    blocks: list[ContentBlock] = [
        TextBlock(
            text=(
                "The rest of this conversation, from here on, was summarised to free context."
                f"\n{SUMMARY_MARK}\n{summary.strip()}\n{SUMMARY_END}"
            )
        )
    ]
    blocks.extend(carried_prompts(messages[at:-1], prompt_chars))
    return (*messages[:at], Message(role="user", content=tuple(blocks)), messages[-1])


async def summarize(
    model: Model,
    request: ModelRequest,
    *,
    spent: Callable[[Usage], None] | None = None,
    retry: RetryPolicy | None = None,
    emit: Callable[[Event], None] | None = None,
) -> str:
    """Stream the summary request and return the summary text. Raises ModelError when the call
    fails (after `retry`'s attempts; one without it) or yields no text; the caller then keeps the
    uncompacted history. `spent` is told what the call used, whatever its outcome once it
    answered; `emit` hears the retries and waits, not the summary's text."""

    def progress(event: Event) -> None:
        if emit is not None and isinstance(event, ModelRetry | ModelWaiting):
            emit(event)

    done = await call_model(model, request, progress, retry or RetryPolicy(max_attempts=1))
    if spent is not None:
        spent(done.usage)
    summary = done.message.text().strip()
    if not summary:
        raise ModelError("the model answered the summary request without any text")
    return summary


def is_prompt_too_long(error: ModelError) -> bool:
    """Whether the endpoint refused the request because the prompt does not fit its context
    (Anthropic "prompt is too long", OpenAI "context_length_exceeded"). Not HTTP 413: that
    is a request past the endpoint's size in bytes (images, attachments), which a prompt cut
    to the window in tokens does not cure; it is told as it is (`sdk_api_error`)."""
    if error.status not in (400, None):
        return False
    text = str(error).lower()
    return any(phrase in text for phrase in _TOO_LONG_PHRASES)
