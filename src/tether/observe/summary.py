"""One line of text for a record: what `tether events tail` prints and a Slack webhook says."""

from __future__ import annotations

from tether.observe.records import EventRecord

DETAIL_CHARS = 200


def detail(record: EventRecord) -> str:
    """What the event says, briefly ("" when its kind says it all)."""
    p = record.payload
    kind = record.kind
    if kind == "tool_finished":
        outcome = "failed" if p.get("is_error") else "done"
        text = f"{p.get('name')} {outcome} in {p.get('duration_ms')} ms"
    elif kind == "tool_started":
        text = str(p.get("name", ""))
    elif kind in ("notice", "error", "webhook_dropped"):
        text = str(p.get("message", ""))
    elif kind == "turn_finished":
        text = f"{p.get('subtype')}, {p.get('num_turns')} model call(s)"
    elif kind in ("text_delta", "thinking_delta"):
        text = str(p.get("text", p.get("thinking", "")))
    elif kind == "subagent_started":
        text = f"{p.get('agent_type')} {p.get('agent_id')}: {p.get('description')}"
    elif kind == "subagent_finished":
        text = f"{p.get('agent_id')} {p.get('status')}"
    elif kind == "message_completed":
        message = p.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        text = f"{role} message" + (f" from {p['model']}" if p.get("model") else "")
    elif kind == "task_changed":
        text = f"#{p.get('task_id')} {p.get('change')} by {p.get('by')}: {p.get('subject')}"
    elif kind == "teammate_state_changed":
        text = f"{p.get('member')} {p.get('before')} -> {p.get('after')}: {p.get('cause')}"
    else:
        text = ""
    text = " ".join(text.split())
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 1] + "…"


def whose(record: EventRecord) -> str:
    who = f"session {record.session_id[:8]} · {record.agent_id}"
    return who if record.task_id is None else f"{who} · task {record.task_id}"


def line(record: EventRecord) -> str:
    """`time  session  agent  [task]  kind  detail` for a terminal."""
    task = f" task {record.task_id}" if record.task_id is not None else ""
    text = detail(record)
    return (
        f"{record.ts[:23].replace('T', ' ')}  {record.session_id[:8]}  {record.agent_id}{task}  "
        f"{record.kind}" + (f"  {text}" if text else "")
    )
