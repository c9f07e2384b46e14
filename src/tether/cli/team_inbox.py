"""The lead's mailbox for the person who runs a team from the command line.

    tether team inbox NAME [--follow] [--json]     what teammates sent the lead, marked read
    tether team send NAME MEMBER TEXT --wait       a request, and the reply that answers it

Each message is printed (and stdout flushed) before it is acknowledged: one killed between
the two is shown again the next time, never lost (at least once, as every mailbox). While it
reads, this process holds the lead's record as a lead session does (`claim_lead`), so a
lead session that runs meanwhile is refused, and a running one refuses it: one reader of the
lead's mail at a time. `--json`: one message a line (JSON Lines), as the store keeps it.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Generator
from contextlib import contextmanager

from tether.cli.terminal_text import terminal_safe
from tether.protocol import ConfigError
from tether.store.mailbox import Delivery, Message, TeamStore
from tether.teams.claims import claim_lead

LEAD = "team-lead"
BLOCK_S = 2.0
"""The longest one read of the mailbox waits (`--follow`, `send --wait`)."""
HELD_S = 3600.0
"""After the first read (which takes back all a killed reader held), what this reader holds is
not handed back to it."""


@contextmanager
def leading(store: TeamStore) -> Generator[None]:
    """The lead's record held by this process while it reads the lead's mail; `ConfigError`
    when a live lead session (or another reader) holds it."""
    if store.team_record() is None:
        raise ConfigError(
            f"no team named {store.team!r} in {store.url}: start it with tether team up"
        )
    me = claim_lead(store, LEAD)
    if isinstance(me, str):
        raise ConfigError(
            f"the lead of team {store.team} is a running session ({me}): its messages go to "
            "that session, not here"
        )
    try:
        yield
    finally:
        store.update_member(LEAD, {"pid": None, "pid_started": None})


def read_inbox(store: TeamStore, *, follow: bool, as_json: bool) -> int:
    """Print every message for the lead, oldest first, each acknowledged once printed;
    `follow`: then those that come, until interrupted."""
    consumer = f"inbox-{store.team}"
    reclaim = 0.0  # the first read takes back what a killed reader held
    shown = 0
    with leading(store):
        try:
            while True:
                batch = store.receive(
                    LEAD, consumer, block_s=BLOCK_S if follow else 0.0, reclaim_after_s=reclaim
                )
                reclaim = HELD_S
                if batch:
                    _show(store, batch, as_json)
                    shown += len(batch)
                elif not follow:
                    break
        except KeyboardInterrupt:  # --follow ends so; one printed, not acknowledged: again
            return 130
    if not shown and not as_json:
        print(f"no unread message for the lead of team {store.team}", file=sys.stderr)
    return 0


def wait_for_reply(store: TeamStore, request: Message, *, timeout_s: float, as_json: bool) -> int:
    """Print the reply to `request` (its `reply_to`) once it comes, acknowledged once printed;
    other messages stay unread for `team inbox`. 1 when none came within `timeout_s`."""
    consumer = f"wait-{request.id}"
    deadline = time.monotonic() + timeout_s
    reclaim = 0.0
    with leading(store):
        while (left := deadline - time.monotonic()) > 0:
            batch = store.receive(
                LEAD, consumer, block_s=min(BLOCK_S, left), reclaim_after_s=reclaim
            )
            reclaim = HELD_S  # the others it held stay held (unread), not handed back each read
            answer = [d for d in batch if d.message.reply_to == request.id]
            if answer:
                _show(store, answer, as_json)
                return 0
    print(
        f"no reply from {request.recipient} to {request.id} within {timeout_s:g} s: it goes "
        f"to the lead's mailbox when it comes (tether team inbox {store.team})",
        file=sys.stderr,
    )
    return 1


def _show(store: TeamStore, batch: list[Delivery], as_json: bool) -> None:
    render: Callable[[Message], str] = _json_line if as_json else _text
    for delivery in batch:
        print(render(delivery.message))
    sys.stdout.flush()
    store.ack(LEAD, [d.receipt for d in batch])


def _json_line(message: Message) -> str:
    return json.dumps(message.model_dump(mode="json"), ensure_ascii=False)


def _text(message: Message) -> str:
    when = time.strftime("%H:%M:%S", time.localtime(message.sent_at))
    head = f"{when} {message.sender} ({message.kind} {message.id}"
    head += f", reply to {message.reply_to})" if message.reply_to else ")"
    body = [message.text] if message.text else []
    body += [f"{k}: {v}" for k, v in message.data.items() if k != "summary"]
    lines = "\n".join(f"  {line}" for part in body for line in part.splitlines())
    return terminal_safe(f"{head}\n{lines}" if lines else head)
