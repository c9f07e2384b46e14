"""Token counts the fake server reports and enforces.

These are estimates, not a tokenizer: about one token per four characters of JSON, which is
close enough to exercise context-window logic and usage accounting in tests and benchmarks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tether.testing.image_rules import IMAGE_TOKENS, without_image_data
from tether.testing.script import Reply, TextPart, ThinkingPart, ToolCallPart, WebSearchPart

CHARS_PER_TOKEN = 4


def estimate_prompt_tokens(body: Mapping[str, Any], factor: float = 1.0) -> int:
    """Estimated prompt size: the JSON of system, tools and messages, over four, times
    `factor` (an endpoint whose tokenizer counts more, or fewer, tokens than that).

    Used for reported input tokens and for the context-window check, on both wires (OpenAI
    bodies carry the system prompt inside `messages`). An image counts as `IMAGE_TOKENS`, not
    its base64 text.
    """
    prompt, images = without_image_data(
        [body.get("system"), body.get("tools"), body.get("messages")]
    )
    text = len(json.dumps(prompt, ensure_ascii=False)) // CHARS_PER_TOKEN
    return max(1, int((text + images * IMAGE_TOKENS) * factor))


def estimate_thinking_tokens(reply: Reply) -> int:
    """Estimated size of what the model thinks in `reply` (part of its output tokens)."""
    chars = sum(len(b.thinking) for b in reply.blocks if isinstance(b, ThinkingPart))
    return chars // CHARS_PER_TOKEN


def estimate_output_tokens(reply: Reply) -> int:
    """Estimated size of what the model says in `reply`."""
    chars = 0
    for block in reply.blocks:
        match block:
            case TextPart(text=text):
                chars += len(text)
            case ThinkingPart(thinking=thought):
                chars += len(thought)
            case ToolCallPart(name=name, arguments=arguments):
                chars += len(name) + len(arguments)
            case WebSearchPart(query=query):
                chars += len(query)
    return max(1, chars // CHARS_PER_TOKEN)
