"""A program's answer to a permission question raced against the PermissionRequest hooks, as
Claude Code does with an SDK client (measured with its CLI): the client is asked (`can_use_tool`)
and the hooks fire at once; the first decision wins and the other is cancelled (the client is
told); a hook that decides nothing leaves the question to the client; asked first, the client
wins a tie."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from tether.core.gate_types import Approval
from tether.protocol import PermissionAnswer


async def first_decision(
    asked: Awaitable[PermissionAnswer], hooks: Awaitable[Approval | None]
) -> PermissionAnswer | Approval:
    """The client's answer, or the hooks' decision when it comes first."""
    asking = asyncio.ensure_future(asked)
    judging = asyncio.ensure_future(hooks)
    try:
        await asyncio.wait((asking, judging), return_when=asyncio.FIRST_COMPLETED)
        if asking.done():
            return asking.result()
        decided = judging.result()
        return decided if decided is not None else await asking
    finally:
        # Not awaited: a cancellation on its way (a deny that interrupts the turn) must not
        # land here, after the answer was taken, and lose it. The loser ends on its own.
        for task in (asking, judging):
            if not task.done():
                task.cancel()
                task.add_done_callback(_outcome_dropped)


def _outcome_dropped(task: asyncio.Future[Any]) -> None:
    """The loser's end is nobody's news (an error it ended with included)."""
    if not task.cancelled():
        task.exception()
