"""A model for teammates sharing one fake server: each request is answered from the member whose
session sent it (named in its system prompt) and the team messages its newest prompt holds.

    fake.responder = mate_answers(lambda mate, letters, request: reply_to_each(mate, letters))
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

from tether.testing.recorded import RecordedRequest, content_text
from tether.testing.script import Turn, reply, text, tool_use

_MEMBER = re.compile(r"You are (\S+), a teammate in team")
_LETTER = re.compile(r"<teammate-message ([^>]*)>\n(.*?)\n</teammate-message>", re.S)
_ATTR = re.compile(r'(\w+)="([^"]*)"')


@dataclass(frozen=True)
class Letter:
    """A team message as the model read it."""

    id: str
    sender: str
    kind: str
    body: str
    reply_to: str | None = None


def member_of(request: RecordedRequest) -> str | None:
    found = _MEMBER.search(request.system())
    return found.group(1) if found else None


def letters_in(text_: str) -> list[Letter]:
    found: list[Letter] = []
    for head, body in _LETTER.findall(text_):
        attrs = {k: html.unescape(v) for k, v in _ATTR.findall(head)}
        found.append(
            Letter(
                id=attrs.get("id", ""),
                sender=attrs.get("from", ""),
                kind=attrs.get("kind", ""),
                body=body,
                reply_to=attrs.get("reply_to"),
            )
        )
    return found


def mate_answers(
    answer: Callable[[str, list[Letter], RecordedRequest], Turn],
    *,
    after_tools: Callable[[str, RecordedRequest], Turn] | None = None,
) -> Callable[[RecordedRequest], Turn]:
    """A responder: `answer(member, letters, request)` for a teammate's prompt; after its tool
    calls' results, `after_tools(member, request)` (default: `<member> done`)."""

    def respond(request: RecordedRequest) -> Turn:
        member = member_of(request) or "lead"
        if request.tool_results():
            steered = letters_in(steered_text(request))
            if steered:  # came during the turn: answered as a model reading them would
                return answer(member, steered, request)
            return after_tools(member, request) if after_tools else text(f"{member} done")
        return answer(member, letters_in(request.last_user_text()), request)

    return respond


def steered_text(request: RecordedRequest) -> str:
    """The user text sent since the model's latest reply, beside its tool results: what came
    while the turn ran (steered in)."""
    since: list[str] = []
    for message in reversed(request.messages()):
        if message.get("role") == "assistant":
            break
        if message.get("role") == "user":
            since.append(content_text(message.get("content")))
    return "\n".join(reversed(since))


def first_line(body: str) -> str:
    return body.splitlines()[0] if body else ""


def polite(member: str, letters: list[Letter], request: RecordedRequest) -> Turn:
    """Every letter answered: a shutdown approved, a request replied to, a message acknowledged
    to its sender; all the calls in one response."""
    calls = []
    for letter in letters:
        if letter.kind == "shutdown_request":
            message: object = {
                "type": "shutdown_response",
                "request_id": letter.id,
                "approve": True,
            }
            calls.append(tool_use("SendMessage", to=letter.sender, message=message))
        elif letter.kind == "request":
            said = f"{member} answers: {first_line(letter.body)}"
            calls.append(
                tool_use("SendMessage", to=letter.sender, message=said, reply_to=letter.id)
            )
        elif letter.kind == "message":
            said = f"{member} got: {first_line(letter.body)}"
            calls.append(tool_use("SendMessage", to=letter.sender, message=said))
    if not calls:
        return text(f"{member}: nothing to answer")
    return reply(*calls)
