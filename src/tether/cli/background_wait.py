"""How long `tether -p` waits, once the model has answered, for the background work it left
running: bounded, and said.

Claude Code has varied here: some versions waited for a background command with no bound
(a `while true` loop held `-p` for ever, silently), later ones end at once and kill it. tether
waits, so that a build the model started ends and wakes a turn of its own (its result is then
the answer), but at most `WAIT_S` seconds after each turn (`TETHER_BACKGROUND_WAIT_MS`; 0: not
at all). The wait is said on stderr (and, with stream-json, as a system notice line) naming
what is waited for; at the bound (with 0: at once, no wait said) what is still running is
named, the session's close stops it (by its id), and the process exits with the code of the
result it had. `tether -p --input-format stream-json` (the Agent SDK's mode) waits the same
way once its input has ended (`stream_wakes`). After a turn the repeat guard ended nothing is
waited for: what still runs is named, and stopped.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping

from tether.config.numbers import env_number
from tether.protocol import UserInput
from tether.tools.background_shells import BackgroundShells

WAIT_ENV = "TETHER_BACKGROUND_WAIT_MS"

WAIT_S = 600.0
"""The bound by default: ten minutes, the longest a command run in the foreground is given
(Bash's `timeout` at most); work that outlives it is stopped rather than waited on for ever."""

_NAMED = 3
"""How many jobs a notice names (then "and N more")."""


def wait_limit_s(env: Mapping[str, str] | None = None) -> float:
    """The bound on each wait, from `TETHER_BACKGROUND_WAIT_MS` (ConfigError when out of range)."""
    value = env_number(os.environ if env is None else env, WAIT_ENV)
    return WAIT_S if value is None else value / 1000


def running(background: BackgroundShells) -> str:
    """The background subagents and commands still running, named for a notice ('': none)."""
    named = [
        *(f"{a.id} ({a.description})" for a in background.running_agents()),
        *(f"{s.id} ({s.short_command})" for s in background.running()),
    ]
    more = f" and {len(named) - _NAMED} more" if len(named) > _NAMED else ""
    return ", ".join(named[:_NAMED]) + more


async def ended_within(
    background: BackgroundShells,
    limit_s: float,
    say: Callable[[str], None],
    ended: Callable[[], bool],
) -> bool:
    """Wait for the background subagents and commands until `ended()` (news of one that ended,
    for a turn of its own), at most `limit_s`, said: True once it holds; False when nothing
    runs (or nothing more), or at the bound (said, naming what is left: the caller stops it).

    `ended` is the caller's: `-p` reads `unreported()`; stream-json also counts the wake its
    watchers queue as work ends (which tells the model, so `unreported()` is False then)."""
    if ended():
        return True
    if not (waited := running(background)):
        return False
    if limit_s <= 0:  # no wait at all, so none to announce: only what is stopped
        say(f"background work still running, stopped ({WAIT_ENV} is 0): {waited}")
        return False
    say(
        f"waiting for background work to end before exiting: {waited}; what still runs "
        f"in {_seconds(limit_s)} is stopped ({WAIT_ENV} sets the bound)"
    )
    try:
        async with asyncio.timeout(limit_s):
            while not ended():
                if not await background.wait_any():
                    return False
    except TimeoutError:
        say(
            f"background work still running after {_seconds(limit_s)}, stopped: "
            f"{running(background)}"
        )
        return False
    return True


async def woken_within(
    background: BackgroundShells, limit_s: float, say: Callable[[str], None]
) -> UserInput | None:
    """Once one of the background subagents and commands has ended, the turn that gives the
    model what they ended with (Claude Code's system notification); None when none runs, or
    when none ended within `limit_s` (`ended_within`)."""
    if not await ended_within(background, limit_s, say, background.unreported):
        return None
    from tether.agents.background import wake_prompt

    return UserInput(text=wake_prompt(background.finished_unreported()))


def stopped_with_the_loop(background: BackgroundShells, say: Callable[[str], None]) -> None:
    """After a turn the repeat guard ended, what it left running is named: the session's close
    stops it, unwaited (its end would wake the loop again), and a build killed unsaid looked
    like one that never ran."""
    if left := running(background):
        say(f"background work still running, stopped with the turn the guard ended: {left}")


def _seconds(limit_s: float) -> str:
    return f"{limit_s:g} s"
