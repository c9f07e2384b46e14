"""Cutting any block of a conversation down: text, tool input, tool results alike.

Used where what is sent must fit a window whatever the model or a tool produced (one reply of
a million characters, a tool call whose input is a whole file), and to drop the bulk of
messages no request sends again. A cut keeps the head and the tail of a string with a note of
how much was cut in between; the shape of every message stays (each call keeps its id, each
result its pairing, tool input stays a JSON object), so a shrunk transcript is as valid as the
original. Thinking blocks are never cut: their signatures would no longer match.

Cutting strings is not enough for every shape: a tool input of many small items (a plan of
5,000 entries, 40,000 keys, an array of 80,000 short strings) stays too big with each string
cut. Past that, the biggest inputs are replaced whole, biggest first, by a small object that
says what was there (`stub_input`): the call keeps its id and its result.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from tether.core.fold_calls import fold_exchanges
from tether.protocol import ContentBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock

MIN_CAP = 200
"""No string is cut shorter than this: the note alone takes about 60 characters."""
_CAP_STEPS = 12


def cut_middle(text: str, max_chars: int) -> str:
    """`text` cut to about `max_chars` characters: its head and tail, and a note of the cut."""
    if len(text) <= max_chars:
        return text
    # The note's number has at most as many digits as len(text): size the room with that.
    room = max(0, max_chars - len(_cut_note(len(text))))
    head = room * 2 // 3
    tail = room - head
    return text[:head] + _cut_note(len(text) - room) + (text[len(text) - tail :] if tail else "")


def shrink_message(message: Message, cap: int) -> Message:
    """`message` with every string of its blocks longer than `cap` cut (see `cut_middle`);
    the same object when nothing is that long."""
    blocks = tuple(_shrink_block(block, cap) for block in message.content)
    if all(a is b for a, b in zip(blocks, message.content, strict=True)):
        return message
    return Message(role=message.role, content=blocks)


def shrink_to_fit(
    messages: Sequence[Message], size: Callable[[Message], int], budget: int
) -> tuple[tuple[Message, ...], bool]:
    """`messages` with their longest strings cut to one common cap, about the largest that
    brings their total `size` within `budget`, and whether it does. When even `MIN_CAP` is
    not enough, every string is cut to it and the second value is False.

    The cap is found from string lengths alone, then checked with `size` (JSON escapes make
    a cut string take more room than its characters): only the messages a cap changes are
    measured again, a few times at most."""
    sized = [(m, size(m)) for m in messages]
    total = sum(n for _, n in sized)
    if total <= budget:
        return tuple(messages), True
    lengths = sorted((n for m in messages for n in _string_lengths(m)), reverse=True)
    cap = _cap_for(lengths, total - budget)
    for attempt in range(_CAP_STEPS):
        shrunk = [(s, n) if (s := shrink_message(m, cap)) is m else (s, size(s)) for m, n in sized]
        over = sum(n for _, n in shrunk) - budget
        if over <= 0:
            return tuple(m for m, _ in shrunk), True
        if cap <= MIN_CAP:
            return _stubbed(shrunk, size, budget)
        # Notes and JSON escapes took more room than the lengths said: lower the cap by what
        # is still over, shared among the strings it cuts (later, by a third, to converge).
        cut = sum(1 for n in lengths if n > cap) or 1
        step = over // cut + 1 if attempt < _CAP_STEPS // 2 else cap // 3
        cap = max(MIN_CAP, cap - step)
    smallest = [(s, size(s)) for s in (shrink_message(m, MIN_CAP) for m, _ in sized)]
    return _stubbed(smallest, size, budget)


def stub_input(tool_input: Mapping[str, Any]) -> dict[str, Any]:
    """What a tool input too big to send becomes: a valid input object saying it was cut."""
    chars = len(json.dumps(tool_input, ensure_ascii=False))
    return {"note": _STUB_NOTE.format(chars=chars, keys=_key_list(tool_input))}


_STUB_NOTE = (
    "[this call's input ({chars:,} characters of JSON; keys: {keys}) was cut whole to fit the "
    "context window]"
)


def _key_list(tool_input: Mapping[str, Any]) -> str:
    keys = list(tool_input)
    shown = ", ".join(str(k)[:40] for k in keys[:5])
    return shown + (f" and {len(keys) - 5:,} more" if len(keys) > 5 else "")


def _stubbed(
    sized: list[tuple[Message, int]], size: Callable[[Message], int], budget: int
) -> tuple[tuple[Message, ...], bool]:
    """Messages already cut to `MIN_CAP` with their biggest tool inputs replaced by stubs,
    biggest first, until they fit `budget` (or none is left to replace); whether they fit."""
    over = sum(n for _, n in sized) - budget
    inputs = sorted(
        (
            (len(json.dumps(block.input, ensure_ascii=False)), index, block.id)
            for index, (message, _) in enumerate(sized)
            for block in message.content
            if isinstance(block, ToolUseBlock) and block.input
        ),
        reverse=True,
    )
    stubbed = list(sized)
    for chars, index, call_id in inputs:
        if over <= 0 or chars <= len(_STUB_NOTE) * 2:
            break
        message, before = stubbed[index]
        blocks = tuple(
            b.model_copy(update={"input": stub_input(b.input), "raw_input": None})
            if isinstance(b, ToolUseBlock) and b.id == call_id
            else b
            for b in message.content
        )
        replaced = Message(role=message.role, content=blocks)
        after = size(replaced)
        stubbed[index] = (replaced, after)
        over -= before - after
    if over > 0:  # many small calls: their ids and pairing alone are past the budget
        return fold_exchanges(stubbed, size, budget)
    return tuple(m for m, _ in stubbed), True


def _cap_for(lengths: list[int], excess: int) -> int:
    """The largest cap that removes at least `excess` characters from strings of `lengths`
    (longest first), or MIN_CAP."""
    removed_above = 0  # characters above the length of the string at `index`, for all before it
    for index in range(1, len(lengths) + 1):
        floor = lengths[index] if index < len(lengths) else 0
        # Lowering the cap from lengths[index - 1] to floor removes (that gap) * index more.
        gap = lengths[index - 1] - floor
        if removed_above + gap * index >= excess:
            cap = lengths[index - 1] - (excess - removed_above + index - 1) // index
            return max(MIN_CAP, cap)
        removed_above += gap * index
    return MIN_CAP


def _string_lengths(message: Message) -> list[int]:
    lengths: list[int] = []
    for block in message.content:
        match block:
            case TextBlock(text=text):
                lengths.append(len(text))
            case ToolResultBlock(content=content):
                lengths.append(len(content))
            case ToolUseBlock():
                lengths.extend(len(s) for s in _strings(block.input))
                if block.raw_input is not None:
                    lengths.append(len(block.raw_input))
            case _:
                pass
    return lengths


def _shrink_block(block: ContentBlock, cap: int) -> ContentBlock:
    match block:
        case TextBlock(text=text) if len(text) > cap:
            return TextBlock(text=cut_middle(text, cap))
        case ToolResultBlock(content=content) if len(content) > cap:
            return block.model_copy(update={"content": cut_middle(content, cap)})
        case ToolUseBlock():
            changes: dict[str, Any] = {}
            shrunk = _shrink_value(block.input, cap)
            if shrunk is not block.input:
                changes["input"] = shrunk
            if block.raw_input is not None and len(block.raw_input) > cap:
                changes["raw_input"] = cut_middle(block.raw_input, cap)
            return block.model_copy(update=changes) if changes else block
        case _:
            return block


def _strings(value: Any) -> list[str]:
    found: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, Mapping):
            stack.extend(cast(Mapping[Any, Any], item).values())
        elif isinstance(item, list | tuple):
            stack.extend(cast(Sequence[Any], item))
    return found


def _shrink_value(value: Any, cap: int) -> Any:
    """Tool input with its long string values cut; the same object when none is long. Keys
    are kept whole: they name the tool's parameters."""
    if not any(len(s) > cap for s in _strings(value)):
        return value
    # Post-order without recursion: tool input may be nested as deep as the model likes.
    done: dict[int, Any] = {}
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, expanded = stack.pop()
        if isinstance(item, str):
            done[id(item)] = cut_middle(item, cap)
        elif isinstance(item, Mapping | list | tuple) and not expanded:
            stack.append((item, True))
            children = (
                cast(Mapping[Any, Any], item).values()
                if isinstance(item, Mapping)
                else cast(Sequence[Any], item)
            )
            stack.extend((child, False) for child in children)
        elif isinstance(item, Mapping):
            pairs = cast(Mapping[Any, Any], item).items()
            done[id(item)] = {k: _done(done, v) for k, v in pairs}
        elif isinstance(item, list | tuple):
            done[id(item)] = [_done(done, child) for child in cast(Sequence[Any], item)]
    return _done(done, value)


def _done(done: dict[int, Any], item: Any) -> Any:
    return done.get(id(item), item) if isinstance(item, str | Mapping | list | tuple) else item


def _cut_note(cut: int) -> str:
    return f"\n[... {cut:,} characters cut here to fit the context window ...]\n"
