"""Simulated prompt caching for the fake server's reported usage.

Anthropic (explicit breakpoints): the prompt is read as one sequence of blocks, tools first,
then system, then messages. A block carrying `cache_control` is a breakpoint; a request reads
the longest stored prefix that ends at a breakpoint or at one of the 20 blocks before one, and
writes (or refreshes) an entry at every breakpoint after what it read. Prefixes under
`MIN_CACHEABLE_TOKENS` are never stored.

OpenAI (automatic): every prefix of the prompt, cut at message boundaries, is remembered; a
request reads the longest one seen before, rounded down to a multiple of 128 tokens, once that
is at least 1024 tokens.

Token counts are the estimate of `tokens.py` (one token per four characters of JSON), applied
to the canonical JSON of each block: close enough to check that a harness keeps its prefix
stable, not a tokenizer. The cache never expires here (the real one lives five minutes).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from tether.testing.tokens import CHARS_PER_TOKEN

MIN_CACHEABLE_TOKENS = 1024
LOOKBACK_BLOCKS = 20
OPENAI_CACHE_INCREMENT = 128


@dataclass(frozen=True)
class PromptBlock:
    """One block of a prompt: the canonical JSON the cache compares, its size in characters
    of JSON as `tokens.py` counts them, and whether it carries a breakpoint."""

    canonical: str
    chars: int
    breakpoint: bool = False


@dataclass(frozen=True)
class CacheUsage:
    """How a request's prompt splits: read from cache, written to cache, and the rest."""

    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int

    def as_dict(self) -> dict[str, int]:
        """The three counts under their Anthropic usage names."""
        return {
            "input_tokens": self.input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
        }


