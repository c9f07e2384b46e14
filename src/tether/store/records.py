"""What a session file's entries replay as: one record per entry of the conversation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from tether.protocol import ContentBlock, Message, Usage


@dataclass(frozen=True)
class UserRecord:
    """User content exactly as one append gave it (History merges it in memory)."""

    blocks: tuple[ContentBlock, ...]
    lines_added: int = 0
    lines_removed: int = 0
    """The lines the file change its tool result answers added and removed (counted from
    the entry's `toolUseResult`); 0 for anything else."""


@dataclass(frozen=True)
class AssistantRecord:
    message: Message
    usage: Usage | None
    message_id: str | None = None
    """The API's id of the response: Claude Code writes one entry per block of a response."""
    model: str | None = None
    """The model that wrote it (its entries' `message.model`); None: not known."""
    duration_ms: int = 0
    """What the model call took (the entries' `durationMs`, on one of them); 0: not known."""
    model_trusted: bool = True
    """False for a reply an older tether wrote (its entries carry neither `requestedModel`
    nor Claude Code's `version`): it named the session's first model on every reply, so
    `model` may be another's after a change of model (see `core.resume`)."""
    session_wall_ms: int = 0
    """The session's wall time when the reply was written, the runs before it included (the
    entries' `sessionWallMs`); 0: not known (a file of Claude Code or an older tether)."""


@dataclass(frozen=True)
class CompactionRecord:
    """From here on the summary stands for all but the newest `kept` messages."""

    summary: tuple[Message, ...]
    kept: int


@dataclass(frozen=True)
class SpendRecord:
    """Model calls outside the conversation (a subagent, a compaction summary): what they used
    and cost, so that a resumed session counts them."""

    usage: Usage
    cost_usd: float


@dataclass(frozen=True)
class WindowRecord:
    """The endpoint said `model`'s context window is `tokens` (when it refused a request as
    too long): a resumed session fits its requests to it from the first one, estimated at
    `chars_per_token` (what the refusal's count taught, when it gave one)."""

    model: str
    tokens: int
    chars_per_token: float | None = None


@dataclass(frozen=True)
class EstimateRecord:
    """What `model`'s accepted requests taught the estimate: `chars_per_token`, measured
    against the request as it was sent (cut or not), which the conversation's messages
    alone cannot tell a resumed session."""

    model: str
    chars_per_token: float


Record: TypeAlias = (
    UserRecord | AssistantRecord | CompactionRecord | SpendRecord | WindowRecord | EstimateRecord
)
