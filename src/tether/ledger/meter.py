"""What each model call and each tool call cost one conversation (pure: no I/O).

A model call is priced by kind: plain input, cache reads, cache writes and output, each at
its own rate. A tool call's cost is what it made the session pay:

    cost(call) = output_rate * O / k
               + sum over every later request r of
                 read_rate * t_read(r) + write_rate * t_write(r) + input_rate * t_plain(r)

- `O / k`: the output tokens of the reply that asked for the call, shared equally between
  its `k` calls (what the model spent writing them).
- `t_*(r)`: the tokens the call's result took up in request `r`, split by how `r` was billed.
  A request's prompt is billed in order: its first `cache_read` tokens as cache reads, the next
  `cache_write` as cache writes, the rest (`input`) as plain input (tools, system, then the
  messages: a cache covers a prefix). A result's place in the prompt is counted from where
  the conversation's blocks end: it ends where the estimated tokens of everything after it
  begin (`E - after`) and starts its own size earlier; the part of that span inside each
  billed range is billed at that range's rate. `E` is the end of the cache write when the
  request wrote one (`cache_read + cache_write`: tether puts the newest breakpoint on the
  newest block, so what is billed after it is the request's own framing, no block), else the
  prompt's end (`P`). A cache read that ends where an earlier request's write ended read
  exactly the blocks there were then: its edge is put at that block boundary, not at an
  estimate (a few characters of framing a block, unseen in the estimate, would otherwise
  push a small result read from the cache past the edge, as plain input). Counting from the
  end needs no estimate of the tools and system prompt, which come first. An endpoint that
  reports no cache writes (OpenAI's automatic cache) is counted from the prompt's end.
- A block's size is estimated as its characters over `CHARS_PER_TOKEN` (rounded up), as no
  tokenizer is at hand: a result's content (an image in it `IMAGE_TOKENS`), a text's or a
  thought's text, a call's name and its input as JSON (`json.dumps`, default separators);
  spans are clipped to the prompt.
- A compaction takes the earlier messages out of the prompt: their results cost nothing in
  the requests after it (those it kept whole go on costing).

A model call's cache reads are the endpoint's count. An OpenAI-compatible endpoint that says
nothing of them (no `prompt_tokens_details.cached_tokens`: `Usage.cache_reads_unsaid`) is
priced as it answered, its whole prompt plain input: the session's own total (`-p` json,
`/cost`) counts it so, and one session has one price. What OpenAI's automatic cache would
have saved is estimated apart (`Charged.possible_saving`, shown as such, never in a total):
the conversation's previous prompt, a prefix of this one, from `AUTO_CACHE_MIN` tokens, in
steps of `AUTO_CACHE_STEP`, read at the cache rate instead of the input rate. The call's
`cache_reads` says which (`reported`; `unreported`: none said, priced as plain input).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Literal

from tether.ledger.spans import ResultCharges, Taken
from tether.protocol import (
    ContentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)

CHARS_PER_TOKEN = 4
AUTO_CACHE_MIN = 1024
"""OpenAI's automatic prompt cache keeps prefixes from this many tokens..."""
AUTO_CACHE_STEP = 128
"""...in steps of this many."""
IMAGE_TOKENS = 1600
_M = 1_000_000
CacheReads = Literal["reported", "unreported", "estimated"]
"""A call's cache reads: the endpoint's count; none said (priced as plain input); or, in a
ledger written before a call was priced so, estimated and priced as such."""


@dataclass(frozen=True)
class Rates:
    """US dollars per million tokens, by how the tokens were billed."""

    input: float = 0.0
    output: float = 0.0
    cache_write: float = 0.0
    cache_read: float = 0.0
    web_search: float = 0.0
    """US dollars per web search the endpoint ran (billed apart from tokens)."""


@dataclass
class Billed:
    """Prompt tokens by how they were billed, and what they cost."""

    input_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    input_cost: float = 0.0
    cache_read_cost: float = 0.0
    cache_write_cost: float = 0.0

    @property
    def cost(self) -> float:
        return self.input_cost + self.cache_read_cost + self.cache_write_cost

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    def add(self, other: Billed) -> None:
        self.input_tokens += other.input_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens
        self.input_cost += other.input_cost
        self.cache_read_cost += other.cache_read_cost
        self.cache_write_cost += other.cache_write_cost


@dataclass(frozen=True)
class Asked:
    """A tool call a reply asked for, with its share of the reply's output."""

    call_id: str
    tool: str
    output_tokens: float
    output_cost: float