def canonical_json(value: object) -> str:
    """Key-sorted compact JSON: equal content gives equal text."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _dicts(value: object) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        return []
    return [cast(dict[str, Any], v) for v in cast(list[Any], value) if isinstance(v, dict)]


def _size(value: object) -> int:
    """Characters of `value` as `tokens.py` measures a prompt (default separators)."""
    return len(json.dumps(value, ensure_ascii=False))


def _strip_block(block: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any], bool]:
    """The block without `cache_control` (also inside a tool result); the same in the form
    the cache compares; and whether it carried a breakpoint.

    A tool result's string content becomes one text block in the compared form: the API
    treats both as the same content.
    """
    marked = block.get("cache_control") is not None
    stripped = {k: v for k, v in block.items() if k != "cache_control"}
    compared = dict(stripped)
    content = stripped.get("content")
    if block.get("type") == "tool_result":
        if isinstance(content, str):
            compared["content"] = [{"type": "text", "text": content}]
        elif isinstance(content, list):
            inner: list[dict[str, Any]] = []
            for item in _dicts(content):
                item_stripped, _, item_marked = _strip_block(item)
                inner.append(item_stripped)
                marked = marked or item_marked
            stripped["content"] = compared["content"] = inner
    return stripped, compared, marked


def _block(section: str, detail: object, raw: Mapping[str, Any], extra_chars: int) -> PromptBlock:
    stripped, compared, marked = _strip_block(raw)
    canonical = canonical_json([section, detail, compared])
    return PromptBlock(canonical, _size(stripped) + extra_chars, marked)


# Characters between items of a JSON list: ", ".
SEPARATOR_CHARS = 2


def anthropic_blocks(body: Mapping[str, Any]) -> list[PromptBlock]:
    """The prompt of a Messages API body as cache blocks: each tool, system block and message
    content block, in that order.

    A message's role and whether the block opens it are part of the compared form, so the
    same block elsewhere in the conversation is another prefix. Each message's envelope
    (role, braces) is counted in the size of its first block, so that the sizes add up to
    about the whole prompt's estimate.
    """
    blocks = [_block("tool", None, tool, SEPARATOR_CHARS) for tool in _dicts(body.get("tools"))]
    system = body.get("system")
    if isinstance(system, str):
        system = [{"type": "text", "text": system}] if system else []
    blocks.extend(_block("system", None, part, SEPARATOR_CHARS) for part in _dicts(system))
    for message in _dicts(body.get("messages")):
        content = message.get("content")
        role = message.get("role")
        if isinstance(content, str):
            parts: list[dict[str, Any]] = [{"type": "text", "text": content}]
            envelope = _size(message) + SEPARATOR_CHARS - _size(parts[0])
        else:
            parts = _dicts(content)
            envelope = _size({**message, "content": []}) + SEPARATOR_CHARS
        for position, part in enumerate(parts):
            extra = envelope if position == 0 else SEPARATOR_CHARS
            blocks.append(_block("message", [role, position == 0], part, extra))
    return blocks


def openai_blocks(body: Mapping[str, Any]) -> list[PromptBlock]:
    """The prompt of a Chat Completions body as prefix units: the tools, then each message."""
    blocks: list[PromptBlock] = []
    tools = body.get("tools")
    if isinstance(tools, list) and tools:
        blocks.append(PromptBlock(canonical_json(["tools", tools]), _size(tools)))
    blocks.extend(
        PromptBlock(canonical_json(["message", m]), _size(m) + SEPARATOR_CHARS)
        for m in _dicts(body.get("messages"))
    )
    return blocks


def _prefix_hashes(seed: str, blocks: list[PromptBlock]) -> list[str]:
    """Hash of each prefix ending at (and including) block i."""
    hashes: list[str] = []
    running = hashlib.sha256(seed.encode()).hexdigest()
    for block in blocks:
        running = hashlib.sha256((running + block.canonical).encode()).hexdigest()
        hashes.append(running)
    return hashes


def _prefix_tokens(blocks: list[PromptBlock]) -> list[int]:
    """Estimated tokens of each prefix ending at (and including) block i."""
    totals: list[int] = []
    chars = 0
    for block in blocks:
        chars += block.chars
        totals.append(chars // CHARS_PER_TOKEN)
    return totals


class PromptCache:
    """The prefixes one server has cached, and the usage split of each request against them.

    Thread-safe: the server answers requests on several threads.
    """

    def __init__(self, min_tokens: int = MIN_CACHEABLE_TOKENS) -> None:
        self.min_tokens = min_tokens
        self._anthropic: dict[str, int] = {}
        self._openai: dict[str, int] = {}
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Forget every cached prefix."""
        with self._lock:
            self._anthropic.clear()
            self._openai.clear()

    def anthropic(self, body: Mapping[str, Any], total_tokens: int) -> CacheUsage:
        """Read and write the cache for a Messages API request whose prompt is `total_tokens`.

        Reads the longest stored prefix ending at a breakpoint or up to 20 blocks before one;
        writes every breakpoint past it; what follows the last breakpoint is plain input.
        """
        blocks = anthropic_blocks(body)
        hashes = _prefix_hashes(str(body.get("model", "")), blocks)
        tokens = _prefix_tokens(blocks)
        breakpoints = [i for i, block in enumerate(blocks) if block.breakpoint]
        checked = sorted(
            {
                position
                for mark in breakpoints
                for position in range(max(0, mark - LOOKBACK_BLOCKS), mark + 1)
            }
        )
        with self._lock:
            hits = [p for p in checked if hashes[p] in self._anthropic]
            read_end = max(hits) if hits else -1
            read = tokens[read_end] if hits else 0
            written_to = read
            for mark in breakpoints:
                if tokens[mark] >= self.min_tokens:
                    self._anthropic[hashes[mark]] = tokens[mark]
                    if mark > read_end:
                        written_to = max(written_to, tokens[mark])
        created = written_to - read
        return CacheUsage(max(0, total_tokens - read - created), created, read)

    def openai(self, body: Mapping[str, Any], total_tokens: int) -> CacheUsage:
        """Read and write the automatic cache for a Chat Completions request."""
        blocks = openai_blocks(body)
        hashes = _prefix_hashes(str(body.get("model", "")), blocks)
        tokens = _prefix_tokens(blocks)
        with self._lock:
            seen = [tokens[i] for i, digest in enumerate(hashes) if digest in self._openai]
            for digest, count in zip(hashes, tokens, strict=True):
                if count >= self.min_tokens:
                    self._openai[digest] = count
        longest = max(seen, default=0)
        read = 0
        if longest >= self.min_tokens:
            read = longest - longest % OPENAI_CACHE_INCREMENT
        read = min(read, total_tokens)
        return CacheUsage(total_tokens - read, 0, read)


__all__ = [
    "LOOKBACK_BLOCKS",
    "MIN_CACHEABLE_TOKENS",
    "OPENAI_CACHE_INCREMENT",
    "CacheUsage",
    "PromptBlock",
    "PromptCache",
    "anthropic_blocks",
    "canonical_json",
    "openai_blocks",
]
