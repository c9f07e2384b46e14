"""Thinking signatures, as the Anthropic API checks them: a signature holds for the model that
made it, and a request that sends one back to another model is refused (HTTP 400)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, cast

from tether.testing.script import Reply, ThinkingPart


class SignedThinking:
    """The signatures the server gave out, each with the models it gave it for."""

    def __init__(self) -> None:
        self._given: dict[str, set[str]] = {}
        self._lock = threading.Lock()

    def given(self, model: str, reply: Reply) -> None:
        """`reply` was answered as `model`: its thinking blocks are signed for it."""
        with self._lock:
            for block in reply.blocks:
                if isinstance(block, ThinkingPart) and block.signature:
                    self._given.setdefault(block.signature, set()).add(model)

    def problem(self, body: Mapping[str, Any]) -> str | None:
        """The API's complaint about a thinking block of `body` signed for another model
        (None when there is none; a signature this server never gave is not judged)."""
        model = body.get("model")
        messages = body.get("messages")
        if not isinstance(messages, list):
            return None
        with self._lock:
            for m_index, message in enumerate(cast(list[object], messages)):
                if not isinstance(message, dict):
                    continue
                content = cast(dict[str, Any], message).get("content")
                if not isinstance(content, list):
                    continue
                for b_index, block in enumerate(cast(list[object], content)):
                    if not isinstance(block, dict):
                        continue
                    block = cast(dict[str, Any], block)
                    if block.get("type") != "thinking":
                        continue
                    models = self._given.get(str(block.get("signature")))
                    if models is not None and model not in models:
                        return (
                            f"messages.{m_index}.content.{b_index}: Invalid `signature` in "
                            "`thinking` block"
                        )
        return None
