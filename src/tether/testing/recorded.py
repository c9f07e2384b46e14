"""`RecordedRequest`: one request the fake server received, with readers for what tests check."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, cast

Wire = Literal["anthropic", "openai"]


@dataclass
class RecordedRequest:
    """A request as the fake server received it, in either wire format.

    `headers` has lower-case names. `status` and `error` say how the server answered when it
    refused the request itself (auth, validation, empty script); a scripted `http_error` keeps
    `status` 200 here because the test asked for it.
    """

    wire: Wire
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    index: int
    stream: bool = False
    status: int = 200
    error: str | None = None
    received_at: float = 0.0
    answered_at: float = 0.0
    """`time.perf_counter()` when the request arrived and when its answer was fully sent:
    benchmarks subtract this server time from what the client measured."""
    usage: dict[str, int] | None = None
    """The usage the server reported in its answer (None when it sent no reply)."""

    def messages(self) -> list[dict[str, Any]]:
        """The conversation messages exactly as sent."""
        messages = self.body.get("messages")
        if not isinstance(messages, list):
            return []
        return [m for m in cast(list[Any], messages) if isinstance(m, dict)]

    def system(self) -> str:
        """The system prompt as text: Anthropic's `system` field, or OpenAI's system messages."""
        if self.wire == "anthropic":
            return content_text(self.body.get("system"))
        parts = [
            content_text(m.get("content"))
            for m in self.messages()
            if m.get("role") in ("system", "developer")
        ]
        return "\n".join(parts)

    def tool_names(self) -> list[str]:
        """Names of the tools offered to the model, in order."""
        tools = self.body.get("tools")
        if not isinstance(tools, list):
            return []
        names: list[str] = []
        for tool in cast(list[Any], tools):
            if not isinstance(tool, dict):
                continue
            tool = cast(dict[str, Any], tool)
            spec = tool.get("function") if self.wire == "openai" else tool
            if isinstance(spec, dict):
                names.append(str(cast(dict[str, Any], spec).get("name", "")))
        return names

    def tool_results(self) -> list[str]:
        """Texts of the tool results answering the model's latest calls, in order."""
        return [text for text, _ in self._latest_tool_results()]

    def tool_result_errors(self) -> list[bool]:
        """Whether each of `tool_results()` is an error (OpenAI has no flag: "Error..." counts)."""
        return [is_error for _, is_error in self._latest_tool_results()]

    def last_user_text(self) -> str:
        """Text of the newest user message, without its tool results, nor the agent listing
        tether adds to a conversation's first prompt (`agent_listing_text()` has it)."""
        for message in reversed(self.messages()):
            if message.get("role") == "user":
                return _AGENT_LISTING.sub("", content_text(message.get("content")))
        return ""

    def agent_listing_text(self) -> str | None:
        """The agent listing reminder in the request's conversation, if any."""
        for message in self.messages():
            if message.get("role") == "user":
                found = _AGENT_LISTING.search(content_text(message.get("content")))
                if found is not None:
                    return found.group(0).strip()
        return None

    def _latest_tool_results(self) -> list[tuple[str, bool]]:
        messages = self.messages()
        if self.wire == "anthropic":
            for message in reversed(messages):
                if message.get("role") == "user":
                    return [
                        (content_text(block.get("content")), block.get("is_error") is True)
                        for block in blocks_of(message.get("content"))
                        if block.get("type") == "tool_result"
                    ]
            return []
        # OpenAI: the `tool` messages after the newest assistant message (a user message with
        # reminders may follow them).
        results: list[tuple[str, bool]] = []
        for message in reversed(messages):
            if message.get("role") == "assistant":
                break
            if message.get("role") == "tool":
                text = content_text(message.get("content"))
                results.append((text, text.startswith("Error")))
        results.reverse()
        return results


def blocks_of(content: object) -> list[dict[str, Any]]:
    """The content blocks of a message content that is a list; [] for a string."""
    if not isinstance(content, list):
        return []
    return [b for b in cast(list[Any], content) if isinstance(b, dict)]


_AGENT_LISTING = re.compile(
    r"<system-reminder>\nAvailable agent types for the Agent tool.*?</system-reminder>\n?",
    re.DOTALL,
)


def content_text(content: object) -> str:
    """A string content as is, or the text blocks of a block list joined by newlines."""
    if isinstance(content, str):
        return content
    texts = [
        str(block.get("text", "")) for block in blocks_of(content) if block.get("type") == "text"
    ]
    return "\n".join(texts)


__all__ = ["RecordedRequest", "Wire", "blocks_of", "content_text"]
