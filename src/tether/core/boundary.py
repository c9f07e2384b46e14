"""What enters the history is made fit to send, once, where it enters.

Content reaches the history from the model, from tools, from the user and from session files;
whatever its source, two things in it would make every later request fail:

- text with no UTF-8 form: a lone surrogate (`\\ud800`, from a model's `\\u` escape or from
  undecodable bytes kept by `surrogateescape`) cannot be encoded, and the API refuses its
  escaped form as invalid JSON. Each one becomes U+FFFD, the replacement character.
- tool-call ids the API refuses: an id repeated anywhere in the conversation, or one outside
  `[A-Za-z0-9_-]` (some OpenAI-compatible servers send `functions.Bash:0`), which Anthropic's
  wire refuses if the session is later resumed with a Claude model. Such a call gets a fresh
  id; its results follow it (see `CallIds`).
- tool names the API refuses in the history: a model may call `functions.Bash`, `bad name`
  or `""`; every later request would carry it and be refused (OpenAI-compatible servers and
  Anthropic check `[A-Za-z0-9_-]{1,64}`). Such a call keeps its place under a name made of the
  allowed characters; it names no tool, so it is answered "No such tool" and never runs.

Nothing downstream (wire conversion, compaction, the session file) has to care after this.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

from tether.outside_text import encodable, encodable_value
from tether.protocol import (
    Base64ImageSource,
    ContentBlock,
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from tether.store.images import image_problem
from tether.tools.input_text import find_unencodable

_CALL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_-]")


def encodable_blocks(blocks: Iterable[ContentBlock]) -> tuple[ContentBlock, ...]:
    """`blocks` with their text made `encodable`; blocks that need nothing are kept as they are."""
    return tuple(_encodable_block(block) for block in blocks)


def sendable_images(blocks: Sequence[ContentBlock]) -> tuple[ContentBlock, ...]:
    """User `blocks` with every image the API would refuse (`image_problem`, the checks a
    session file gets when it is read back) replaced by a note saying why: one such image
    would make every later request of the session fail. Tool results keep their other images
    and say what was left out."""
    return tuple(_sendable(block) for block in blocks)


def _sendable(block: ContentBlock) -> ContentBlock:
    if isinstance(block, ImageBlock):
        problem = image_problem(block.model_dump(), "user")
        return block if problem is None else TextBlock(text=_IMAGE_LEFT_OUT.format(problem))
    if isinstance(block, ToolResultBlock) and block.images:
        problems = [image_problem(i.model_dump(), "user") for i in block.images]
        if not any(problems):
            return block
        kept = tuple(i for i, p in zip(block.images, problems, strict=True) if p is None)
        notes = "".join("\n" + _IMAGE_LEFT_OUT.format(p) for p in problems if p is not None)
        return block.model_copy(update={"images": kept, "content": block.content + notes})
    return block


_IMAGE_LEFT_OUT = "[tether: {} was left out: the API would refuse it]"


def with_encodable_text(message: Message) -> Message:
    """`message` with its blocks made encodable (the same object when nothing changed)."""
    blocks = encodable_blocks(message.content)
    if all(a is b for a, b in zip(blocks, message.content, strict=True)):
        return message
    return Message(role=message.role, content=blocks)


class CallIds:
    """The tool-call ids of one conversation, kept unique and well-formed (and the calls'
    names, well-formed).

    `admit` gives a call whose id is taken already (or malformed) a fresh one; `results`
    makes the results that answer a message's calls follow their renamed calls.
    """

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._renamed: dict[str, list[str]] = {}
        """For the newest assistant message: original id -> the ids given, in call order."""
        self._answered: dict[str, int] = {}
        """For the newest assistant message: results seen so far per original id."""

    def admit(self, blocks: Sequence[ContentBlock]) -> tuple[ContentBlock, ...]:
        """An assistant message's blocks with every tool-call id unique and well-formed."""
        self._renamed, self._answered = {}, {}
        out: list[ContentBlock] = []
        for block in blocks:
            if isinstance(block, ToolUseBlock):
                if not _TOOL_NAME.fullmatch(block.name):
                    block = block.model_copy(update={"name": sendable_name(block.name)})
                original = given = block.id
                if given in self._seen or not _CALL_ID.fullmatch(given):
                    given = self._fresh(original)
                    block = block.model_copy(update={"id": given})
                self._seen.add(given)
                self._renamed.setdefault(original, []).append(given)
            out.append(block)
        return tuple(out)

    def results(self, blocks: Sequence[ContentBlock]) -> tuple[ContentBlock, ...]:
        """User blocks with each tool result's id mapped to the call it answers in the newest
        assistant message: the n-th result for an id the model repeated answers its n-th call.
        Results for ids the newest message did not rename are left as they are."""
        if all(ids == [key] for key, ids in self._renamed.items()):
            return tuple(blocks)
        out: list[ContentBlock] = []
        for block in blocks:
            if isinstance(block, ToolResultBlock) and block.tool_use_id in self._renamed:
                ids = self._renamed[block.tool_use_id]
                nth = self._answered.get(block.tool_use_id, 0)
                self._answered[block.tool_use_id] = nth + 1
                if nth < len(ids) and ids[nth] != block.tool_use_id:
                    block = block.model_copy(update={"tool_use_id": ids[nth]})
            out.append(block)
        return tuple(out)

    def _fresh(self, original: str) -> str:
        # Derived from what came before, not random: replaying the same file gives the same
        # ids, so results a resumed session wrote for a renamed call still find it.
        salt = 0
        while True:
            seed = f"{original}\0{len(self._seen)}\0{salt}".encode("utf-8", "surrogatepass")
            candidate = f"toolu_{hashlib.sha256(seed).hexdigest()[:24]}"
            if candidate not in self._seen:
                return candidate
            salt += 1


