"""The ledger's formula written again from its documentation, over the requests as the fake
server received them (wire format): what the tests expect the ledger to hold."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from tether.testing import RecordedRequest

SONNET = {"input": 2.0, "output": 10.0, "cache_write": 2.5, "cache_read": 0.2}
"""claude-sonnet-5-5's list prices per million tokens (the tests' default model)."""


@dataclass
class ToolCost:
    tool: str
    output_tokens: float = 0.0
    input_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def cost(self, rates: dict[str, float]) -> float:
        return (
            self.output_tokens * rates["output"]
            + self.input_tokens * rates["input"]
            + self.cache_read_tokens * rates["cache_read"]
            + self.cache_write_tokens * rates["cache_write"]
        ) / 1_000_000


@dataclass
class Expected:
    calls: dict[str, ToolCost] = field(default_factory=dict[str, ToolCost])


def _tokens(chars: int) -> int:
    return math.ceil(chars / 4)


def sized_blocks(messages: list[dict[str, Any]]) -> list[tuple[int, str | None]]:
    out: list[tuple[int, str | None]] = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            out.append((_tokens(len(content)), None))
            continue
        for block in content:
            match block["type"]:
                case "text":
                    out.append((_tokens(len(block["text"])), None))
                case "tool_use":
                    chars = len(block["name"]) + len(json.dumps(block["input"]))
                    out.append((_tokens(chars), None))
                case "tool_result":
                    inner = block.get("content", "")
                    if not isinstance(inner, str):
                        inner = "".join(part.get("text", "") for part in inner)
                    out.append((_tokens(len(inner)), block["tool_use_id"]))
                case other:
                    raise AssertionError(f"a block the reference does not size: {other}")
    return out


def charges_in(
    request: RecordedRequest, anchors: dict[int, int] | None = None
) -> dict[str, tuple[int, int, int]]:
    """What each result in `request` took up of it: (cache read, cache write, plain).
    `anchors`: where earlier requests' cache writes ended (tokens from the prompt's start) and
    how many blocks there were then; this request's is added."""
    usage = request.usage
    assert usage is not None
    read = usage.get("cache_read_input_tokens", 0)
    written = usage.get("cache_creation_input_tokens", 0)
    prompt = usage["input_tokens"] + read + written
    blocks = sized_blocks(request.messages())
    return charges_of(blocks, prompt, read, written, {} if anchors is None else anchors)


def charges_of(
    blocks: list[tuple[int, str | None]],
    prompt: int,
    read: int,
    written: int,
    anchors: dict[int, int],
) -> dict[str, tuple[int, int, int]]:
    """The rule block by block, for blocks of these sizes (and the calls they answer)."""
    # The blocks end where the cache write ends (the newest block carries the breakpoint),
    # else at the prompt's end; a read of what an earlier write cached ends at that block.
    last = (read + written) if written else prompt
    if read in anchors:
        read = max(0, last - sum(size for size, _ in blocks[anchors[read] :]))
    if written:
        anchors[last] = len(blocks)
    top = last if written else read
    written = max(0, top - read)
    charges: dict[str, tuple[int, int, int]] = {}
    end = last
    for size, call_id in reversed(blocks):
        start, block_end = end - size, end
        end = start
        if call_id is None or block_end <= 0:
            continue
        start = max(0, start)
        charges[call_id] = (
            max(0, min(block_end, read) - start),
            max(0, min(block_end, read + written) - max(start, read)),
            max(0, block_end - max(start, read + written)),
        )
    return charges


def expected_tools(requests: list[RecordedRequest]) -> Expected:
    """Each tool call's charges over one agent's requests, in order."""
    expected = Expected()
    anchors: dict[int, int] = {}
    for index, request in enumerate(requests):
        for call_id, (in_read, in_write, plain) in charges_in(request, anchors).items():
            charge = expected.calls[call_id]
            charge.cache_read_tokens += in_read
            charge.cache_write_tokens += in_write
            charge.input_tokens += plain
        calls = reply_calls(requests, index)
        output = request.usage["output_tokens"]  # type: ignore[index]
        for call_id, name in calls:
            expected.calls[call_id] = ToolCost(name, output / len(calls))
    return expected


def reply_calls(requests: list[RecordedRequest], index: int) -> list[tuple[str, str]]:
    """The tool calls of the reply to `requests[index]`, by id and name: that reply is the
    assistant message the next request adds (none after the last, which ends the turn)."""
    if index + 1 == len(requests):
        return []
    reply = requests[index + 1].messages()[len(requests[index].messages())]
    assert reply["role"] == "assistant"
    return [(b["id"], b["name"]) for b in reply["content"] if b["type"] == "tool_use"]