@dataclass(frozen=True)
class Charged:
    """One model call: its usage, its cost by kind, and the calls it asked for."""

    usage: Usage
    prompt: Billed
    output_cost: float
    asked: tuple[Asked, ...]
    search_cost: float = 0.0
    """What the web searches the endpoint ran for the reply cost."""
    cache_reads: CacheReads = "reported"
    """Whether `usage`'s cache reads are the endpoint's count or it said none."""
    possible_saving: float = 0.0
    """What an automatic prompt cache may have saved on a call whose endpoint said nothing of
    its cache reads (estimated; in no cost)."""

    @property
    def cost(self) -> float:
        return self.prompt.cost + self.output_cost + self.search_cost


def block_tokens(block: ContentBlock) -> int:
    """A block's estimated size in a prompt (see the module's docstring)."""
    match block:
        case ToolResultBlock(content=content, images=images):
            return math.ceil(len(content) / CHARS_PER_TOKEN) + IMAGE_TOKENS * len(images)
        case TextBlock(text=text):
            return math.ceil(len(text) / CHARS_PER_TOKEN)
        case ThinkingBlock(thinking=thought):
            return math.ceil(len(thought) / CHARS_PER_TOKEN)
        case ToolUseBlock(name=name, input=arguments):
            chars = len(name) + len(json.dumps(arguments, ensure_ascii=False))
            return math.ceil(chars / CHARS_PER_TOKEN)
        case ImageBlock():
            return IMAGE_TOKENS
        case _:
            return 0


@dataclass
class ConversationMeter:
    """Follows one agent's conversation message by message and prices each reply's request;
    what the results cost is gathered until `take`."""

    _results: ResultCharges = field(default_factory=ResultCharges)
    _settled: list[Taken] = field(default_factory=list[Taken])
    """What results compacted away cost before, not yet taken."""
    _last_prompt: int = 0
    """The previous request's prompt tokens: a prefix of the next one (0 after a
    compaction, which changes the prefix)."""

    def add(self, message: Message) -> None:
        """A message that entered the conversation without a model call of its own (results,
        a prompt, a reply kept from an interrupted stream)."""
        for block in message.content:
            call_id = block.tool_use_id if isinstance(block, ToolResultBlock) else None
            self._results.append(block_tokens(block), call_id)

    def compacted(self) -> None:
        """The earlier conversation was replaced by a summary."""
        self._settled.append(self._results.take())
        self._results.clear()
        self._last_prompt = 0

    def take(self) -> Charges:
        """What the results cost in the requests since the last time: handed over now in
        O(1), priced by whoever reads it (`Charges.billed`, the ledger's writer thread)."""
        taken, self._settled = [*self._settled, self._results.take()], []
        return Charges(tuple(taken))

    def reply(self, message: Message, usage: Usage, rates: Rates) -> Charged:
        """Price the request that got `message` (everything added so far), then add it."""
        source: CacheReads = "reported"
        possible_saving = 0.0
        if usage.cache_reads_unsaid:
            source = "unreported"
            possible_saving = self._estimated_reads(usage) * (rates.input - rates.cache_read) / _M
        self._last_prompt = usage.context_tokens
        read, written = usage.cache_read_input_tokens, usage.cache_creation_input_tokens
        self._results.bill(usage.context_tokens, read, written, rates)
        calls = [b for b in message.content if isinstance(b, ToolUseBlock)]
        output_cost = usage.output_tokens * rates.output / _M
        asked = tuple(
            Asked(call.id, call.name, usage.output_tokens / len(calls), output_cost / len(calls))
            for call in calls
        )
        prompt = Billed(
            usage.input_tokens,
            read,
            written,
            usage.input_tokens * rates.input / _M,
            read * rates.cache_read / _M,
            written * rates.cache_write / _M,
        )
        self.add(message)
        search_cost = usage.web_search_requests * rates.web_search
        return Charged(usage, prompt, output_cost, asked, search_cost, source, possible_saving)

    def _estimated_reads(self, usage: Usage) -> int:
        """The tokens of `usage`'s plain input OpenAI's automatic cache would have read (see
        the module's docstring)."""
        cached = self._last_prompt - self._last_prompt % AUTO_CACHE_STEP
        return min(cached if cached >= AUTO_CACHE_MIN else 0, usage.input_tokens)


@dataclass(frozen=True)
class Charges:
    """What results cost in some requests, priced when asked (off the loop)."""

    parts: tuple[Taken, ...]

    @property
    def empty(self) -> bool:
        """No request billed any block."""
        return not any(part.runs or part.edges for part in self.parts)

    def billed(self) -> dict[str, Billed]:
        """By call id."""
        total: dict[str, Billed] = {}
        for part in self.parts:
            _merge(total, part.billed())
        return total


def _merge(into: dict[str, Billed], more: dict[str, Billed]) -> None:
    for call_id, billed in more.items():
        into.setdefault(call_id, Billed()).add(billed)
