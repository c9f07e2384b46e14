"""`team status`: each member as the roster keeps it, with what only this machine and the
board know: whether its process runs (one whose record says it runs and that is gone is
`exited`, its log named), the board task its claim holds, its unread mail, its last events,
the plans it waits to have approved."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tether.store.mailbox import Member, TeamStore
from tether.store.task_records import Task
from tether.teams.claims import alive, exited, start_state
from tether.teams.link import events_file, read_events
from tether.teams.member_log import log_file, log_tail
from tether.teams.processes import LEAD


def held_tasks(tasks: Sequence[Task], now: float) -> dict[str, list[Task]]:
    """The tasks each owner's claim holds now (in progress, its lease not run out), the
    newest claimed last."""
    held: dict[str, list[Task]] = {}
    for task in sorted(tasks, key=lambda t: t.started_at or 0.0):
        live = (task.lease_expires_at or 0.0) > now
        if task.status == "in_progress" and task.owner is not None and live:
            held.setdefault(task.owner, []).append(task)
    return held


def _board_task(member: Member, held: dict[str, list[Task]]) -> str | None:
    """The board task the member works on: one its claim holds now (the one it said, else
    its newest), never one it said and no longer holds (its lease ran out, the task went
    back or to another)."""
    ids = [task.id for task in held.get(member.name, [])]
    if member.board_task in ids:
        return member.board_task
    return ids[-1] if ids else None


def status_record(
    project: Path, store: TeamStore, tasks: Sequence[Task] = (), now: float | None = None
) -> dict[str, Any]:
    """The team's members as `team status` shows them; `tasks`: the team's board, which
    says the task each member's claim holds."""
    record = store.team_record()
    events = events_file(project, store.team)
    clock = time.time() if now is None else now
    held = held_tasks(tasks, clock)
    members: list[dict[str, Any]] = []
    for m in store.members():
        running = alive(m) if m.name != LEAD else None
        shown = m.model_dump()
        if running is False:
            # What its stopped run owed, `team down` has done: the shutdown that ended it.
            shown["requests_owed"] = [
                r for r in shown["requests_owed"] if r["id"] != m.shutdown_done
            ]
            # No process works on anything (a record its dead process left says otherwise).
            shown["current_task"] = None
        if m.read_only:  # read-only for good, in no plan mode (a record from before says so)
            shown["plan_mode"] = False
        # One source for both views: read-only as an agent type that only reads, or in plan
        # mode until its plan is approved; why, as the text view says it.
        shown["read_only_as"] = (
            f"{m.agent} agent" if m.read_only else "plan mode" if shown["plan_mode"] else None
        )
        shown["read_only"] = shown["read_only_as"] is not None
        gone = running is False and exited(m)
        if m.state == "did_not_start" or start_state(m, clock) == "did_not_start":
            # Its process ended in its start-up (or its starter did before starting it), or
            # its start-up ran past its deadline: not starting; why, as its log's last line
            # says.
            shown["state"] = "did_not_start"
            shown["stopped_why"] = _last_line(log_file(project, store.team, m.name))
        members.append(
            {
                **shown,
                "exited": gone,
                "log": str(log_file(project, store.team, m.name).relative_to(project)),
                "board_task": _board_task(m, held),
                "running": running,
                "unread": store.unread(m.name),
                "events": read_events(events, m.name, last=5),
            }
        )
    return {
        "team": store.team,
        "exists": record is not None,
        "lead": record.lead if record is not None else None,
        "description": record.description if record is not None else None,
        "store": store.url,
        "members": members,
    }


def status_lines(record: dict[str, Any]) -> list[str]:
    if not record["exists"]:
        return [f"no team named {record['team']!r} in {record['store']}"]
    lines = [f"team {record['team']} (lead {record['lead']}) in {record['store']}"]
    for m in record["members"]:
        running = "" if m["running"] is None else (" running" if m["running"] else " not running")
        answers: dict[str, bool] = m.get("plan_answers") or {}
        plans = [p for p in _plans_asked(m) if p not in answers]
        pending = f" waiting on {m['pending_request']}" if m["pending_request"] else ""
        if m["pending_request"] in plans:
            pending = f" waiting on plan approval {m['pending_request']}"
        elif m["pending_request"] in answers:  # answered; it takes the answer in (at its start)
            pending = ""
        owed = [f"{r['id']} from {r['sender']}" for r in m.get("requests_owed") or []]
        pending += f" owes a reply to {', '.join(owed)}" if owed else ""
        task = f" · {m['current_task']}" if m["current_task"] else ""
        if m.get("board_task"):
            task += f" · on task #{m['board_task']}"
        why = m.get("read_only_as")  # a read-only agent with --plan: no approval lets it write
        plan = (
            ""
            if why is None
            else f" {why} (read-only)"
            if why == "plan mode"
            else f" read-only ({why})"
        )
        state = m["state"]
        if state == "did_not_start":
            state = f"did not start (see {m['log']})"
        elif m.get("exited"):
            state = f"exited (see {m['log']})"
        lines.append(
            f"  {m['name']:<16} {state:<10}{plan}{pending}{running} · {m['unread']} unread · "
            f"${m['spend_usd']:.4f}{task}"
        )
        if m["state"] == "did_not_start" and m.get("stopped_why"):
            lines.append(f"      {m['stopped_why']}")
        for plan in [p for p in _plans_asked(m) if p in answers]:
            said = "approved" if answers[plan] else "rejected"
            when = "" if m["running"] else f": delivered when {m['name']} starts"
            lines.append(f"      plan {plan} {said}{when}")
        for plan in plans:
            lines.append(
                f"      plan {plan}: tether team send {record['team']} {m['name']} "
                f'--approve-plan --plan-id {plan} (or "why" --reject-plan --plan-id {plan})'
            )
        for e in m["events"]:
            lines.append(f"      {e.get('before')} -> {e.get('after')}: {e.get('cause')}")
    return lines


def _plans_asked(member: dict[str, Any]) -> list[str]:
    """The ids of the plan approvals a member asked for and awaits (expired ones are no
    longer awaited)."""
    return [
        held["message"]["id"]
        for held in member.get("requests_sent") or []
        if held["message"]["kind"] == "plan_approval_request" and not held.get("expired")
    ]


def _last_line(log: Path) -> str | None:
    """The last line a member's log holds (what its process said last), or None."""
    lines = log_tail(log, 50) or []
    return next((line.strip() for line in reversed(lines) if line.strip()), None)
