"""`tether --init-only`: run the Setup hooks (trigger init) and exit, as Claude Code does."""

from __future__ import annotations

import asyncio
import sys

from tether.cli.setup import RunOptions, build_session
from tether.cli.terminal_text import terminal_safe
from tether.protocol import ConfigError, Event, Notice


def run_setup_only(opts: RunOptions) -> int:
    """0 once the Setup hooks ran (what they say goes to stderr); 2 when the session cannot
    be built."""
    try:
        return asyncio.run(_setup_only(opts))
    except ConfigError as e:
        print(f"tether: {terminal_safe(str(e))}", file=sys.stderr)
        return 2


async def _setup_only(opts: RunOptions) -> int:
    session = build_session(opts)
    said: list[Event] = []
    try:
        await session.lifecycle.setup(said.append)
    finally:
        await session.aclose()
    for event in said:
        if isinstance(event, Notice):
            print(f"tether: {terminal_safe(event.message)}", file=sys.stderr)
    return 0
