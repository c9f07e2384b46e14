"""How many tokens a request will take, known before it is sent.

There is no tokenizer for every model tether speaks to, but there is a measure: each response
reports how many tokens its prompt took, and we know how many characters of JSON that prompt
was. Their ratio, taken from this conversation's own requests, turns the characters of the
next request into tokens. Before the first response a cautious ratio is assumed (fewer
characters per token than most text has, so the estimate errs high). A refusal as too long
corrects the ratio with the count the API gives.

A request no bigger than one the API accepted fits, whatever the ratio says: reported usage
can be odd (some servers count what they like), and the ratio must not shrink what is known
to fit.

Each message's size is computed once: the sizes of the prefix a request shares with the
previous one (the same message objects) are reused, so sizing costs the new messages only.
"""

from __future__ import annotations

import dataclasses
import json
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Literal

from tether.core.carried import is_compaction_text
from tether.core.compaction import recent_part
from tether.core.message_size import ASSUMED_CHARS_PER_TOKEN, message_chars
from tether.core.shrink import shrink_to_fit
from tether.models.base import ModelRequest
from tether.protocol import (
    ContentBlock,
    HarnessError,
    Message,
    ModelError,
    TextBlock,
    ToolResultBlock,
    Usage,
)

PROMPT_TOO_LONG = "Prompt is too long"
"""How Claude Code begins its error for a prompt past the window (SDK programs look for it)."""

FILL = 0.9
"""Share of the window a request may fill by estimate: the rest absorbs estimation error."""
ATTEMPTS = 3
"""Requests refused as too long before giving up (each one corrects the estimate)."""

_RATIO_BOUNDS = (1.0, 8.0)
_REPORTED = (
    re.compile(r"prompt is too long: (\d[\d,]*) tokens"),  # Anthropic
    re.compile(r"resulted in (\d[\d,]*) tokens"),  # OpenAI
    re.compile(r"\((\d[\d,]*) in the messages"),  # vLLM: "(P in the messages, M in the completion)"
    re.compile(r"request has (\d[\d,]*) input tokens"),  # vLLM: "'max_tokens' ... is too large"
)
REPLY_FLOOR = 1024
"""The least room for the reply a request is sent with, however full the window."""
_MAXIMUM = (
    re.compile(r"tokens > (\d[\d,]*) maximum"),  # Anthropic
    re.compile(r"maximum context length is (\d[\d,]*) tokens"),  # OpenAI
)


class DoesNotFit(HarnessError):
    """No request of this conversation can be made to fit the window. `fixed`: the system
    prompt and the tools alone leave the messages no room (no compaction can help)."""

    def __init__(self, message: str, *, fixed: bool) -> None:
        super().__init__(message)
        self.fixed = fixed


