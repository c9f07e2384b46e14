"""`receive_for_ever`: a member's mailbox read in a loop, for the lead's session and for a
teammate alike. A store that cannot be reached is said once and tried again, waiting 0.5 s
doubling to 5 s, until it answers (or, given a patience, until that runs out:
`StorePatienceOut`); one back without its data (`MailboxesLost`) is said, and the member's
record written again (`restore`). A store that waiting cannot mend (`StoreDamaged`: a damaged
SQLite file; `StoreLost`: a SQLite file deleted, moved away or replaced since it was opened) is
raised at once, as a worker stops on it: its mail is no longer where anyone sends it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable

from tether.store.mailbox import DEFAULT_RECLAIM_AFTER_S, Delivery, MailboxesLost, TeamStore
from tether.store.task_records import StoreDamaged, StoreLost, StoreUnavailable

RETRY_FIRST_S = 0.5
RETRY_MAX_S = 5.0
"""While the store cannot be reached: the first wait before trying again, and the longest."""


class StorePatienceOut(StoreUnavailable):
    """The store has not answered for longer than the member waits for it."""


async def receive_for_ever(
    inbox: TeamStore,
    member: str,
    consumer: str,
    *,
    block_s: float,
    say: Callable[[str], None],
    restore: Callable[[], Awaitable[None]],
    take_back_held: bool = False,
    patience_s: float | None = None,
) -> AsyncIterator[list[Delivery]]:
    """Each read's messages (an empty batch when `block_s` passed with none). `take_back_held`:
    the first read takes back every message held unacknowledged (a killed predecessor's, when
    the member is its mailbox's only consumer). `patience_s`: how long the store may stay
    unreachable before `StorePatienceOut` is raised (None: for ever)."""
    reclaim = 0.0 if take_back_held else DEFAULT_RECLAIM_AFTER_S
    retry_s: float | None = None
    unreachable_since = 0.0
    while True:
        try:
            batch = await asyncio.to_thread(
                inbox.receive, member, consumer, block_s=block_s, reclaim_after_s=reclaim
            )
        except (StoreDamaged, StoreLost):
            raise
        except StoreUnavailable as e:
            now = time.monotonic()
            if retry_s is None:
                unreachable_since = now
                limit = "" if patience_s is None else f" (for {patience_s:g} s at most)"
                say(f"{e}: trying again until it answers{limit}")
            elif patience_s is not None and now - unreachable_since >= patience_s:
                raise StorePatienceOut(
                    f"mailbox store {inbox.url} has not answered for {patience_s:g} s"
                ) from e
            retry_s = min(RETRY_MAX_S, (retry_s or RETRY_FIRST_S / 2) * 2)
            if patience_s is not None:
                retry_s = max(0.0, min(retry_s, unreachable_since + patience_s - now))
            await asyncio.sleep(retry_s)
            continue
        except MailboxesLost as e:
            say(str(e))
            await restore()
            continue
        if retry_s is not None:
            say(f"mailbox store {inbox.url} answers again")
            retry_s = None
            await restore()
        reclaim = DEFAULT_RECLAIM_AFTER_S
        yield batch
