"""The last resort of fitting a request: tool exchanges folded into notes.

Cutting strings and stubbing inputs leaves every call its id, name and pairing; a reply of a
few hundred parallel calls can be past a small window on that overhead alone. Then whole
exchanges are folded, biggest first: the assistant's calls become one text note naming them,
and their results one text note saying how many there were and how many failed. What is
left is a plain transcript (no call without its result, no result without its call), so a
request made of it is as valid as the original, and always fits while the turn's prompt does.
Only the request is folded: the history keeps every call and result.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from tether.protocol import ContentBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock


def fold_exchanges(
    sized: list[tuple[Message, int]], size: Callable[[Message], int], budget: int
) -> tuple[tuple[Message, ...], bool]:
    """`sized` (each message with its `size`) with the tool exchanges of the biggest
    assistant messages folded into notes until the total fits `budget`; whether it does."""
    messages = [m for m, _ in sized]
    sizes = [n for _, n in sized]
    over = sum(sizes) - budget
    weight: dict[int, int] = {}
    owner: dict[str, int] = {}
    for index, message in enumerate(messages):
        for block in message.content:
            if isinstance(block, ToolUseBlock):
                owner[block.id] = index
                weight[index] = sizes[index]
            elif isinstance(block, ToolResultBlock) and block.tool_use_id in owner:
                weight[owner[block.tool_use_id]] += sizes[index] // max(1, len(message.content))
    for index in sorted(weight, key=lambda i: -weight[i]):
        if over <= 0:
            break
        calls = [b for b in messages[index].content if isinstance(b, ToolUseBlock)]
        ids = {b.id for b in calls}
        touched = {index} | {
            i
            for i, m in enumerate(messages)
            if any(isinstance(b, ToolResultBlock) and b.tool_use_id in ids for b in m.content)
        }
        for i in touched:
            messages[i] = _folded(messages[i], ids, calls)
            before, sizes[i] = sizes[i], size(messages[i])
            over -= before - sizes[i]
    return tuple(messages), over <= 0


def _folded(message: Message, ids: set[str], calls: Sequence[ToolUseBlock]) -> Message:
    named = ", ".join(f"{n} {name}" for name, n in Counter(c.name for c in calls).items())
    kept: list[ContentBlock] = []
    results: list[ToolResultBlock] = []
    for block in message.content:
        if isinstance(block, ToolUseBlock) and block.id in ids:
            continue
        if isinstance(block, ToolResultBlock) and block.tool_use_id in ids:
            results.append(block)
            continue
        kept.append(block)
    if message.role == "assistant":
        note = (
            f"[{len(calls)} tool calls made here ({named}) were folded into this note to fit "
            "the context window; their inputs are not shown]"
        )
        return Message(role="assistant", content=(*kept, TextBlock(text=note)))
    failed = sum(1 for r in results if r.is_error)
    note = (
        f"[the results of {len(results)} tool calls ({named}) were folded into this note to "
        f"fit the context window: {len(results) - failed} succeeded, {failed} failed; run "
        "again what is still needed]"
    )
    # Results come first in a user message: the note goes after any that are left.
    at = sum(1 for b in kept if isinstance(b, ToolResultBlock))
    return Message(role="user", content=(*kept[:at], TextBlock(text=note), *kept[at:]))