def sendable_name(name: str) -> str:
    """A tool name the API accepts standing for one it would refuse: each character outside
    `[A-Za-z0-9_-]` an underscore, at most 64 of them (`unnamed_tool` for none)."""
    return _NOT_IN_NAME.sub("_", name)[:64] or "unnamed_tool"


def _encodable_block(block: ContentBlock) -> ContentBlock:
    match block:
        case TextBlock(text=text):
            clean = encodable(text)
            return block if clean is text else TextBlock(text=clean)
        case ThinkingBlock(thinking=thinking, signature=signature):
            clean, sig = encodable(thinking), encodable(signature)
            if clean is thinking and sig is signature:
                return block
            return ThinkingBlock(thinking=clean, signature=sig)
        case RedactedThinkingBlock(data=data):
            clean = encodable(data)
            return block if clean is data else RedactedThinkingBlock(data=clean)
        case ToolResultBlock(tool_use_id=call_id, content=content):
            clean_id, clean = encodable(call_id), encodable(content)
            if clean_id is call_id and clean is content:
                return block
            return block.model_copy(update={"tool_use_id": clean_id, "content": clean})
        case ImageBlock():
            return _encodable_image(block)
        case ToolUseBlock():
            changes: dict[str, Any] = {}
            for name in ("id", "name", "input_error", "raw_input", "input_refused"):
                value = getattr(block, name)
                if isinstance(value, str) and encodable(value) is not value:
                    changes[name] = encodable(value)
            clean_input = encodable_value(block.input)
            if clean_input is not block.input:
                changes["input"] = clean_input
                # What runs is what the model asked for or nothing: the call is refused, with
                # where the text was, rather than run on the replaced text.
                found = find_unencodable(block.input)
                if found is not None and block.input_refused is None:
                    changes["input_refused"] = found.describe()
            return block.model_copy(update=changes) if changes else block


def _encodable_image(block: ImageBlock) -> ImageBlock:
    source = block.source
    field = "data" if isinstance(source, Base64ImageSource) else "url"
    value: str = getattr(source, field)
    clean = encodable(value)
    if clean is value:
        return block
    return block.model_copy(update={"source": source.model_copy(update={field: clean})})


def without_thinking(message: Message) -> Message:
    """`message` without its thinking blocks (signed by the model that wrote them, refused
    by another); itself when it has none. A reply that is thinking only (cut by max_tokens
    or an interrupt while it thought) keeps its place as `NO_CONTENT`, as Claude Code sends
    it: the API refuses an empty message."""
    if message.role != "assistant":
        return message
    kept = [b for b in message.content if not isinstance(b, ThinkingBlock | RedactedThinkingBlock)]
    if len(kept) == len(message.content):
        return message
    return Message(role="assistant", content=kept or [TextBlock(text=NO_CONTENT)])


NO_CONTENT = "(no content)"
"""What stands for a reply with nothing left to send (Claude Code's text for it)."""
