"""`SendMessage`, with Claude Code's input names (`to`, `message`, `summary`; a structured
`message` for shutdown and plan approval), and tether's request and reply: `request: true`
asks for a reply (the sender waits for it, and may not send another request meanwhile),
`reply_to` answers one. What the protocol refuses is an error result saying why."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tether.core.tool_calls import current_call
from tether.protocol import ToolError
from tether.store.mailbox import MailboxError, Message
from tether.store.task_records import StoreUnavailable
from tether.teams.cut_sends import PartlySent
from tether.teams.link import BROADCAST, TeamLink
from tether.teams.protocol import ProtocolError
from tether.teams.receiving import StorePatienceOut
from tether.tools.base import Tool, ToolOutput, tool
from tether.tools.context import ToolContext


class ShutdownRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["shutdown_request"]
    reason: str | None = None


class ShutdownResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["shutdown_response"]
    request_id: str
    approve: bool
    reason: str | None = None


class PlanApprovalRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["plan_approval_request"]
    plan: str


class PlanApprovalResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["plan_approval_response"]
    request_id: str
    approve: bool
    feedback: str | None = None


Structured = Annotated[
    ShutdownRequest | ShutdownResponse | PlanApprovalRequest | PlanApprovalResponse,
    Field(discriminator="type"),
]


class SendMessageInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    to: str = Field(description=f'Recipient: a teammate\'s name, or "{BROADCAST}" for everyone')
    message: str | Structured = Field(
        description="Plain text, or a structured message: shutdown_request, shutdown_response "
        "(request_id, approve), plan_approval_request (plan), plan_approval_response "
        "(request_id, approve, feedback)"
    )
    summary: str | None = Field(default=None, description="A 5-10 word preview")
    request: bool = Field(
        default=False,
        description="Ask for a reply: you wait for it (it arrives as a message) and may not "
        "send another request until it comes or times out",
    )
    reply_to: str | None = Field(
        default=None, description="The id of the request this message answers"
    )
    timeout_s: float | None = Field(
        default=None, gt=0, description="With request: seconds to wait for the reply"
    )


def send_message_tool(link_of: TeamLink | Callable[[], TeamLink | None]) -> Tool:
    """`SendMessage` through a member's link (or, for a lead, the link of the team it created
    meanwhile)."""

    @tool("SendMessage", read_only=True, rerun_after_crash=True)
    async def send_message(ctx: ToolContext, args: SendMessageInput) -> ToolOutput:
        """Send a message to another member of your team (or to all with "*"). Your plain
        text output is not seen by other agents: to talk to them you must use this tool.
        Messages to you arrive on their own, as <teammate-message> blocks. Ask for a reply
        with request: true; answer a request with reply_to set to its id."""
        link = link_of if isinstance(link_of, TeamLink) else link_of()
        if link is None:
            raise ToolError("you are in no team: create one with TeamCreate first")
        kind, text, reply_to, data = _what(args)
        if args.summary:
            data["summary"] = args.summary
        call = current_call.get()
        try:
            sent = await link.send(
                args.to,
                kind,
                text,
                reply_to=reply_to,
                data=data,
                timeout_s=args.timeout_s,
                call_id=call.call.id if call is not None else None,
            )
        except PartlySent as e:
            raise ToolError(f"not sent to everyone: {e}") from None
        except StorePatienceOut as e:
            # Tried under the same ids until the member's patience ran out: not stored.
            raise ToolError(
                f"not sent to {args.to}: {e}; the message was not stored: send the same "
                "message again once the store answers (under the same id: never twice)"
            ) from None
        except (ProtocolError, MailboxError, StoreUnavailable) as e:
            raise ToolError(str(e)) from None
        return ToolOutput(
            text=_said(sent, link),
            structured={
                "success": True,
                "message": _said(sent, link),
                "message_ids": [m.id for m in sent],
                "recipients": [m.recipient for m in sent],
                "state": link.protocol.state,
            },
        )

    return send_message


def _what(args: SendMessageInput) -> tuple[str, str, str | None, dict[str, Any]]:
    message = args.message
    if isinstance(message, str):
        if args.request and args.reply_to:
            raise ToolError("a message is a request or a reply (reply_to), not both")
        kind = "request" if args.request else ("reply" if args.reply_to else "message")
        return kind, message, args.reply_to, {}
    if isinstance(message, ShutdownRequest):
        return message.type, message.reason or "", None, {}
    if isinstance(message, ShutdownResponse):
        data: dict[str, Any] = {"approve": message.approve}
        if message.reason:
            data["reason"] = message.reason
        return message.type, "", message.request_id, data
    if isinstance(message, PlanApprovalRequest):
        return message.type, "", None, {"plan": message.plan}
    data = {"approve": message.approve}
    if message.feedback:
        data["feedback"] = message.feedback
    return message.type, "", message.request_id, data


def _said(sent: list[Message], link: TeamLink) -> str:
    if len(sent) > 1:
        return f"Message sent to {len(sent)} members: {', '.join(m.recipient for m in sent)}"
    message = sent[0]
    if message.kind in ("request", "plan_approval_request"):
        pending = link.protocol.pending.get(message.id)
        wait = ""
        if pending is not None and pending.deadline is not None:
            wait = f" (it times out in {pending.deadline - link.clock():.0f} s)"
        return (
            f"{message.kind} {message.id} sent to {message.recipient}: you are waiting for "
            f"the reply{wait}; it will arrive as a message"
        )
    if message.reply_to:
        return f"{message.kind} to {message.reply_to} sent to {message.recipient}"
    return f"Message sent to {message.recipient} (id {message.id})"
