"""What every mailbox store does the same way: reading a stored message back (one that cannot
be read is handed over as `kind="invalid"`, never dropped), and the roster's checks."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from tether.store.mailbox import (
    MailboxError,
    Member,
    Message,
    TeamExists,
    TeamRecord,
    UnknownMember,
)

INVALID_KIND = "invalid"
"""The kind of a stored entry that is not a message: its raw text in `text`, why in
`data["error"]`, its id `invalid:<receipt>` (the same on every redelivery)."""


def read_stored(
    raw: str | bytes | None,
    *,
    receipt: str,
    member: str,
    fields: Mapping[str, Any] | None = None,
) -> Message:
    """The message a store kept as JSON, or an `invalid` one carrying what was there (an
    entry with no data: its other `fields`, as JSON; bytes that are not UTF-8, or text a store
    decoded with `surrogateescape` from such bytes: shown with replacement characters)."""
    if raw is not None:
        text, whole = _utf8(raw)
        if not whole:
            return _invalid(text, "is not UTF-8 text", receipt, member)
        raw = text
    if raw is None:
        text = json.dumps(dict(fields), ensure_ascii=False, default=str) if fields else ""
        why = "has no message in it (no data field" + (
            "; its fields are its text)" if text else ")"
        )
        return _invalid(text, why, receipt, member)
    try:
        return Message.model_validate_json(raw)
    except ValidationError as e:
        first = e.errors()[0]
        if first["type"] == "json_invalid":
            why = f"is not valid JSON ({first['msg'].removeprefix('Invalid JSON: ')})"
        else:
            where = ".".join(str(p) for p in first["loc"]) or "the message"
            why = f"is not a message ({where}: {first['msg']})"
        return _invalid(raw, why, receipt, member)


def _utf8(raw: str | bytes) -> tuple[str, bool]:
    """`raw` as text, and whether it was UTF-8 throughout."""
    if isinstance(raw, bytes):
        try:
            return raw.decode("utf-8"), True
        except UnicodeDecodeError:
            return raw.decode("utf-8", errors="replace"), False
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        undone = raw.encode("utf-8", errors="surrogateescape") if _escaped(raw) else None
        if undone is not None:
            return undone.decode("utf-8", errors="replace"), False
        return raw.encode("utf-8", errors="replace").decode("utf-8"), False
    return raw, True


def _escaped(text: str) -> bool:
    """Whether every lone surrogate in `text` is one `surrogateescape` made of a byte."""
    return all("\udc80" <= c <= "\udcff" for c in text if "\ud800" <= c <= "\udfff")


def _invalid(raw: str, why: str, receipt: str, member: str) -> Message:
    return Message(
        id=f"{INVALID_KIND}:{receipt}",
        sender="",
        recipient=member,
        kind=INVALID_KIND,
        text=raw,
        data={"error": f"stored entry {receipt} in {member}'s mailbox {why}"},
        sent_at=0.0,
    )


def stored(message: Message) -> str:
    """The JSON a store keeps for a message."""
    if not message.recipient:
        raise MailboxError("a message needs a recipient")
    return message.model_dump_json()


def check_team_record(team: str, record: TeamRecord) -> None:
    if record.name != team:
        raise MailboxError(f"this store holds team {team!r}: cannot create team {record.name!r}")


def check_member(member: Member) -> None:
    if not member.name.strip():
        raise MailboxError("a member needs a name")


def unknown_member(team: str, name: str, names: Iterable[str]) -> UnknownMember:
    listed = ", ".join(names) or "none yet"
    return UnknownMember(f"no member {name!r} in team {team!r} (members: {listed})")


def changed_member(member: Member, changes: Mapping[str, Any]) -> Member:
    """The member with `changes` applied, each checked: an unknown field or a wrong value is
    refused, naming it; the name cannot change."""
    unknown = sorted(set(changes) - set(Member.model_fields))
    if unknown:
        raise MailboxError(f"member {member.name!r}: no field {', '.join(map(repr, unknown))}")
    if "name" in changes and changes["name"] != member.name:
        raise MailboxError(f"member {member.name!r}: a member's name cannot change")
    data = {**member.model_dump(), **changes, "updated_at": time.time()}
    try:
        changed = Member.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise MailboxError(f"member {member.name!r}: {where}: {first['msg']}") from None
    # An answer is kept only while its plan request is held: once the member takes it in
    # (the request leaves `requests_sent`), it is consumed, in the same write.
    held = {h.message.id for h in changed.requests_sent}
    if any(i not in held for i in changed.plan_answers):
        kept = {i: ok for i, ok in changed.plan_answers.items() if i in held}
        changed = changed.model_copy(update={"plan_answers": kept})
    return changed


def dumps(value: Member | TeamRecord) -> str:
    return json.dumps(value.model_dump(), ensure_ascii=False)


def team_exists(team: str, record: TeamRecord) -> TeamExists:
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(record.created_at))
    return TeamExists(
        f"team {team!r} exists (lead {record.lead!r}, created {when}): pick another name"
    )
