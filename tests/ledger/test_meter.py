"""The meter alone: how a request's billing splits a result's span, and a compaction."""

from __future__ import annotations

import random

import pytest

from tether.ledger import ConversationMeter, Rates
from tether.ledger.meter import Billed
from tether.ledger.spans import ResultCharges
from tether.protocol import Message, ToolResultBlock, ToolUseBlock, Usage

from .formula import charges_of

RATES = Rates(input=1.0, output=10.0, cache_write=2.0, cache_read=0.5)


def _call(call_id: str) -> Message:
    block = ToolUseBlock(id=call_id, name="Grep", input={"pattern": "x"})
    return Message(role="assistant", content=(block,))


def _result(call_id: str, chars: int) -> Message:
    return Message(
        role="user", content=(ToolResultBlock(tool_use_id=call_id, content="r" * chars),)
    )


def test_a_result_straddling_the_rates_and_gone_after_a_compaction() -> None:
    meter = ConversationMeter()
    meter.add(Message(role="user", content=(ToolResultBlock(tool_use_id="x", content=""),)))
    asked = meter.reply(_call("a"), Usage(input_tokens=5, output_tokens=30), RATES)
    assert [(a.call_id, a.tool, a.output_tokens) for a in asked.asked] == [("a", "Grep", 30)]
    meter.add(_result("a", 400))  # 100 tokens, the newest message: it ends the cache write
    # Prompt: 1000 tokens = 900 read, 60 written, 40 plain after the newest breakpoint (no
    # block of the conversation's): the result spans 860..960.
    usage = Usage(input_tokens=40, cache_creation_input_tokens=60, cache_read_input_tokens=900)
    charged = meter.reply(Message(role="assistant", content=()), usage, RATES)
    assert meter.take().billed() == {
        "a": Billed(
            cache_read_tokens=40,
            cache_write_tokens=60,
            cache_read_cost=40 * 0.5 / 1e6,
            cache_write_cost=60 * 2.0 / 1e6,
        )
    }
    assert charged.cost == pytest.approx((40 * 1.0 + 60 * 2.0 + 900 * 0.5) / 1e6)
    # Without a cache write the blocks end the prompt: the result 100 plain tokens.
    meter.reply(Message(role="assistant", content=()), Usage(input_tokens=1000), RATES)
    assert meter.take().billed()["a"].input_tokens == 100
    cached = Usage(cache_read_input_tokens=1000)
    meter.reply(Message(role="assistant", content=()), cached, RATES)  # all read from cache
    meter.compacted()
    meter.reply(Message(role="assistant", content=()), cached, RATES)
    # Charged in the request before the compaction only.
    assert meter.take().billed() == {
        "a": Billed(cache_read_tokens=100, cache_read_cost=100 * 0.5 / 1e6)
    }


def test_the_ranges_kept_apart_add_up_as_the_formula_block_by_block() -> None:
    """Random conversations: what `ResultCharges` gathers in O(log n) a request equals the
    formula applied to every block of every request (clipped spans, blocks across two edges,
    two sets of rates)."""
    rng = random.Random(15)
    for _ in range(200):
        charges = ResultCharges()
        blocks: list[tuple[int, str | None]] = []
        naive: dict[str, list[int]] = {}
        anchors: dict[int, int] = {}
        for step in range(rng.randint(1, 30)):
            size = rng.choice([0, 1, 3, 50, 400])
            call_id = f"c{step}" if rng.random() < 0.6 else None
            charges.append(size, call_id)
            blocks.append((size, call_id))
            if rng.random() < 0.5:
                continue
            total = sum(size for size, _ in blocks)
            prompt = max(0, total + rng.randint(-200, 300))
            read = rng.randint(0, prompt)
            written = rng.randint(0, prompt - read)
            rates = rng.choice([RATES, Rates(1, 1, 1, 1)])
            if anchors and rng.random() < 0.3:  # reads what an earlier request wrote
                read = rng.choice(list(anchors))
                written = rng.randint(0, max(0, prompt - read))
            charges.bill(prompt, read, written, rates)
            for call_id, parts in charges_of(blocks, prompt, read, written, anchors).items():
                got = naive.setdefault(call_id, [0, 0, 0])
                for kind in range(3):
                    got[kind] += parts[kind]
        taken = charges.take().billed()
        expected = {k: v for k, v in naive.items() if sum(v) > 0}
        assert {
            k: [b.cache_read_tokens, b.cache_write_tokens, b.input_tokens] for k, b in taken.items()
        } == expected


def test_what_is_taken_is_priced_later_as_it_was_when_taken() -> None:
    # `take` hands over in O(1) and the writer's thread prices it later: requests, results
    # and a compaction after the take change nothing in what was taken.
    meter = ConversationMeter()
    meter.reply(_call("a"), Usage(input_tokens=5, output_tokens=30), RATES)
    meter.add(_result("a", 400))  # 100 tokens
    meter.reply(Message(role="assistant", content=()), Usage(input_tokens=1000), RATES)
    taken = meter.take()
    meter.reply(_call("b"), Usage(input_tokens=1200), RATES)
    meter.add(_result("b", 800))
    meter.reply(Message(role="assistant", content=()), Usage(input_tokens=1500), RATES)
    meter.compacted()
    meter.reply(Message(role="assistant", content=()), Usage(input_tokens=100), RATES)
    assert taken.billed() == {"a": Billed(input_tokens=100, input_cost=100 * 1.0 / 1e6)}
    later = meter.take().billed()
    assert later["a"].input_tokens == 200  # the two requests after the take, before compaction
    assert later["b"].input_tokens == 200