class RequestSizer:
    """Estimates requests of one conversation in tokens (see the module's doc)."""

    def __init__(self) -> None:
        self.chars_per_token = ASSUMED_CHARS_PER_TOKEN
        self.calibrated = False
        """Whether the ratio comes from the API's answers (else it is assumed)."""
        self.accepted_chars = 0
        """The biggest request (in characters) the API answered: one no bigger fits."""
        self.reported_window: int | None = None
        """The window the API said it has, when it refused a request as too long: it wins
        over a configured window that is larger (a catalogue or setting can be wrong)."""
        self._messages: list[Message] = []
        self._sizes: list[int] = []
        self._fixed: tuple[str, object, tuple[int, int]] | None = None

    def message_size(self, message: Message) -> int:
        """Characters of one message's JSON (`message_chars`)."""
        return message_chars(message)

    def chars(self, request: ModelRequest) -> int:
        """Characters of the request's JSON: system prompt, tools and messages."""
        return self._fixed_chars(request) + sum(self._message_sizes(request.messages))

    def tokens(self, request: ModelRequest) -> int:
        return int(self.chars(request) / self.chars_per_token) + 1

    def estimate(self, messages: Sequence[Message]) -> int:
        """About how many tokens a request sending `messages` takes, with the system prompt
        and tools of the last request sized (none before the first)."""
        fixed = sum(self._fixed[2]) if self._fixed is not None else 0
        chars = fixed + sum(self.message_size(m) for m in messages)
        return int(chars / self.chars_per_token) + 1 if chars else 0

    def fits(self, request: ModelRequest, window: int, *, reserve_chars: int = 0) -> bool:
        """Whether `request`, and `reserve_chars` more, fit `FILL` of `window`."""
        chars = self.chars(request) + reserve_chars
        return chars <= self.accepted_chars or chars / self.chars_per_token <= FILL * window

    def budget_chars(self, request: ModelRequest, tokens: float) -> int:
        """How many characters of messages `request` may carry to take about `tokens`."""
        return int(tokens * self.chars_per_token) - self._fixed_chars(request)

    def measured(self, request: ModelRequest, usage: Usage, window: int) -> None:
        """Learn from a request the API answered and the usage it reported. A count past
        `window` cannot be this request's (it was accepted): such usage is not learnt from."""
        chars = self.chars(request)
        self.accepted_chars = max(self.accepted_chars, chars)
        if 0 < usage.context_tokens <= window:
            self._learn(chars / usage.context_tokens)

    def window(self, configured: int) -> int:
        """The window to fit: the configured one, or the API's own when it said less."""
        return min(configured, self.reported_window or configured)

    def refused(self, request: ModelRequest, message: str) -> int | None:
        """Learn from a refusal as too long: the window it names, the count it gives (else
        lower the ratio). Returns the window it names when that is news (worth keeping)."""
        self.accepted_chars = min(self.accepted_chars, self.chars(request) * 9 // 10)
        news: int | None = None
        for pattern in _MAXIMUM:
            found = pattern.search(message)
            if found is not None:
                reported = int(found.group(1).replace(",", ""))
                news = None if reported == self.reported_window else reported
                self.reported_window = reported
        for pattern in _REPORTED:
            found = pattern.search(message)
            if found is not None:
                self._learn(self.chars(request) / int(found.group(1).replace(",", "")))
                return news
        self._learn(self.chars_per_token * 0.75)
        return news

    def resumed(self, window: int, chars_per_token: float | None) -> None:
        """What a refusal taught the session this one resumes (see `refused`): the window the
        API said it has, and the estimate its count made, when it gave one."""
        self.reported_window = window
        if chars_per_token is not None:
            self._learn(chars_per_token)

    def resumed_ratio(self, chars_per_token: float) -> None:
        """What the accepted requests of the session this one resumes took: learnt when it
        is lower than the ratio held (a refusal's count, kept too, may have said less)."""
        if not self.calibrated or chars_per_token < self.chars_per_token:
            self._learn(chars_per_token)

    def resumed_from(self, request: ModelRequest, usage: Usage, window: int) -> None:
        """What a resumed session's newest reply reported of its prompt (`usage`), which was
        `request` at most (what was sent may have been cut): a ratio lower than the one held
        is learnt, a higher one not (the request may be counted bigger than it was sent)."""
        tokens = usage.context_tokens
        if 0 < tokens <= window and (ratio := self.chars(request) / tokens) < self.chars_per_token:
            self._learn(ratio)

    def _learn(self, ratio: float) -> None:
        self.calibrated = True
        low, high = _RATIO_BOUNDS
        self.chars_per_token = min(high, max(low, ratio))

    def _fixed_chars(self, request: ModelRequest) -> int:
        return sum(self.fixed_parts(request))

    def fixed_parts(self, request: ModelRequest) -> tuple[int, int]:
        """Characters of the system prompt, and of the tools' definitions."""
        fixed = self._fixed
        if fixed is None or fixed[0] is not request.system or fixed[1] is not request.tools:
            tools = json.dumps([t.model_dump() for t in request.tools], ensure_ascii=False)
            fixed = self._fixed = (request.system, request.tools, (len(request.system), len(tools)))
        return fixed[2]

    def _message_sizes(self, messages: Sequence[Message]) -> list[int]:
        same = list(map(operator.is_, messages, self._messages))
        shared = same.index(False) if False in same else len(same)
        self._sizes = self._sizes[:shared] + [self.message_size(m) for m in messages[shared:]]
        self._messages = list(messages)
        return self._sizes


def fitted(
    request: ModelRequest,
    sizer: RequestSizer,
    window: int,
    *,
    aim: float = FILL,
    reserve_chars: int = 0,
    parts: Sequence[tuple[str, int]] = (),
    prompt: Sequence[ContentBlock] = (),
) -> ModelRequest:
    """`request` itself when it (and `reserve_chars` more, what the caller will add) fits
    `FILL` of `window`; else with its biggest blocks cut so that it takes about `aim` of the
    window (less than FILL leaves room to go on without cutting again at once).

    The prompt that started the turn is never cut: the model would answer words it never saw.
    `prompt` is its blocks (the newest prompt's, as the history holds them): what else the
    same message holds (an older prompt nothing answered, say one a session file kept from
    before prompts refused as too long were taken back) is cut like any other block. Without
    them, the whole newest message of the user's own words counts as the prompt.
    When it alone is past the window, the request is sent whole while the estimate is only
    assumed (the API's refusal tells the real count), and PromptTooLong is raised once the
    estimate comes from the API. Raises HarnessError when even cut to the bone the messages
    do not fit beside the system prompt and tools (naming the biggest of the system prompt's
    `parts`, when it is the system prompt that leaves no room)."""
    if sizer.fits(request, window, reserve_chars=reserve_chars):
        return request
    room = sizer.budget_chars(request, FILL * window) - reserve_chars  # for the messages
    aimed = sizer.budget_chars(request, min(aim, FILL) * window) - reserve_chars
    if room <= 0:  # the system prompt and tools alone: no cut of the messages can help
        if sizer.calibrated or _fixed_past_at_best(request, sizer, window):
            raise _does_not_fit(request, sizer, window, parts)
        return request  # past only by the cautious assumed ratio: the API's answer tells
    at = turn_prompt(request.messages)
    own = {id(block) for block in prompt}
    prompt_chars = (
        sizer.message_size(_prompt_part(request.messages[at], own)[1]) if at is not None else 0
    )
    if prompt_chars > room:
        if not sizer.calibrated and not _prompt_past_at_best(request, prompt_chars, sizer, window):
            return request  # past only by the cautious assumed ratio: the API's answer tells
        raise PromptTooLong(sizer.tokens(request), window)
    # Aim lower, but leave the messages half their room at least, and the older ones half of
    # what the turn's prompt leaves (a prompt bigger than the aim is no reason to give up).
    budget = max(aimed, room // 2, prompt_chars + (room - prompt_chars) // 2)
    messages, fits = _shrink_except(request.messages, at, sizer.message_size, budget, own)
    if not fits:  # too many messages, not too long ones: the oldest are left out of this one
        messages = recent_part(messages, sizer.message_size, budget)
        at = turn_prompt(messages)
        messages, fits = _shrink_except(messages, at, sizer.message_size, budget, own)
    if not fits:
        raise _does_not_fit(request, sizer, window, parts)
    return replace(request, messages=messages)


MOST_CHARS_PER_TOKEN = 4.0
"""The most characters a token takes in prose and code: at it, an estimate errs low."""


def _fixed_past_at_best(request: ModelRequest, sizer: RequestSizer, window: int) -> bool:
    """Whether the system prompt and tools pass `FILL` of the window even at the most
    characters a token usually takes: known not to fit before any answer said the ratio."""
    return sum(sizer.fixed_parts(request)) / MOST_CHARS_PER_TOKEN > FILL * window


def _prompt_past_at_best(
    request: ModelRequest, prompt_chars: int, sizer: RequestSizer, window: int
) -> bool:
    """Whether the turn's prompt, beside the system prompt and tools, passes the window even
    at the most characters a token usually takes: known not to fit, so never sent."""
    fixed = sum(sizer.fixed_parts(request))
    return (fixed + prompt_chars) / MOST_CHARS_PER_TOKEN > window


def _does_not_fit(
    request: ModelRequest, sizer: RequestSizer, window: int, parts: Sequence[tuple[str, int]]
) -> DoesNotFit:
    """Why nothing fits: the system prompt and tools, when they take most of the window (a
    small window, long instructions, many tools); else the newest exchange."""
    system, tools = (round(c / sizer.chars_per_token) for c in sizer.fixed_parts(request))
    if system + tools > FILL * window / 2:
        return DoesNotFit(
            f"the system prompt (about {system:,} tokens, {_named(parts, sizer, window)}) "
            f"and the {len(request.tools)} tools' definitions (about {tools:,} tokens) leave "
            f"too little room for the conversation in the model's {window:,}-token context "
            "window: use a model with a larger window (or set contextWindow, if this one's is "
            "larger), fewer tools, or shorter instructions",
            fixed=True,
        )
    return DoesNotFit(
        f"the newest exchange cannot be made to fit the model's {window:,}-token context "
        "window beside the system prompt and tools, even cut short: start a new session, "
        "or use a model with a larger window",
        fixed=False,
    )


NAMED_PARTS = 6
"""The most parts of the system prompt a "does not fit" names (the biggest)."""


NAMED_SHARE = 0.05
"""The least share of the window a part of the system prompt takes to be named."""


def _named(parts: Sequence[tuple[str, int]], sizer: RequestSizer, window: int) -> str:
    """The biggest parts of the system prompt with their sizes, for the user to shorten."""
    least = NAMED_SHARE * window * sizer.chars_per_token
    big = (p for p in parts if p[1] > 0 and p[1] >= least)
    biggest = sorted(big, key=lambda p: -p[1])[:NAMED_PARTS]
    if not biggest:
        return "instructions and memory included"
    said = ", ".join(
        f"{name} {chars:,} characters (about {round(chars / sizer.chars_per_token):,} tokens)"
        for name, chars in biggest
    )
    return f"of which {said}"


TakenBack = Literal["unsaved", "withdrawn"]
"""How a prompt too long to send was taken back out of its session (`History.take_back`):
never written to the session file, or, sent and refused, marked there as taken back."""

TAKEN_BACK: dict[TakenBack, str] = {
    "unsaved": "Nothing of the prompt was sent or kept in the session: the session goes on "
    "without it.",
    "withdrawn": "The prompt stays in the session file, marked as taken back, but will not be "
    "sent again: the session goes on without it.",
}
"""What a refusal adds once its prompt was taken back."""


class PromptTooLong(ModelError):
    """The prompt alone does not fit the model's window: said as Claude Code says it (an
    `invalid_request_error` the API would give, with the estimate and the limit). With
    `reply_room`, the prompt fits and the room asked for the reply is what does not."""

    def __init__(
        self,
        tokens: int,
        window: int,
        *,
        reply_room: int | None = None,
        taken: TakenBack | None = None,
    ) -> None:
        self.tokens, self.window, self.reply_room = tokens, window, reply_room
        self.taken = taken
        """How the prompt was taken back out of the session (see `taken_back`), if it was."""
        if reply_room is None:
            said = "and the prompt is most of it: send less (smaller files or pasted text)"
        else:
            said = (
                f"with {reply_room} of them kept for the reply: the endpoint counts the reply "
                "in its window; set a smaller maxOutputTokens (or a larger contextWindow)"
            )
        super().__init__(
            f"{PROMPT_TOO_LONG} · the request is ~{tokens} tokens (limit {window}) {said}"
            + (f". {TAKEN_BACK[taken]}" if taken is not None else ""),
            status=400,
            error_type="invalid_request_error",
        )


def taken_back(error: PromptTooLong | DoesNotFit, taken: TakenBack) -> PromptTooLong | DoesNotFit:
    """The same refusal, saying how its prompt was taken back out of the session (`taken`):
    the session goes on without it, so whoever holds its text keeps it."""
    if isinstance(error, DoesNotFit):
        return DoesNotFit(f"{error}. {TAKEN_BACK[taken]}", fixed=error.fixed)
    return PromptTooLong(error.tokens, error.window, reply_room=error.reply_room, taken=taken)


def with_reply_room(request: ModelRequest, sizer: RequestSizer, window: int) -> ModelRequest:
    """`request` with its `max_tokens` cut to what the window leaves after the prompt (by
    estimate, with a margin; `REPLY_FLOOR` at least): endpoints such as vLLM refuse a
    prompt and a reply's room that together pass the window."""
    room = max(REPLY_FLOOR, int(window * (1 - MARGIN)) - sizer.tokens(request))
    if request.max_tokens <= room:
        return request
    return dataclasses.replace(request, max_tokens=room)


MARGIN = 0.03
"""Share of the window the reply's room leaves to estimation error."""


def turn_prompt(messages: Sequence[Message]) -> int | None:
    """Where the prompt that started the turn is: the newest user message of the user's own
    words (text or images, no tool results)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role != "user":
            continue
        if any(isinstance(b, ToolResultBlock) for b in message.content):
            continue
        return index
    return None


def _shrink_except(
    messages: Sequence[Message],
    at: int | None,
    size: Callable[[Message], int],
    budget: int,
    own: set[int],
) -> tuple[tuple[Message, ...], bool]:
    """`shrink_to_fit`, the turn's prompt (in the message at `at`) kept whole; what is before
    it in that message (a compaction's summary and carried prompts, older prompts) is cut
    like the rest."""
    if at is None:
        return shrink_to_fit(messages, size, budget)
    ours, kept = _prompt_part(messages[at], own)
    others = [*messages[:at], *([ours] if ours is not None else []), *messages[at + 1 :]]
    shrunk, fits = shrink_to_fit(others, size, budget - size(kept))
    if ours is not None:  # the stand-in, cut, back in front of the prompt
        kept = Message(role=kept.role, content=(*shrunk[at].content, *kept.content))
        shrunk = (*shrunk[:at], *shrunk[at + 1 :])
    return (*shrunk[:at], kept, *shrunk[at:]), fits


def _prompt_part(message: Message, own: set[int]) -> tuple[Message | None, Message]:
    """`message` split into what is before the turn's prompt (None if nothing) and the
    prompt itself: from the first of the blocks whose ids are in `own` when it holds any,
    else after the blocks a compaction wrote at its head."""
    head = next((i for i, b in enumerate(message.content) if id(b) in own), None)
    if head is None:
        head = 0
        for block in message.content:
            if not (isinstance(block, TextBlock) and is_compaction_text(block.text)):
                break
            head += 1
    if head == 0:
        return None, message
    ours = Message(role=message.role, content=message.content[:head])
    return ours, Message(role=message.role, content=message.content[head:])
