"""A send the store cut part way: which recipients hold the message and which do not, and
the ids it was tried under, so that the model's resend of the same message (the same `to`,
kind, text and reply) is tried under them again. A broadcast is stored one recipient at a
time; when the store stops answering at the k-th, those before it hold the message, and a
resend under new ids would give it to them twice. Under the same ids the stores skip those
that hold it (posted by sender and id), and a try whose answer was lost is not doubled."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tether.store.mailbox import Message

SendKey = tuple[str, str, str, str | None]
"""What makes a resend the same message: `to`, kind, text, reply_to."""


class PartlySent(Exception):
    """The store took the message for some recipients, then stopped answering (or refused
    one): `stored` hold it, `not_stored` do not, `cause` says why."""

    def __init__(
        self, stored: Sequence[Message], not_stored: Sequence[Message], cause: BaseException
    ) -> None:
        self.stored, self.not_stored, self.cause = list(stored), list(not_stored), cause
        have = ", ".join(m.recipient for m in self.stored)
        lack = ", ".join(m.recipient for m in self.not_stored)
        super().__init__(
            f"sent to {have}; not sent to {lack}: {cause or type(cause).__name__}; send the "
            f"same message again once the store answers: it goes to {lack} only"
        )


@dataclass
class CutSends:
    """The ids of each message whose send was cut, by what makes a resend the same one."""

    _ids: dict[SendKey, dict[str, str]] = field(default_factory=dict[SendKey, dict[str, str]])

    def id_for(self, key: SendKey, recipient: str) -> str | None:
        """The id the cut send tried `recipient` under (None: no cut send of it)."""
        return self._ids.get(key, {}).get(recipient)

    def cut(self, key: SendKey, messages: Sequence[Message]) -> None:
        self._ids.setdefault(key, {}).update({m.recipient: m.id for m in messages})

    def done(self, key: SendKey) -> None:
        self._ids.pop(key, None)
