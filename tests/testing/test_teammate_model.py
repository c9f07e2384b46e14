"""The fake model for teammates (`mate_answers`) answers the team messages a teammate's model
reads: in its prompt, and those steered into a running turn beside tool results (a request
that came while the teammate worked was left unanswered, and `team send --wait` waited out
its timeout)."""

from __future__ import annotations

from typing import Any

from tether.store.mailbox import Message
from tether.teams.letters import letter
from tether.testing import RecordedRequest
from tether.testing.script import Reply, ToolCallPart, Turn
from tether.testing.teammates import mate_answers, polite

SYSTEM = "You are alice, a teammate in team t-1."
ASKED = Message(sender="team-lead", recipient="alice", kind="request", text="what is 2+2?")
TOLD = Message(sender="team-lead", recipient="alice", text="first of all")


def anthropic(*messages: dict[str, Any]) -> RecordedRequest:
    body = {"system": SYSTEM, "messages": list(messages)}
    return RecordedRequest(wire="anthropic", path="/v1/messages", headers={}, body=body, index=0)


def openai(*messages: dict[str, Any]) -> RecordedRequest:
    body = {"messages": [{"role": "system", "content": SYSTEM}, *messages]}
    return RecordedRequest(
        wire="openai", path="/v1/chat/completions", headers={}, body=body, index=0
    )


def said(turn: Turn) -> list[dict[str, Any]]:
    """The messages the turn sends (its SendMessage calls' input)."""
    blocks = turn.blocks if isinstance(turn, Reply) else (turn,)
    return [b.parsed_input() for b in blocks if isinstance(b, ToolCallPart)]


CALL = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "t1", "name": "SendMessage", "input": {}}],
}


def result(*extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "sent"}, *extra],
    }


def test_a_request_steered_in_beside_tool_results_is_answered() -> None:
    respond = mate_answers(polite)
    steered = {"type": "text", "text": letter(ASKED)}
    first = {"role": "user", "content": letter(TOLD)}
    (answer,) = said(respond(anthropic(first, CALL, result(steered))))
    assert answer == {
        "to": "team-lead",
        "message": "alice answers: what is 2+2?",
        "reply_to": ASKED.id,
    }


def test_tool_results_alone_end_the_turn_and_the_prompt_is_not_answered_twice() -> None:
    respond = mate_answers(polite)
    first = {"role": "user", "content": letter(TOLD)}
    assert said(respond(anthropic(first, CALL, result()))) == []
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "SendMessage", "arguments": "{}"}}
        ],
    }
    tool = {"role": "tool", "tool_call_id": "t1", "content": "sent"}
    assert said(respond(openai(first, call, tool))) == []  # its prompt is before the reply
    steered = {"role": "user", "content": letter(ASKED)}
    (answer,) = said(respond(openai(first, call, tool, steered)))
    assert answer["reply_to"] == ASKED.id
