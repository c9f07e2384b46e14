"""A `SendMessage` run again: a teammate killed inside its own `SendMessage` runs the call
again when it starts (`Tool.rerun_after_crash`), and the message is delivered once, never lost
and never twice. Its ids derive from the sending session's id, its member and the call's id:
the same on the rerun, and no other member's or session's (a call id is unique only within
its conversation). The stores skip an id they hold already; a request or reply the first run
stored changed its sender's protocol state with it (`send_as`), so the rerun finds it stored
and is done, without the protocol's checks that would now refuse it (waiting already, or the
request answered already)."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence

from tether.store.mailbox import Message, TeamStore

CALL_IDS = uuid.UUID("7f0d5a53-3c1e-4c1b-9a52-0d8f1f3b2c61")
"""The namespace of the ids derived from tool call ids."""


def message_id(session: str, sender: str, call_id: str, recipient: str) -> str:
    """The id of the message a tool call of `sender`'s session sends to `recipient`: the same
    on every run of the call, distinct per recipient (a broadcast), in the shape of the other
    ids. A call id is unique only within its conversation (providers number them, `call_1`,
    and two members' models give the same one): the sending session and member make the id
    theirs alone, else another member's message under it would be skipped as posted."""
    return uuid.uuid5(CALL_IDS, f"{session}\n{sender}\n{call_id}\n{recipient}").hex


async def resent(
    store: TeamStore,
    messages: Sequence[Message],
    call: Callable[[Callable[[], bool]], Awaitable[bool]],
) -> bool:
    """Whether an earlier run of the call stored these messages already (the same sender
    under the same id: another's under it is no rerun of this one): then the call is done.
    A plain message's store skips it anyway; a request's or a reply's must be known before
    the protocol is asked, as its sender's state moved with it. `call` runs the store's
    read (waiting out an outage)."""
    if len(messages) != 1 or messages[0].kind == "message":
        return False
    message = messages[0]
    return await call(lambda: store.posted(message.sender, message.id))
