"""Replaying a session file's records as a transcript the API accepts, whatever damage the
file took: lines lost, repeated, garbled or reordered anywhere, or written by older versions.

The records of the branch to resume (see `store.branch`) pass through `RecordRepair`, which
mirrors how `History` merges them and fixes what the API would refuse:

- a tool call whose result is missing gets an error result saying its outcome is unknown;
- a result that answers no call of the message before it is dropped (the API would refuse it),
  and so is a second result for the same call;
- two assistant messages in a row (the user message between them was lost) get a short user
  note between them, so roles alternate; a conversation that starts with the model's reply
  gets one first;
- blank text is dropped, and a message left with nothing is not replayed (said);
- a tool call whose id the API would refuse (repeated, malformed) gets a fresh one (said);
- a compaction whose summary or cut no longer fits is moved to the nearest valid cut, or
  dropped (everything is sent, and the window logic deals with the size). A summary is the
  user's text, or (the rewind menu's "summarize from here") the conversation before it
  verbatim, whole turns whose calls are all answered.

The same file always replays to the same transcript, so what a resumed session appends
(`kept` counts of later compactions, results of renamed calls) stays consistent.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from tether.core.boundary import CallIds, encodable_blocks
from tether.protocol import ContentBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock
from tether.store import AssistantRecord, CompactionRecord, Record, UserRecord

LOST_RESULT = (
    "The result of this tool call was lost from the session file; its outcome is unknown. "
    "Check the state it would have changed before relying on it."
)
LOST_MESSAGE = "[tether: a message of this conversation was lost from the session file here]"
LOST_START = "[tether: the start of this conversation was lost from the session file]"


@dataclass
class Repairs:
    """What `RecordRepair` changed, to tell the user."""

    results_added: int = 0
    results_dropped: int = 0
    notes_added: int = 0
    compactions_moved: int = 0
    compactions_dropped: int = 0
    empty_dropped: int = 0
    ids_renamed: int = 0

    def sentences(self) -> list[str]:
        said: list[str] = []
        if self.empty_dropped:
            said.append(
                f"{_count(self.empty_dropped, 'message')} with no content (or blank text "
                "only) not replayed"
            )
        if self.ids_renamed:
            said.append(
                f"{_count(self.ids_renamed, 'tool call')} with an id the API would refuse "
                "(repeated, or with characters it does not take) given a fresh one"
            )
        if self.results_added:
            said.append(
                f"{_count(self.results_added, 'tool call')} without a result answered as "
                "'outcome unknown'"
            )
        if self.results_dropped:
            said.append(
                f"{_count(self.results_dropped, 'tool result')} without a matching call dropped"
            )
        if self.notes_added:
            said.append(f"{_count(self.notes_added, 'note')} added where a message was lost")
        if self.compactions_moved:
            said.append(f"{_count(self.compactions_moved, 'compaction')} moved to a valid cut")
        if self.compactions_dropped:
            said.append(
                f"{_count(self.compactions_dropped, 'compaction')} that no longer fit dropped "
                "(the earlier conversation is sent in full)"
            )
        return said


class RecordRepair:
    """Turns records as read into records `History.replay_*` turns into a valid transcript."""

    def __init__(self) -> None:
        self.repairs = Repairs()
        self._ids = CallIds()
        self._roles: list[str] = []
        """The role of each message the history will hold (consecutive user content merges)."""
        self._pending: list[str] = []
        """Calls of the newest assistant message not answered yet."""

    def repaired(self, records: Iterator[Record]) -> Iterator[Record]:
        held: AssistantRecord | None = None  # a reply whose next block may still come
        for record in records:
            if isinstance(record, AssistantRecord):
                if held is not None and _same_response(held, record):
                    held = _joined(held, record)
                    continue
                if held is not None:
                    yield from self._assistant(held)
                held = record
                continue
            if held is not None:
                yield from self._assistant(held)
                held = None
            if isinstance(record, UserRecord):
                yield from self._user(record.blocks)
            elif isinstance(record, CompactionRecord):
                yield from self._compaction(record)
            else:
                yield record
        if held is not None:
            yield from self._assistant(held)

    def _user(self, blocks: Sequence[ContentBlock]) -> Iterator[Record]:
        kept: list[ContentBlock] = []
        # Text is made encodable by History itself: only ids and pairing are seen to here.
        for block in self._ids.results(tuple(blocks)):
            if isinstance(block, ToolResultBlock):
                if block.tool_use_id not in self._pending:
                    self.repairs.results_dropped += 1
                    continue
                self._pending.remove(block.tool_use_id)
                if block.is_error and not block.content:
                    block = block.model_copy(update={"content": "(no message)"})
            elif isinstance(block, TextBlock) and not block.text.strip():
                continue
            kept.append(block)
        if kept:
            self._add_role("user")
            yield UserRecord(tuple(kept))
        elif all(isinstance(b, TextBlock) and not b.text.strip() for b in blocks):
            self.repairs.empty_dropped += 1  # nothing but blank text, or no content at all

    def _assistant(self, record: AssistantRecord) -> Iterator[Record]:
        blocks = [
            b
            for b in record.message.content
            if not (isinstance(b, TextBlock) and not b.text.strip())
        ]
        if not blocks:
            self.repairs.empty_dropped += 1
            return
        if not self._roles:
            self.repairs.notes_added += 1
            yield from self._user([TextBlock(text=LOST_START)])
        elif self._pending:
            self.repairs.results_added += len(self._pending)
            lost = [
                ToolResultBlock(tool_use_id=i, content=LOST_RESULT, is_error=True)
                for i in self._pending
            ]
            yield from self._user(lost)
        elif self._roles[-1] == "assistant":
            self.repairs.notes_added += 1
            yield from self._user([TextBlock(text=LOST_MESSAGE)])
        admitted = self._ids.admit(blocks)
        self.repairs.ids_renamed += sum(
            1
            for given, was in zip(admitted, blocks, strict=True)
            if isinstance(given, ToolUseBlock)
            and isinstance(was, ToolUseBlock)
            and given.id != was.id
        )
        self._pending = [b.id for b in admitted if isinstance(b, ToolUseBlock)]
        self._add_role("assistant")
        yield AssistantRecord(
            Message(role="assistant", content=admitted),
            record.usage,
            model=record.model,
            duration_ms=record.duration_ms,
            model_trusted=record.model_trusted,
        )

    def _compaction(self, record: CompactionRecord) -> Iterator[Record]:
        summary = _usable_summary(record.summary)
        count = len(self._roles)
        if summary is None or not 0 < record.kept <= count:
            self.repairs.compactions_dropped += 1
            return
        cut = count - record.kept
        # The summary ends with a user message: the kept part must start with a reply.
        moved = cut
        while moved > 0 and self._roles[moved] != "assistant":
            moved -= 1
        if moved == 0:
            self.repairs.compactions_dropped += 1
            return
        if moved != cut:
            self.repairs.compactions_moved += 1
        yield CompactionRecord(summary, count - moved)

    def _add_role(self, role: str) -> None:
        if role == "assistant" or not self._roles or self._roles[-1] != "user":
            self._roles.append(role)


def _same_response(first: AssistantRecord, then: AssistantRecord) -> bool:
    """Two entries of one response (Claude Code writes one entry per content block)."""
    return first.message_id is not None and first.message_id == then.message_id


def _joined(first: AssistantRecord, then: AssistantRecord) -> AssistantRecord:
    content = (*first.message.content, *then.message.content)
    usage = then.usage or first.usage  # each entry repeats the response's usage: count it once
    took = first.duration_ms + then.duration_ms  # one entry of a response holds it
    return AssistantRecord(
        Message(role="assistant", content=content),
        usage,
        first.message_id,
        first.model,
        took,
        first.model_trusted and then.model_trusted,
    )


def _usable_summary(summary: Sequence[Message]) -> tuple[Message, ...] | None:
    """The summary as tether writes it (user messages of text), made encodable; None if it
    is anything else: it could not stand before the kept part."""
    if not summary or summary[-1].role != "user":
        return None
    if any(m.role != "user" for m in summary):
        return _usable_prefix(summary)
    cleaned: list[Message] = []
    for message in summary:
        blocks = encodable_blocks(message.content)
        if not blocks or not all(isinstance(b, TextBlock) and b.text.strip() for b in blocks):
            return None
        cleaned.append(Message(role="user", content=blocks))
    return (Message(role="user", content=tuple(b for m in cleaned for b in m.content)),)


def _usable_prefix(summary: Sequence[Message]) -> tuple[Message, ...] | None:
    """A summary that keeps the conversation before it verbatim (the rewind menu's "summarize
    from here"): messages in turn, the user's first, every call answered by the next message
    and every result answering one; None if it is anything else."""
    cleaned: list[Message] = []
    calls: set[str] = set()
    for index, message in enumerate(summary):
        blocks = encodable_blocks(message.content)
        if not blocks or message.role != ("user" if index % 2 == 0 else "assistant"):
            return None
        answered = {b.tool_use_id for b in blocks if isinstance(b, ToolResultBlock)}
        if message.role == "user" and answered != calls:
            return None
        calls = {b.id for b in blocks if isinstance(b, ToolUseBlock)}
        cleaned.append(Message(role=message.role, content=blocks))
    return tuple(cleaned) if not calls else None


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
