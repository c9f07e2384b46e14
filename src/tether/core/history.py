"""The conversation history: append-only, and always a transcript the API would accept."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tether.core.boundary import CallIds, encodable_blocks, sendable_images, without_thinking
from tether.core.folded import Folded, stand_in
from tether.core.held_prompt import HeldPrompt
from tether.core.journal import Journal, journal_user
from tether.core.shrink import shrink_message
from tether.core.sizing import RequestSizer, TakenBack
from tether.models.base import ModelRequest
from tether.protocol import (
    ContentBlock,
    HarnessError,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from tether.slotted import replaced
from tether.store import ReplyEntries

LIGHT_CAP = 2000
"""Characters a string keeps in messages a compaction took out of the view (see
`History.lighten_compacted`)."""


KEPT_RATIO_STEP = 0.01
"""How far (a share of it) the estimate's ratio moves before the journal keeps it again."""


class History:
    """Messages in order. Consecutive user content is merged into one message, so tool results
    and the next prompt travel together, as the API expects.

    Everything added or replayed passes `boundary` first: text made encodable, tool-call ids
    unique and well-formed (results follow their renamed calls). The journal records content
    as it was admitted.

    Compaction changes what is sent, not what is stored: `messages` is the whole transcript,
    `view()` what the model sees (a summary standing for everything before a cut, then the rest).

    A resumed history may hold its oldest messages folded (`fold`): as compressed JSON, not
    objects, since no request could send them. `messages` is then the part held after them,
    `folded` the rest, and the view begins with a note standing for them (`folded.stand_in`).
    """

    def __init__(self, messages: Iterable[Message] = (), *, journal: Journal | None = None) -> None:
        self._messages: list[Message] = list(messages)
        self.journal = journal
        """Told of every change after it is made; None keeps the history in memory only."""
        self._summary: tuple[Message, ...] = ()
        self._cut = 0
        """Where the view's messages begin, counting the folded ones."""
        self.compactions = 0
        """How many compactions the view has had: what was read before one is gone from it."""
        self._lightened = 0
        self.folded = Folded()
        """The oldest messages, not held as objects (see `fold`); `messages` follow them."""
        self._stand_in: tuple[tuple[object, ...], tuple[Message, ...]] = ((), ())
        """The view's head while messages are folded, and what it was made from (so that
        every request sends the same objects, which the sizer and wire caches rely on)."""
        self.last_usage: Usage | None = None
        """The usage of the newest response: how much of the window the view fills."""
        self.newest_entries = ReplyEntries()
        """The session-file entries of the newest reply kept (see `add_assistant`)."""
        self.micro_memo: dict[int, tuple[Message, Message]] = {}
        """Notes already sent for old results (see `micro_compact`), kept stable."""
        self.turn_blocks: tuple[ContentBlock, ...] = ()
        """The blocks of the newest prompt, as added (the objects themselves): a request
        that must be cut keeps them whole and cuts what else their message holds."""
        self.sizer = RequestSizer()
        """Estimates this conversation's requests in tokens before they are sent."""
        self._prompt = HeldPrompt()
        """The newest prompt on its way to the journal (see `add_prompt`)."""
        self.kept_ratio: float | None = None
        """The estimate's ratio the journal holds (see `measured`), once it holds one."""
        self._call_ids = CallIds()
        self._thinking_of: str | None = None
        """The model whose signed thinking blocks the held replies carry (None: not known)."""
        for message in self._messages:
            if message.role == "assistant":
                self._call_ids.admit(message.content)

    @property
    def messages(self) -> tuple[Message, ...]:
        """The transcript, but for the messages folded before it (see `fold`)."""
        return tuple(self._messages)

    def __len__(self) -> int:
        return self.folded.count + len(self._messages)

    @property
    def newest(self) -> Message | None:
        """The last message, without copying the transcript as `messages` does."""
        return self._messages[-1] if self._messages else None

    def thinking_for(self, model: str) -> None:
        """Before a request to `model`, and as a reply `model` wrote is added or replayed:
        when the replies held were written by another model, their thinking blocks go (a
        signature holds for the model that made it only: the API refuses another's), as
        Claude Code drops them on a change of model. A reply whose model is not known (a
        session file without it) counts as the model's before it, or, with none before it,
        as the model the session asks first: its thinking goes once the model changes."""
        if self._thinking_of is not None and self._thinking_of != model:
            self._messages = [without_thinking(m) for m in self._messages]
        self._thinking_of = model

    def view(self) -> tuple[Message, ...]:
        """What the next request sends."""
        start = self._cut - self.folded.count
        if start >= 0:
            return self._summary + tuple(self._messages[start:])
        return self._folded_head() + tuple(self._messages[1:])

    def _folded_head(self) -> tuple[Message, ...]:
        left_out = -(self._cut - self.folded.count)  # view messages folded away
        first = self._messages[0] if self._messages else None
        made, head = self._stand_in
        now = (self.folded.count, self._cut, self._summary, first)
        if head and made[:2] == now[:2] and made[2] is now[2] and made[3] is now[3]:
            return head
        head = stand_in(left_out, self._summary, self.folded.carried(), first)
        self._stand_in = (now, head)
        return head

    def fold(self) -> None:
        """Fold every message before the newest point where the conversation can be cut (the
        newest message is never folded: content may still merge into it). The view then
        starts with a note standing for them, then the held messages: a resumed session does
        this to what is too far from its end for any request to send."""
        unanswered: set[str] = set()
        point = 0
        for index, message in enumerate(self._messages):  # as `compaction.cut_points`
            starts_cleanly = message.role == "assistant" or not message.tool_results()
            if index > 0 and not unanswered and starts_cleanly:
                point = index
            unanswered.update(use.id for use in message.tool_uses())
            unanswered.difference_update(r.tool_use_id for r in message.tool_results())
        for message in self._messages[:point]:
            self.folded.add(message)
        del self._messages[:point]

    def compact_to(self, before: Sequence[Message], compacted: Sequence[Message]) -> None:
        """Send `compacted` from now on instead of `before` (the view it was made from). The
        messages it kept unchanged stay live: new content still merges into them."""
        kept = 0
        while (
            kept < min(len(before), len(compacted))
            and compacted[len(compacted) - 1 - kept] is before[len(before) - 1 - kept]
        ):
            kept += 1
        if kept == 0:
            raise ValueError("a compacted view must end with the newest message unchanged")
        self.replay_compaction(compacted[: len(compacted) - kept], kept)
        self.release_prompt()  # what the compaction keeps was sent (its summary's request)
        if self.journal is not None:
            self.journal.compacted(self._summary, kept)

    def replay_compaction(self, summary: Sequence[Message], kept: int) -> None:
        """Send `summary` instead of everything but the newest `kept` messages."""
        if not 0 < kept <= len(self):
            raise ValueError(f"a compaction keeping {kept} of {len(self)} messages")
        self._summary = tuple(summary)
        self._cut = len(self) - kept
        self.compactions += 1
        self.folded.forget_before(self._cut)
        self.micro_memo.clear()

    def lighten_compacted(self) -> None:
        """Keep only the head and tail of long strings in the messages before the cut: no
        request sends them again (a later compaction summarises the view, not them), and a
        long session resumed from its file need not hold all it ever read."""
        folded = self.folded.count  # folded messages were lightened before they were folded
        for index in range(max(self._lightened, folded), self._cut):
            held = index - folded
            self._messages[held] = shrink_message(self._messages[held], LIGHT_CAP)
        self._lightened = max(self._lightened, self._cut)

    def lighten_newest(self) -> None:
        """Keep only the head and tail of long strings in the newest message: a session
        resumed from its file does this to what is too far from the end for any request to
        send in full (a request that held it would be past the window, and cut it anyway)."""
        if self._messages:
            self._messages[-1] = shrink_message(self._messages[-1], LIGHT_CAP)

    def unsaved(self) -> str | None:
        """Why the journal does not hold everything yet (None when it does, or there is none):
        work done now could be lost."""
        # Optional for a journal (one of an embedding program's may keep nothing on disk).
        check: Callable[[], str | None] | None = getattr(self.journal, "not_saved", None)
        return check() if check is not None else None

    def how_to_go_on(self) -> str:
        """What the journal holds and how to go on once it can be written (see `unsaved`)."""
        said: Callable[[], str] | None = getattr(self.journal, "how_to_go_on", None)
        return said() if said is not None else "Free space and try again."

    def refused_as_too_long(self, model: str, request: ModelRequest, message: str) -> None:
        """The endpoint refused `request` (sent to `model`) as too long, saying `message`:
        the estimate learns from it, and the window it names and what the estimate learnt
        are kept in the journal, so that a resumed session fits its requests to them from
        the first one (an endpoint counting more than the estimate refuses it once only)."""
        sizer = self.sizer
        ratio = sizer.chars_per_token
        news = sizer.refused(request, message)
        window = sizer.reported_window
        learnt = sizer.chars_per_token != ratio
        if self.journal is not None and window is not None and (news is not None or learnt):
            self.journal.window_reported(model, window, sizer.chars_per_token)

    def measured(
        self, model: str, request: ModelRequest, usage: Usage, window: int, cut: bool
    ) -> None:
        """A request the API answered, as sent, and the usage it reported: the estimate
        learns from it (`RequestSizer.measured`), and what it learnt is kept in the journal
        when it moved (by `KEPT_RATIO_STEP` or more), so that a resumed session estimates as
        this one does, when `request` was `cut` (or held notes): its messages cannot tell
        what such a request held."""
        sizer = self.sizer
        sizer.measured(request, usage, window)
        ratio, kept = sizer.chars_per_token, self.kept_ratio
        if (
            not cut
            or not sizer.calibrated
            or (kept is not None and abs(ratio - kept) < KEPT_RATIO_STEP * kept)
        ):
            return
        self.kept_ratio = ratio
        keep: Callable[[str, float], None] | None = getattr(self.journal, "estimate_measured", None)
        if keep is not None:
            keep(model, ratio)

    def add_prompt(self, blocks: Sequence[ContentBlock], entry_uuid: str | None = None) -> Message:
        """Append the user's prompt (`add_user`), held out of the journal until it is sent
        (`release_prompt`) or anything else is journaled after it: a prompt refused before
        it was sent (past the window) is taken back (`take_back`) without a trace in the
        session file."""
        self.release_prompt()
        admitted = self._admit_user(blocks)
        merged = self._append_user(admitted)
        self._prompt.hold(admitted, entry_uuid, journaled=self.journal is not None)
        return merged

    def release_prompt(self) -> bool:
        """Journal the prompt `add_prompt` holds, and what was added to it, if any: it is
        about to be sent (or something comes after it). Returns whether there was any."""
        return self._prompt.release(self.journal, self.newest)

    def prompt_sent(self) -> None:
        """A request holding the prompt `add_prompt` holds is about to be sent: journaled
        (`release_prompt`), and not sent while it cannot be saved (`stop_before_asking`)."""
        if self.release_prompt():
            self.stop_before_asking()

    def stop_before_asking(self) -> None:
        """No model call while the session file lacks an entry (its file cannot be made or
        appended to: a full disk, a read-only folder or file), new, resumed or forked: the
        answer, and the prompt, would be lost, and the call paid for nothing. What waits is
        tried once more first; raises HarnessError saying why and how to go on."""
        problem = self.unsaved()
        if problem is None:
            return
        raise HarnessError(
            f"stopped before asking the model: {problem.split('; ')[0]}. Nothing was sent to "
            f"it. {self.how_to_go_on()}"
        )

    def add_user(
        self,
        blocks: Sequence[ContentBlock],
        entry_uuid: str | None = None,
        result_uuids: Sequence[str] = (),
        structured: Sequence[Any] = (),
    ) -> Message:
        """Append user content; tool results always come first in a user message.
        `entry_uuid`: the uuid its journal entry takes (a prompt the client named).
        `result_uuids`, one per tool result: each result its own entry, as Claude Code
        writes them (what follows the results goes with the last), with what its call did
        as data from `structured`, when given one per result (its `toolUseResult`)."""
        admitted = self._admit_user(blocks)
        results = [b for b in admitted if isinstance(b, ToolResultBlock)]
        if not results and self._prompt.add_typed(admitted, entry_uuid):
            # Input added to a prompt not sent yet (typed ahead, steering): held with it.
            return self._append_user(admitted)
        self.release_prompt()
        merged = self._append_user(admitted)
        if self.journal is not None:
            if not results:
                self._prompt.journaled(admitted, merged)
            journal_user(self.journal, admitted, entry_uuid, result_uuids, structured)
        return merged

    def take_back(self) -> TakenBack | None:
        """Take the blocks of the newest `add_prompt` call back out of the newest message, and
        only them: a prompt that could not be sent (past the window) is not part of the
        conversation, but input added after it (typed ahead, steering) is. Not journaled
        yet, nothing of it is ("unsaved"); else its entry is withdrawn ("withdrawn": it was
        sent, and refused), with the entries journaled after it, which are held again to be
        journaled at the next request. Returns None, changing nothing, once a reply came."""
        taken = self._prompt.take_back(self._messages, self.journal)
        if taken is not None:
            self.turn_blocks = ()
        return taken

    def replay_user(self, blocks: Sequence[ContentBlock]) -> Message:
        return self._append_user(self._admit_user(blocks))

    def _admit_user(self, blocks: Sequence[ContentBlock]) -> tuple[ContentBlock, ...]:
        return self._call_ids.results(sendable_images(encodable_blocks(blocks)))

    def _append_user(self, blocks: tuple[ContentBlock, ...]) -> Message:
        if self._messages and self._messages[-1].role == "user":
            merged = (*self._messages[-1].content, *blocks)
            self._messages[-1] = Message(role="user", content=_results_first(merged))
        else:
            self._messages.append(Message(role="user", content=_results_first(tuple(blocks))))
        return self._messages[-1]

    def add_assistant(
        self, message: Message, usage: Usage | None = None, reply: ReplyEntries | None = None
    ) -> Message | None:
        """Append a reply, without the empty text blocks the API would reject on the way back.
        A reply left with nothing is not kept (returns None). `usage` is what the call cost;
        `reply` names its entries in the session file (`newest_entries` has those kept).
        Returns the message as kept: run the calls of that one (their ids may differ)."""
        reply = (reply or ReplyEntries()).fitted(len(message.content))
        if reply.model is not None:
            self.thinking_for(reply.model)
        pairs = [
            (b, u)
            for b, u in zip(message.content, reply.uuids, strict=True)
            if not (isinstance(b, TextBlock) and not b.text)
        ]
        if usage is not None:
            self.last_usage = usage
        if not pairs:
            return None
        self.release_prompt()
        kept = self._admit_assistant([b for b, _ in pairs])
        self._messages.append(kept)
        self.newest_entries = replaced(reply, uuids=tuple(u for _, u in pairs))
        if self.journal is not None:
            self.journal.assistant(kept, usage, self.newest_entries)
        return kept

    def replay_assistant(self, message: Message, model: str | None = None) -> Message:
        """Append a reply read back from the session file, written by `model` (None: not
        known, see `thinking_for`)."""
        if model is not None:
            self.thinking_for(model)
        kept = self._admit_assistant(message.content)
        self._messages.append(kept)
        return kept

    def _admit_assistant(self, blocks: Sequence[ContentBlock]) -> Message:
        return Message(role="assistant", content=self._call_ids.admit(encodable_blocks(blocks)))

    def unanswered_tool_uses(self) -> list[ToolUseBlock]:
        """Calls in the newest assistant message that no tool_result answers yet."""
        for i in range(len(self._messages) - 1, -1, -1):
            msg = self._messages[i]
            if msg.role == "assistant":
                answered = {
                    r.tool_use_id for m in self._messages[i + 1 :] for r in m.tool_results()
                }
                return [c for c in msg.tool_uses() if c.id not in answered]
        return []

    def answer_unanswered(
        self, reason: str, *, leave: Callable[[ToolUseBlock], bool] | None = None
    ) -> list[ToolResultBlock]:
        """Give every pending call an error result saying why it did not run (but those
        `leave` keeps pending, for the next turn to run: `run_left_calls`)."""
        results = [
            ToolResultBlock(tool_use_id=c.id, content=reason, is_error=True)
            for c in self.unanswered_tool_uses()
            if leave is None or not leave(c)
        ]
        if results:
            self.add_user(results)
        return results


def _results_first(blocks: tuple[ContentBlock, ...]) -> tuple[ContentBlock, ...]:
    results = tuple(b for b in blocks if isinstance(b, ToolResultBlock))
    others = tuple(b for b in blocks if not isinstance(b, ToolResultBlock))
    return results + others
