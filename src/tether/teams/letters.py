"""A team message as the receiving model reads it, and the ids of those a session already has.

Each delivered message becomes one `<teammate-message ...>` block in the recipient's session
(as a prompt, or before its next model call): its id is in the block, so that after a crash the
session file itself says which messages it holds, and a redelivered one is dropped rather
than shown twice. The sender's text cannot forge a block: the tag is escaped inside it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

from tether.protocol import Message as SessionMessage
from tether.protocol import TextBlock
from tether.store.mailbox import Message

TAG = "teammate-message"
_ID = re.compile(rf'<{TAG} id="([^"]+)"')
_BLOCK = re.compile(rf"<{TAG} ([^>]*)>\n(.*?)\n?</{TAG}>", re.DOTALL)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_HOW_TO_ANSWER = {
    "request": 'Answer with SendMessage(to="{sender}", reply_to="{id}", message=...).',
    "shutdown_request": (
        'Answer with SendMessage(to="{sender}", message={{"type": "shutdown_response", '
        '"request_id": "{id}", "approve": true}}) to finish and stop, or approve: false '
        "with a reason to keep working."
    ),
    "plan_approval_request": (
        'Answer with SendMessage(to="{sender}", message={{"type": "plan_approval_response", '
        '"request_id": "{id}", "approve": true}}), or approve: false with feedback.'
    ),
}


def letter(message: Message, note: str | None = None, *, answered: bool = True) -> str:
    """The text the recipient's model reads for `message`; `answered` False: a request not
    obeyed (`Received.obeyed`), so no word on how to answer it."""
    attrs = [("id", message.id), ("from", message.sender), ("kind", message.kind)]
    if message.reply_to:
        attrs.append(("reply_to", message.reply_to))
    summary = message.data.get("summary")
    if isinstance(summary, str) and summary:
        attrs.append(("summary", summary))
    head = " ".join(f'{name}="{html.escape(value, quote=True)}"' for name, value in attrs)
    body = [_escaped(message.text)] if message.text else []
    for key in ("approve", "plan", "feedback", "reason"):
        if key in message.data:
            body.append(f"{key}: {_escaped(str(message.data[key]))}")
    if note:  # it may quote what a member wrote: escaped as the rest
        body.append(f"(note: {_escaped(note)})")
    how = _HOW_TO_ANSWER.get(message.kind) if answered else None
    if how is not None:
        body.append(how.format(sender=message.sender, id=message.id))
    return f"<{TAG} {head}>\n" + "\n".join(body) + f"\n</{TAG}>"


def timed_out(request: Message) -> str:
    """What a member is told when its request got no reply in time."""
    return (
        f'<{TAG}-error request_id="{request.id}">\nError: request {request.id} to '
        f"{request.recipient} got no reply in time: you are no longer waiting for it (a late "
        f"reply will still reach you, marked as late).\n</{TAG}-error>"
    )


def held_ids(messages: Iterable[SessionMessage]) -> set[str]:
    """Ids of the team messages the session's user messages hold."""
    found: set[str] = set()
    for message in messages:
        if message.role != "user":
            continue
        for block in message.content:
            if isinstance(block, TextBlock) and TAG in block.text:
                found.update(_ID.findall(block.text))
    return found


def newest_letter(
    messages: Sequence[SessionMessage], kinds: Iterable[str]
) -> tuple[str, str] | None:
    """The kind and text of the newest letter of one of `kinds` the session holds (a
    teammate resuming its turn names what it works on from its session alone), or None."""
    wanted = set(kinds)
    for message in reversed(messages):
        if message.role != "user":
            continue
        for block in reversed(message.content):
            if not isinstance(block, TextBlock) or TAG not in block.text:
                continue
            for found in reversed(_BLOCK.findall(block.text)):
                attrs = dict(_ATTR.findall(found[0]))
                kind = html.unescape(attrs.get("kind", ""))
                if kind in wanted:
                    return kind, _letter_text(attrs, kind, found[1])
    return None


def _letter_text(attrs: dict[str, str], kind: str, body: str) -> str:
    """The text a letter carries, without the lines `letter` adds after it."""
    lines = body.split("\n")
    how = _HOW_TO_ANSWER.get(kind)
    sender, message_id = html.unescape(attrs.get("from", "")), html.unescape(attrs.get("id", ""))
    if how is not None and lines and lines[-1] == how.format(sender=sender, id=message_id):
        lines.pop()
    if lines and lines[-1].startswith("(note: ") and lines[-1].endswith(")"):
        lines.pop()
    text = "\n".join(lines)
    return text.replace(f"&lt;/{TAG}", f"</{TAG}").replace(f"&lt;{TAG}", f"<{TAG}")


def written_ids(entry: dict[str, object]) -> set[str]:
    """Ids of the team messages a user entry written to a session file holds."""
    if entry.get("type") != "user":
        return set()
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    texts: list[str] = []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                texts.append(block["text"])
    return {i for text in texts if TAG in text for i in _ID.findall(text)}


def _escaped(text: str) -> str:
    return text.replace(f"<{TAG}", f"&lt;{TAG}").replace(f"</{TAG}", f"&lt;/{TAG}")
